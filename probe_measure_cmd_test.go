package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/probes"
)

func TestProbeMeasureParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"8", 8, true}, {"64K", 64 << 10, true}, {"1M", 1 << 20, true}, {"8G", 8 << 30, true},
		{"8GB", 8e9, true}, {"1MB", 1e6, true}, {"2MiB", 2 << 20, true}, {" 4k ", 4 << 10, true},
		{"1.5M", 3 << 19, true}, {"0.5", 0, false},
		{"0", 0, false}, {"-1", 0, false}, {"lots", 0, false}, {"", 0, false},
	}
	for _, tc := range tests {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestProbeMeasureSizeSweep(t *testing.T) {
	got, err := sizeSweep("", "8", "64", 2)
	if err != nil || len(got) != 4 || got[3] != 64 {
		t.Errorf("sweep 8..64 x2 = %v, %v", got, err)
	}
	got, err = sizeSweep("1K,1M", "8", "8", 2)
	if err != nil || len(got) != 2 || got[1] != 1<<20 {
		t.Errorf("explicit sizes = %v, %v", got, err)
	}
	for _, bad := range [][3]string{{"", "64", "8"}, {"", "x", "8"}, {"1K,zz", "8", "8"}} {
		if _, err := sizeSweep(bad[0], bad[1], bad[2], 2); err == nil {
			t.Errorf("sizeSweep(%q) accepted", bad)
		}
	}
	if _, err := sizeSweep("", "8", "64", 1); err == nil {
		t.Error("factor 1 accepted")
	}
}

func TestProbeMeasureLauncherCommands(t *testing.T) {
	mk := func(launcher, hostfile string, np, perNode, nodes int, env ...string) launcherFlags {
		e := multiFlag(env)
		dry := false
		return launcherFlags{launcher: &launcher, hostfile: &hostfile, np: &np, perNode: &perNode, nodes: &nodes, dryRun: &dry, env: &e}
	}
	tests := []struct {
		l       launcherFlags
		program string
		want    string
	}{
		{mk("none", "", 0, 0, 0), "all_reduce_perf", "all_reduce_perf -b 8"},
		{mk("mpirun", "hosts", 16, 8, 0, "NCCL_PROTO=LL"), "all_reduce_perf",
			"mpirun --hostfile hosts -np 16 --map-by ppr:8:node --bind-to none -x NCCL_PROTO all_reduce_perf -b 8"},
		{mk("srun", "", 16, 8, 2), "all_reduce_perf", "srun -N 2 -n 16 --ntasks-per-node 8 --export=ALL all_reduce_perf -b 8"},
		{mk("torchrun", "", 0, 8, 2), "bench_torch.py", "torchrun --nnodes 2 --nproc-per-node 8 bench_torch.py -b 8"},
	}
	for _, tc := range tests {
		got, err := launchCommand(tc.l, tc.program, []string{"-b", "8"})
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("%s: %q, %v; want %q", *tc.l.launcher, strings.Join(got, " "), err, tc.want)
		}
	}
	for _, bad := range []launcherFlags{mk("torchrun", "", 0, 8, 1), mk("pdsh", "", 0, 0, 0), mk("mpirun", "", 0, 0, 0, "NOEQUALS")} {
		if _, err := launchCommand(bad, "all_reduce_perf", nil); err == nil {
			t.Errorf("launcher %s accepted", *bad.launcher)
		}
	}
}

func TestProbeMeasureJudge(t *testing.T) {
	coll := func(b int64) probes.Sample {
		return probes.Sample{Op: "all_reduce", Bytes: b, DType: "float32", Ranks: 2}
	}
	cp := func(b int64) probes.Sample { return probes.Sample{Op: "d2d", Bytes: b} }
	tests := []struct {
		s     probes.Sample
		ratio float64
		crit  string
		pass  bool
	}{
		{coll(1 << 20), 1.02, "within 3%", true},
		{coll(1 << 20), 1.05, "within 3%", false},
		{coll(1 << 20), 0.5, "faster", true},
		{coll(8), 0.99, "no slower", true},
		{coll(8), 1.01, "no slower", false},
		{cp(1 << 30), 0.98, "within 3%", true},
		{cp(1 << 30), 1.04, "within 3%", false},
		{cp(4096), 0.6, "no slower", true},
	}
	for _, tc := range tests {
		crit, pass := judge(tc.s, tc.ratio)
		if crit != tc.crit || pass != tc.pass {
			t.Errorf("judge(%s %d, %v) = %s %v, want %s %v", tc.s.Op, tc.s.Bytes, tc.ratio, crit, pass, tc.crit, tc.pass)
		}
	}
}

