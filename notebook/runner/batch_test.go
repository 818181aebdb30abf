package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/notebook"
)

func TestBatchReportsEachFile(t *testing.T) {
	dir := t.TempDir()
	files := []string{writeChapter(t, "ok.md"), "testdata/fails.md"}
	b := Batch{Files: files, Jobs: []*Job{mustJob(t, files[0], nil), mustJob(t, files[1], nil)}, File: FileOptions{OutDir: dir},
		Exercises: func(*notebook.Notebook) (string, bool, error) { return "1 wrong", true, errors.New("not right") }}
	var stdout, stderr bytes.Buffer
	if failed := b.Run(context.Background(), &stdout, &stderr); !failed {
		t.Fatal("a failed cell did not fail the batch")
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "ok      "+files[0]+"  1/1 cells") || lines[1] != "        exercises: 1 wrong" ||
		!strings.HasPrefix(lines[2], "failed  testdata/fails.md  3/4 cells") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	// The exercise error is reported for the file that ran through; the
	// failed cell is shown with its line marked.
	for _, want := range []string{"commlab run: " + files[0] + ": not right\n", "testdata/fails.md: ", "  >   2 | m[\"boom\"] = x\n"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if strings.Contains(stderr.String(), "testdata/fails.md: not right") {
		t.Errorf("exercise error reported for a failed file:\n%s", stderr.String())
	}
}

func TestBatchStoppedByContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := writeChapter(t, "ok.md")
	b := Batch{Files: []string{src}, Jobs: []*Job{mustJob(t, src, nil)}, File: FileOptions{OutDir: t.TempDir()}}
	var stdout, stderr bytes.Buffer
	if !b.Run(ctx, &stdout, &stderr) || !strings.HasSuffix(stderr.String(), "commlab run: interrupted\n") {
		t.Errorf("cancelled batch: stdout %q stderr %q", stdout.String(), stderr.String())
	}
}

func TestRelPath(t *testing.T) {
	if got := RelPath("/nowhere/else"); got != "/nowhere/else" {
		t.Errorf("RelPath outside the working directory = %q", got)
	}
}

// writeChapter writes a one-cell chapter that runs without error.
func writeChapter(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte("# Runs\n\n```go\nx := 1\n_ = x\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBatchPrepare holds that every file and -p value is checked before
// anything runs, and that the error names the file once.
func TestBatchPrepare(t *testing.T) {
	ok := writeChapter(t, "ok.md")
	nb, err := Load(ok)
	if err != nil {
		t.Fatal(err)
	}
	data, err := nb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	ipynb := filepath.Join(t.TempDir(), "ok.ipynb")
	if err := os.WriteFile(ipynb, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		files  []string
		params Params
		outDir string
		is     error
		want   string
	}{
		{"all good", []string{ok, "testdata/params.md"}, nil, t.TempDir(), nil, ""},
		{"bad -p named once", []string{"testdata/params.md"}, Params{"n": "eight"}, t.TempDir(), ErrParameter, "testdata/params.md: "},
		{"missing second file", []string{ok, "testdata/none.md"}, nil, t.TempDir(), os.ErrNotExist, "testdata/none.md"},
		{"over its source", []string{ok, ipynb}, nil, filepath.Dir(ipynb), ErrOverSource, "choose another --out"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := Batch{File: FileOptions{OutDir: tc.outDir}}
			err := b.Prepare(tc.files, tc.params)
			if tc.is == nil {
				if err != nil || len(b.Jobs) != len(tc.files) || len(b.Files) != len(tc.files) {
					t.Fatalf("err %v, %d jobs for %d files", err, len(b.Jobs), len(tc.files))
				}
				return
			}
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %v with %q", err, tc.is, tc.want)
			}
			if strings.Count(err.Error(), tc.files[len(tc.files)-1]) > 1 {
				t.Errorf("file named twice: %v", err)
			}
		})
	}
}

func TestNameFile(t *testing.T) {
	abs, _ := filepath.Abs("x.md")
	tests := []struct {
		err  error
		want string
	}{
		{errors.New("boom"), "x.md: boom"},
		{errors.New("lab: x.md: bad"), "lab: x.md: bad"},
		{errors.New("open " + abs + ": no such file"), "open " + abs + ": no such file"},
	}
	for _, tc := range tests {
		got := NameFile("x.md", tc.err)
		if got.Error() != tc.want || !errors.Is(got, tc.err) {
			t.Errorf("NameFile(%v) = %v, want %q wrapping it", tc.err, got, tc.want)
		}
	}
	if err := LoadEach([]string{"testdata/params.md", "testdata/none.md"}); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "testdata/none.md") {
		t.Errorf("LoadEach: %v", err)
	}
}

func TestParamsFlag(t *testing.T) {
	tests := []struct {
		arg     string
		wantErr bool
	}{
		{"n=8", false},
		{" label =ring=x", false},
		{"empty=", false},
		{"noequals", true},
		{"=1", true},
	}
	for _, tc := range tests {
		p := Params{}
		err := p.Set(tc.arg)
		if (err != nil) != tc.wantErr {
			t.Errorf("Set(%q): %v", tc.arg, err)
		}
	}
	p := Params{}
	for _, a := range []string{"n=1", " label =ring=x", "n=2"} {
		if err := p.Set(a); err != nil {
			t.Fatal(err)
		}
	}
	if len(p) != 2 || p["n"] != "2" || p["label"] != "ring=x" {
		t.Errorf("params %v: want the last n and a trimmed name", p)
	}
}

func TestBatchTimeout(t *testing.T) {
	src := writeChapter(t, "ok.md")
	b := Batch{Files: []string{src}, Jobs: []*Job{mustJob(t, src, nil)}, File: FileOptions{OutDir: t.TempDir()}, Timeout: time.Nanosecond}
	var stdout, stderr bytes.Buffer
	if !b.Run(context.Background(), &stdout, &stderr) || !strings.HasSuffix(stderr.String(), "the run took longer than --timeout 1ns\n") {
		t.Errorf("timed-out batch: stdout %q stderr %q", stdout.String(), stderr.String())
	}
}
