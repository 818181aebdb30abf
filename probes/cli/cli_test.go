package cli

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/cuda"
)

func TestParseFlagsAnywhere(t *testing.T) {
	var stderr bytes.Buffer
	fs := NewFlags("commlab probe x", &stderr, "usage: commlab probe x")
	j := fs.Bool("json", false, "")
	rest, status, ok := Parse(fs, []string{"a", "--json", "b"})
	if !ok || status != 0 || !*j || !reflect.DeepEqual(rest, []string{"a", "b"}) {
		t.Fatalf("Parse = %q, %d, %v (json %v)", rest, status, ok, *j)
	}
	_, status, ok = Parse(NewFlags("commlab probe x", &stderr), []string{"-nope"})
	if ok || status != 2 || !strings.HasPrefix(stderr.String(), "commlab probe x: flag provided but not defined: -nope") {
		t.Errorf("bad flag: %d %v %q", status, ok, stderr.String())
	}
	stderr.Reset()
	if status, ok := ParseOnly(NewFlags("commlab probe x", &stderr), []string{"extra"}, &stderr); ok || status != 2 || stderr.String() != "commlab probe x: unexpected argument \"extra\"\n" {
		t.Errorf("ParseOnly extra: %d %v %q", status, ok, stderr.String())
	}
}

func TestHelpShowsQuantitiesAsText(t *testing.T) {
	var stderr bytes.Buffer
	fs := NewFlags("commlab probe x", &stderr, "usage: commlab probe x [flags]")
	AddSizeFlags(fs, "copy size", "4K", "1G", 4, "")
	if _, status, ok := Parse(fs, []string{"-h"}); ok || status != 0 {
		t.Fatalf("-h: %d %v", status, ok)
	}
	for _, want := range []string{"usage: commlab probe x [flags]\n", "-b string", `(default "4K")`, "-f int"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("-h lacks %q:\n%s", want, stderr.String())
		}
	}
}

func TestSizeFlagsValues(t *testing.T) {
	tests := []struct {
		args []string
		want []int64
	}{
		{nil, []int64{4096, 16384}},
		{[]string{"--sizes", "8,1K"}, []int64{8, 1024}},
		{[]string{"-b", "1K", "-e", "4K", "-f", "2"}, []int64{1024, 2048, 4096}},
	}
	for _, tc := range tests {
		fs := NewFlags("t", io.Discard)
		f := AddSizeFlags(fs, "size", "4K", "16K", 4, "")
		if _, _, ok := Parse(fs, tc.args); !ok {
			t.Fatalf("%q: parse failed", tc.args)
		}
		got, err := f.Values()
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %v, %v; want %v", tc.args, got, err, tc.want)
		}
	}
	var stderr bytes.Buffer
	fs := NewFlags("t", &stderr)
	AddSizeFlags(fs, "size", "4K", "16K", 4, "")
	if _, status, ok := Parse(fs, []string{"-b", "lots"}); ok || status != 2 || !strings.Contains(stderr.String(), `invalid value "lots" for flag -b`) {
		t.Errorf("bad size: %d %v %q", status, ok, stderr.String())
	}
}

func TestSizeFlagsOptionalValues(t *testing.T) {
	tests := []struct {
		args []string
		want []int64
	}{
		{nil, nil},
		{[]string{"--sizes", "8,1K"}, []int64{8, 1024}},
		{[]string{"-b", "1K"}, []int64{1024}},
		{[]string{"-e", "4K"}, []int64{4096}},
		{[]string{"-b", "1K", "-e", "4K"}, []int64{1024, 2048, 4096}},
	}
	for _, tc := range tests {
		fs := NewFlags("t", io.Discard)
		f := AddSizeFlags(fs, "size", "", "", 2, "")
		if _, _, ok := Parse(fs, tc.args); !ok {
			t.Fatalf("%q: parse failed", tc.args)
		}
		got, err := f.OptionalValues()
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %v, %v; want %v", tc.args, got, err, tc.want)
		}
	}
}

func TestFinishRun(t *testing.T) {
	save := filepath.Join(t.TempDir(), "run.json")
	fs := NewFlags("t", io.Discard)
	mf := AddOutputFlags(fs, false)
	Parse(fs, []string{"--json", "--save", save})
	run := &probes.Run{Kind: "bandwidth"}
	var stdout, stderr bytes.Buffer
	if status := FinishRun(run, nil, mf, &stdout, &stderr, nil); status != 0 {
		t.Fatalf("status %d: %s", status, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"bandwidth"`) {
		t.Errorf("--json printed %q", stdout.String())
	}
	if _, err := os.Stat(save); err != nil {
		t.Errorf("--save: %v", err)
	}
	run.Error = "interrupted"
	stderr.Reset()
	if status := FinishRun(run, nil, mf, io.Discard, &stderr, nil); status != 1 || stderr.String() != "commlab probe: run stopped early: interrupted\n" {
		t.Errorf("stopped run: status %d, %q", status, stderr.String())
	}
}

func TestFinishScriptProbe(t *testing.T) {
	tests := []struct {
		res        *ScriptResult
		err        error
		wantStatus int
		wantOut    string
		wantErr    string
	}{
		{&ScriptResult{Summary: func(w io.Writer) error { _, err := io.WriteString(w, "ok\n"); return err }}, nil, 0, "ok\n", ""},
		{&ScriptResult{Summary: func(io.Writer) error { return nil }, Errors: []string{"a", "b"}}, nil, 1, "", "t: the script reported 2 error(s): a; b\n"},
		{nil, errors.New("no python3"), 1, "", "t: no python3\n"},
	}
	for i, tc := range tests {
		fs := NewFlags("t", io.Discard)
		out := AddOutputFlags(fs, false)
		var stdout, stderr bytes.Buffer
		status := FinishScriptProbe(fs, out, tc.res, tc.err, "script", &stdout, &stderr)
		if status != tc.wantStatus || stdout.String() != tc.wantOut || stderr.String() != tc.wantErr {
			t.Errorf("%d: status %d out %q err %q; want %d %q %q", i, status, stdout.String(), stderr.String(), tc.wantStatus, tc.wantOut, tc.wantErr)
		}
	}
}

func TestToolArgs(t *testing.T) {
	ours, tool := ToolArgs([]string{"--json", "--", "-b", "8"})
	if !reflect.DeepEqual(ours, []string{"--json"}) || !reflect.DeepEqual(tool, []string{"-b", "8"}) {
		t.Errorf("ToolArgs = %q, %q", ours, tool)
	}
	if VerbName(flag.NewFlagSet("commlab probe nccl-tests", flag.ContinueOnError)) != "nccl-tests" {
		t.Error("VerbName")
	}
}

// TestDescribeDriver holds that only the driver is added, and only where
// CUDA opens: the GPU count a run's ranks set stays.
func TestDescribeDriver(t *testing.T) {
	run := &probes.Run{Driver: "before", GPUCount: 3}
	DescribeDriver(run)
	want := "before"
	if info, err := cuda.Open(); err == nil && info.DriverRelease != "" {
		want = info.DriverRelease
	}
	if run.Driver != want || run.GPUCount != 3 {
		t.Errorf("run %+v, want driver %q and the GPUs kept", run, want)
	}
}