func writeRun(t *testing.T, dir, name string, r *probes.Run) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := r.Save(p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestProbeMeasureCompareLoadedRuns(t *testing.T) {
	dir := t.TempDir()
	date := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	ours := &probes.Run{Kind: "nccl", Date: date, GPUModel: "NVIDIA H200", GPUCount: 1, Samples: []probes.Sample{
		{Op: "all_reduce", Bytes: 8, DType: "float32", Ranks: 1, InPlace: true, Src: -1, Dst: -1, MedianUS: 1.5},
		{Op: "all_reduce", Bytes: 1 << 30, DType: "float32", Ranks: 1, InPlace: true, Src: -1, Dst: -1, MedianUS: 101},
		{Op: "all_gather", Bytes: 1 << 30, DType: "float32", Ranks: 1, Src: -1, Dst: -1, MedianUS: 120},
	}}
	ref := &probes.Run{Kind: "torch", Date: date, Samples: []probes.Sample{
		{Op: "all_reduce", Bytes: 8, InPlace: true, Src: -1, Dst: -1, MedianUS: 27},
		{Op: "all_reduce", Bytes: 1 << 30, InPlace: true, Src: -1, Dst: -1, MedianUS: 100},
		{Op: "all_gather", Bytes: 1 << 30, Src: -1, Dst: -1, MedianUS: 100},
	}}
	op, rp := writeRun(t, dir, "ours.json", ours), writeRun(t, dir, "ref.json", ref)
	var out, errb bytes.Buffer
	code := dispatch([]string{"probe", "nccl", "--load", op, "--compare", rp}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	for _, want := range []string{"no slower  ok", "within 3%  ok", "within 3%  FAIL", "# 2 of 3 within criteria"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	out.Reset()
	if code := dispatch([]string{"probe", "nccl", "--load", op, "--json"}, &out, &errb); code != 0 {
		t.Fatalf("--json exit %d", code)
	}
	if _, err := probes.ReadRun(&out); err != nil {
		t.Errorf("--json output is not a run: %v", err)
	}
}

func TestProbeMeasureBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"probe", "nccl", "--coll", "allreduce"},
		{"probe", "nccl", "--modes", "sideways"},
		{"probe", "nccl", "--dtype", "float128"},
		{"probe", "nccl", "--op", "xor"},
		{"probe", "nccl", "--iters", "0"},
		{"probe", "nccl", "--env", "NOEQUALS"},
		{"probe", "nccl", "-b", "1G", "-e", "1M"},
		{"probe", "bandwidth", "--ops", "teleport"},
		{"probe", "bandwidth", "--devices", "x"},
		{"probe", "bandwidth", "stray"},
		{"probe", "latency", "--iters", "0"},
		{"probe", "nccl-tests", "--launcher", "pdsh"},
		{"probe", "nccl-tests", "stray"},
	} {
		var out, errb bytes.Buffer
		if code := dispatch(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
		if errb.Len() == 0 {
			t.Errorf("%v: no message", args)
		}
	}
}

func TestProbeMeasureToolNotInstalled(t *testing.T) {
	for _, kind := range []string{"nccl-tests", "nvbandwidth", "perftest"} {
		var out, errb bytes.Buffer
		code := dispatch([]string{"probe", kind, "--tool", "commlab-no-such-tool"}, &out, &errb)
		if code != 1 || !strings.Contains(errb.String(), "not installed") {
			t.Errorf("%s: exit %d, stderr %q", kind, code, errb.String())
		}
	}
}

func TestProbeMeasureDryRun(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch([]string{"probe", "nccl-tests", "--launcher", "srun", "--nodes", "2", "--per-node", "8", "--dry-run", "--", "-b", "8", "-e", "8G", "-g", "1"}, &out, &errb)
	want := "srun -N 2 --ntasks-per-node 8 --export=ALL all_reduce_perf -b 8 -e 8G -g 1\n"
	if code != 0 || out.String() != want {
		t.Errorf("exit %d, output %q, want %q (%s)", code, out.String(), want, errb.String())
	}
}

// TestProbeMeasureRunsToolAndParses runs a stand-in for all_reduce_perf
// that prints a recorded nccl-tests output, and checks the parsed samples.
func TestProbeMeasureRunsToolAndParses(t *testing.T) {
	fixtures, _ := filepath.Glob("probes/parse/nccltests/testdata/allreduce_*.txt")
	if len(fixtures) == 0 {
		t.Skip("no nccl-tests fixtures in probes/parse/nccltests/testdata")
	}
	abs, _ := filepath.Abs(fixtures[0])
	dir := t.TempDir()
	tool := filepath.Join(dir, "all_reduce_perf")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\ncat '"+abs+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	save := filepath.Join(dir, "run.json")
	var out, errb bytes.Buffer
	code := dispatch([]string{"probe", "nccl-tests", "--tool", tool, "--json", "--save", save}, &out, &errb)
	var got struct {
		Run    probes.Run      `json:"run"`
		Parsed json.RawMessage `json:"parsed"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("exit %d, output not JSON: %v\n%s", code, err, errb.String())
	}
	if len(got.Run.Samples) == 0 || got.Run.Logs["output"] == "" || len(got.Parsed) == 0 {
		t.Errorf("%s: run has %d samples, parsed %d bytes", fixtures[0], len(got.Run.Samples), len(got.Parsed))
	}
	for _, s := range got.Run.Samples {
		if s.Op != "all_reduce" || s.Bytes <= 0 {
			t.Errorf("sample %+v", s)
			break
		}
	}
	if _, err := probes.LoadRun(save); err != nil {
		t.Errorf("--save: %v", err)
	}
}

func TestProbeMeasureNoGPU(t *testing.T) {
	if _, err := os.Stat("/dev/nvidiactl"); err == nil {
		t.Skip("a GPU driver is present")
	}
	for _, args := range [][]string{{"bandwidth"}, {"latency"}, {"nccl"}, {"nccl", "--blocking"}} {
		var out, errb bytes.Buffer
		code := dispatch(append([]string{"probe"}, args...), &out, &errb)
		if code != 1 || !strings.Contains(errb.String(), "unavailable") {
			t.Errorf("%v without a GPU: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// TestProbeMeasureReparsesSavedRun parses again the output a recorded run
// kept: a run saved before the parser read nccl-tests' nccl-library code
// gains its NCCL version and keeps its samples and provenance.
func TestProbeMeasureReparsesSavedRun(t *testing.T) {
	orig, err := probes.LoadRun("probes/recorded/data/nccl-tests-all_reduce-h200x1.json")
	if err != nil {
		t.Fatal(err)
	}
	old := *orig
	old.NCCL = ""
	dir := t.TempDir()
	in, out := filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")
	if err := old.Save(in); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"probe", "nccl-tests", "--load", in, "--save", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, err := probes.LoadRun(out)
	if err != nil {
		t.Fatal(err)
	}
	if got.NCCL != "2.28.3" || !got.Date.Equal(orig.Date) || strings.Join(got.Command, " ") != strings.Join(orig.Command, " ") {
		t.Errorf("reparsed run: nccl %q date %v command %v", got.NCCL, got.Date, got.Command)
	}
	if len(got.Samples) != len(orig.Samples) || len(got.Samples) == 0 {
		t.Fatalf("samples: %d, recorded %d", len(got.Samples), len(orig.Samples))
	}
	for i := range got.Samples {
		if !reflect.DeepEqual(got.Samples[i], orig.Samples[i]) {
			t.Fatalf("sample %d: %+v, recorded %+v", i, got.Samples[i], orig.Samples[i])
		}
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"probe", "nccl-tests", "--load", "probes/recorded/data/bandwidth-h200x1.json"}, 1, "without the tool's output"},
		{[]string{"probe", "nvbandwidth", "--load", in}, 1, `"nccl-tests" run`},
		{[]string{"probe", "nccl-tests", "--load", in, "--", "-b", "8"}, 2, "no tool arguments"},
		{[]string{"probe", "nccl-tests", "--load", filepath.Join(dir, "missing.json")}, 1, "missing.json"},
	} {
		stdout.Reset()
		stderr.Reset()
		if code := dispatch(c.args, &stdout, &stderr); code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
}

// TestProbeMeasureToolFailureSaysWhy runs a stand-in that prints what
// nccl-tests printed under mpirun when two ranks shared one GPU, and exits
// as it did: the reason reaches stderr, not only the exit status.
func TestProbeMeasureToolFailureSaysWhy(t *testing.T) {
	abs, _ := filepath.Abs("probes/parse/nccltests/testdata/allreduce_h200_mpirun_np2_failure.txt")
	tool := filepath.Join(t.TempDir(), "all_reduce_perf_mpi")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\ncat '"+abs+"'\nexit 5\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := dispatch([]string{"probe", "nccl-tests", "--tool", tool}, &out, &errb)
	for _, want := range []string{"Invalid number of GPUs: 2 requested but only 1 were found", "exit status 5"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
	if code != 1 || !strings.Contains(out.String(), "no results") {
		t.Errorf("exit %d, stdout %q", code, out.String())
	}
}
