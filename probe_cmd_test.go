package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/probes/cli"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/published"
)

// sizeFlagsOf parses args as a sweep's size flags, defaults -b 8 -e 64
// -f 2.
func sizeFlagsOf(args ...string) (cli.SizeFlags, error) {
	fs := flag.NewFlagSet("commlab probe test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := cli.AddSizeFlags(fs, "size", "8", "64", 2, "")
	return f, fs.Parse(args)
}

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
		f, err := sizeFlagsOf("-b", tc.in)
		if (err == nil) != tc.ok || tc.ok && f.Lo.Value != tc.want {
			t.Errorf("-b %q = %d, %v; want %d, ok=%v", tc.in, f.Lo.Value, err, tc.want, tc.ok)
		}
	}
}

func TestProbeMeasureSizeSweep(t *testing.T) {
	sizes := func(args ...string) ([]int64, error) {
		f, err := sizeFlagsOf(args...)
		if err != nil {
			return nil, err
		}
		return f.Values()
	}
	got, err := sizes()
	if err != nil || len(got) != 4 || got[3] != 64 {
		t.Errorf("sweep 8..64 x2 = %v, %v", got, err)
	}
	got, err = sizes("--sizes", "1K,1M", "-b", "8", "-e", "8")
	if err != nil || len(got) != 2 || got[1] != 1<<20 {
		t.Errorf("explicit sizes = %v, %v", got, err)
	}
	for _, bad := range [][]string{{"-b", "64", "-e", "8"}, {"-b", "x"}, {"--sizes", "1K,zz"}, {"-f", "1"}} {
		if _, err := sizes(bad...); err == nil {
			t.Errorf("%q accepted", bad)
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
		{"probe", "bandwidth", "--host-numa", "near"},
		{"probe", "bandwidth", "--host-numa", "0,-1"},
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
	for _, args := range [][]string{{"nccl-tests", "--tool", "commlab-no-such-tool"}, {"nvbandwidth", "--tool", "commlab-no-such-tool"}, {"perftest", "--tool", "/nonexistent/ib_write_bw"}} {
		kind := args[0]
		var out, errb bytes.Buffer
		code := dispatch(append([]string{"probe"}, args...), &out, &errb)
		if code != 1 || !strings.Contains(errb.String(), "not installed") {
			t.Errorf("%s: exit %d, stderr %q", kind, code, errb.String())
		}
	}
}

// TestProbePerftestUnavailable runs commlab probe perftest where perftest
// or an RDMA device is missing: exit 1 and one line saying which.
func TestProbePerftestUnavailable(t *testing.T) {
	if _, err := exec.LookPath("ib_write_bw"); err == nil {
		if _, err := os.Stat("/sys/class/infiniband"); err == nil {
			t.Skip("perftest and an RDMA device are both here")
		}
	}
	var out, errb bytes.Buffer
	code := dispatch([]string{"probe", "perftest", "--use-cuda", "0", "--gid-index", "3", "-b", "4K", "-e", "64K", "--cache-dir", t.TempDir()}, &out, &errb)
	msg := errb.String()
	if code != 1 || !strings.Contains(msg, "unavailable") || strings.Count(msg, "\n") != 1 || out.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), msg)
	}
	if !strings.Contains(msg, "ib_write_bw is not installed") && !strings.Contains(msg, "no RDMA device") {
		t.Errorf("stderr %q names neither the tool nor the device", msg)
	}
}

func TestProbePerftestFlags(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch([]string{"probe", "perftest", "--dry-run", "--use-cuda", "0", "--gid-index", "3", "--sizes", "64K", "--port", "7000", "--", "-q", "2"}, &out, &errb)
	want := "server: ib_write_bw -x 3 -s 65536 --use_cuda=0 -p 7000 -F -q 2\nclient: ib_write_bw -x 3 -s 65536 --use_cuda=0 -p 7000 -F -q 2 127.0.0.1\n"
	if code != 0 || out.String() != want {
		t.Errorf("exit %d, output %q, want %q (%s)", code, out.String(), want, errb.String())
	}
	// The two machines' sides: each prints only its own command line, the
	// client against the server it names or the server host given.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--server", ":19000"}, "server: ib_write_bw -s 65536 -p 19000 -F\n"},
		{[]string{"--connect", "10.0.0.2:19000"}, "client: ib_write_bw -s 65536 -p 19000 -F 10.0.0.2\n"},
		{[]string{"--launcher", "mpirun", "--np", "2", "--server-host", "nodeA"},
			"server: ib_write_bw -s 65536 -p 18515 -F\nclient: mpirun -np 2 --bind-to none ib_write_bw -s 65536 -p 18515 -F nodeA\n"},
	} {
		var out, errb bytes.Buffer
		code := dispatch(append([]string{"probe", "perftest", "--dry-run", "-b", "64K"}, tc.args...), &out, &errb)
		if code != 0 || out.String() != tc.want {
			t.Errorf("%v: exit %d, output %q, want %q (%s)", tc.args, code, out.String(), tc.want, errb.String())
		}
	}
	if code := dispatch([]string{"probe", "perftest", "--dry-run", "--connect", "nohost"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "HOST:PORT") {
		t.Errorf("--connect nohost: exit %d, stderr %q", code, errb.String())
	}
	for _, args := range [][]string{
		{"--tool", "ib_atomic_lat"},
		{"--server", ":1", "--connect", "a:1"},
		{"--all", "-b", "8"},
		{"--iters", "-1"},
		{"--launcher", "pdsh"},
		{"stray"},
	} {
		var out, errb bytes.Buffer
		if code := dispatch(append([]string{"probe", "perftest"}, args...), &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
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
	fixtures, _ := filepath.Glob("parse/nccltests/testdata/allreduce_*.txt")
	if len(fixtures) == 0 {
		t.Skip("no nccl-tests fixtures in parse/nccltests/testdata")
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
		// One plain line naming what is missing, not a Go slice of errors.
		if code != 1 || !strings.Contains(errb.String(), "unavailable") || strings.Count(errb.String(), "\n") != 1 || strings.ContainsAny(errb.String(), "[]") {
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
		{[]string{"probe", "nccl-tests", "--load", "probes/recorded/data/bandwidth-h200x1.json"}, 2, "without the tool's output"},
		{[]string{"probe", "nvbandwidth", "--load", in}, 2, `"nccl-tests" run`},
		{[]string{"probe", "nccl-tests", "--load", in, "--", "-b", "8"}, 2, "no tool arguments"},
		{[]string{"probe", "nccl-tests", "--load", filepath.Join(dir, "missing.json")}, 2, "missing.json"},
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
	abs, _ := filepath.Abs("parse/nccltests/testdata/allreduce_h200_mpirun_np2_failure.txt")
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

// topoStubSource answers with a fixed topology and error, as a machine without
// a driver does.
type topoStubSource struct {
	topo *probes.Topology
	err  error
}

func (s topoStubSource) Topology(context.Context) (*probes.Topology, error) { return s.topo, s.err }

func topoRunCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := dispatch(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestProbeTopoCLIFake(t *testing.T) {
	code, out, errs := topoRunCLI("probe", "topo", "--fake", "hgx-h200")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"GPU0\t X \tNV18", "nearest NIC NIC0 (PIX)", "NIC7 mlx5_8", "PCIe Gen5 x16 = 63.0 GB/s",
		"GPU -> NIC (modelled from the matrix as NCCL picks", "  GPU3  NIC3 mlx5_4  PIX   50 GB/s  yes             -\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = topoRunCLI("probe", "topo", "--json", "--fake", "pcie-8gpu")
	var topo probes.Topology
	if code != 0 || json.Unmarshal([]byte(out), &topo) != nil || len(topo.GPUs) != 8 {
		t.Errorf("--json: exit %d, %d GPUs", code, len(topo.GPUs))
	}
	code, out, _ = topoRunCLI("probe", "topo", "--fake", "pcie-box")
	if code != 0 || !strings.Contains(out, "\nGPU -> NIC: no NIC in the topology") {
		t.Errorf("pcie-box: exit %d, no GPU -> NIC line:\n%s", code, out)
	}
	code, out, _ = topoRunCLI("probe", "topo", "--dot", "--fake", "pcie-box")
	if code != 0 || !strings.HasPrefix(out, "graph topology {") {
		t.Errorf("--dot: exit %d:\n%.200s", code, out)
	}
}

func TestProbeTopoCLISVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "topo.svg")
	code, _, errs := topoRunCLI("probe", "topo", "--fake", "pcie-box", "--svg", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(data, []byte("<svg")) {
		t.Errorf("SVG file: %v %.100s", err, data)
	}
}

func TestProbeTopoCLIBadArgs(t *testing.T) {
	for _, args := range [][]string{
		{"probe", "topo", "--bogus"},
		{"probe", "topo", "extra"},
		{"probe", "topo", "--fake", "nope"},
	} {
		if code, _, _ := topoRunCLI(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// Without a driver the command says so plainly and shows what sysfs gave.
func TestProbeTopoCLINoGPU(t *testing.T) {
	saved := topoSource
	defer func() { topoSource = saved }()
	unavailable := fmt.Errorf("nvml: %w: libnvidia-ml.so.1 not found", probes.ErrUnavailable)

	partial := &probes.Topology{Source: "nvml+sysfs", NUMANodes: []probes.NUMANode{{ID: 0, CPUs: "0-7"}}}
	topoSource = func(string) (probes.Source, error) { return topoStubSource{partial, unavailable}, nil }
	code, out, errs := topoRunCLI("probe", "topo")
	if code != 0 || !strings.Contains(errs, "no NVIDIA driver/GPU on this machine: nvml:") || !strings.Contains(out, "NUMA nodes: 1") {
		t.Errorf("partial: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}

	topoSource = func(string) (probes.Source, error) { return topoStubSource{nil, unavailable}, nil }
	if code, _, errs := topoRunCLI("probe", "topo"); code != 1 || !strings.Contains(errs, "nothing to show") {
		t.Errorf("nothing: exit %d, %s", code, errs)
	}

	topoSource = func(string) (probes.Source, error) { return topoStubSource{nil, fmt.Errorf("boom")}, nil }
	if code, _, errs := topoRunCLI("probe", "topo"); code != 1 || !strings.Contains(errs, "boom") {
		t.Errorf("other error: exit %d, %s", code, errs)
	}
}

// The live probe never fails on this machine, GPU or not.
func TestProbeTopoCLILive(t *testing.T) {
	code, out, errs := topoRunCLI("probe", "topo")
	if code != 0 && !strings.Contains(errs, "nothing to show") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

// TestProbeTorch runs the embedded PyTorch reference through a stand-in
// python3 that prints its arguments, and checks --script, --dry-run and the
// launchers the script cannot run under.
func TestProbeTorch(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "python3"), []byte("#!/bin/sh\necho ran \"$(basename \"$1\")\" \"$2\" \"$3\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out, errb bytes.Buffer
	if code := dispatch([]string{"probe", "torch", "--", "--out", "ref.json"}, &out, &errb); code != 0 || out.String() != "ran bench_torch.py --out ref.json\n" {
		t.Errorf("run: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	out.Reset()
	if code := dispatch([]string{"probe", "torch", "--script"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "PyTorch reference for commlab's probes") {
		t.Errorf("--script: exit %d, %d bytes", code, out.Len())
	}
	out.Reset()
	code := dispatch([]string{"probe", "torch", "--launcher", "torchrun", "--per-node", "8", "--dry-run", "--", "--what", "nccl", "--out", "r.json"}, &out, &errb)
	if want := "torchrun --nproc-per-node 8 bench_torch.py --what nccl --out r.json\n"; code != 0 || out.String() != want {
		t.Errorf("--dry-run: exit %d, %q, want %q", code, out.String(), want)
	}
	errb.Reset()
	if code := dispatch([]string{"probe", "torch", "--launcher", "srun", "--", "--out", "r.json"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "torchrun") {
		t.Errorf("srun: exit %d, stderr %q", code, errb.String())
	}
}

// TestProbeUsage: the probe kinds are dispatched as the verbs are.
func TestProbeUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := dispatch([]string{"probe"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage: commlab probe <command>") || !strings.Contains(errb.String(), "  torch ") {
		t.Errorf("probe: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := dispatch([]string{"probe", "-h"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "  topo ") {
		t.Errorf("probe -h: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := dispatch([]string{"probe", "teleport"}, &out, &errb); code != 2 || !strings.HasPrefix(errb.String(), `commlab probe: unknown command "teleport"`) {
		t.Errorf("unknown probe: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := dispatch([]string{"teleport"}, &out, &errb); code != 2 || !strings.HasPrefix(errb.String(), `commlab: unknown command "teleport"`) {
		t.Errorf("unknown verb: exit %d, stderr %q", code, errb.String())
	}
}

// Issue 12: probe topo --fake and model --preset name the same machines
// alike; the old name pcie-box still works.
func TestProbeTopoFakeNamesArePresets(t *testing.T) {
	for _, name := range published.Names() {
		if _, err := costmodel.NodeByName(name); err != nil {
			t.Errorf("fake machine %q is no model preset: %v", name, err)
		}
		code, _, errs := topoRunCLI("probe", "topo", "--fake", name)
		if code != 0 {
			t.Errorf("--fake %s: exit %d: %s", name, code, errs)
		}
		if code, _, errs := runModelCLI("all_reduce", "--size", "1MB", "--preset", name); code != 0 {
			t.Errorf("--preset %s: exit %d: %s", name, code, errs)
		}
	}
	if code, _, errs := topoRunCLI("probe", "topo", "--fake", "pcie-box"); code != 0 {
		t.Errorf("--fake pcie-box: exit %d: %s", code, errs)
	}
}

// The bandwidth probe prints the GPUs' L2 size under its device line when
// the run recorded it; runs recorded before it load as they did.
func TestProbeBandwidthL2Line(t *testing.T) {
	const old = "probes/recorded/data/bandwidth-h200x1.json"
	code, out, errs := topoRunCLI("probe", "bandwidth", "--load", old)
	if code != 0 || !strings.HasPrefix(out, "# 1x NVIDIA H200") || strings.Contains(out, "L2 cache") {
		t.Fatalf("old run: exit %d %s\n%.300s", code, errs, out)
	}
	run, err := probes.LoadRun(old)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ setting, want string }{
		{"62914560", "\n# L2 cache per GPU: 60 MiB (copies whose buffers fit may not reach HBM)\n"},
		{"62914560,52428800", "\n# L2 cache per GPU: 60 MiB, 50 MiB ("},
	} {
		run.Settings[probes.SettingL2Bytes] = tc.setting
		path := filepath.Join(t.TempDir(), "l2.json")
		if err := run.Save(path); err != nil {
			t.Fatal(err)
		}
		code, out, errs := topoRunCLI("probe", "bandwidth", "--load", path)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%s: exit %d %s\n%.400s", tc.setting, code, errs, out)
		}
	}
}

// nvbandwidth's bidirectional testcases say, in the summary and in each
// sample's label, that their number is one direction measured while the
// reverse runs; only the device-to-device Total matrices add both.
func TestProbeNVBandwidthBidirectional(t *testing.T) {
	abs, err := filepath.Abs("parse/nvbandwidth/testdata/text_v0.8_synthetic_2gpu_bidir.txt")
	if err != nil {
		t.Fatal(err)
	}
	tool := filepath.Join(t.TempDir(), "nvbandwidth")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\ncat '"+abs+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs := topoRunCLI("probe", "nvbandwidth", "--tool", tool)
	for _, want := range []string{
		"host_to_device_bidirectional_memcpy_ce        Passed   sum 103.19 GB/s (one direction, measured while the reverse runs)\n",
		"device_to_device_bidirectional_memcpy_read_ce_read1 Passed   sum 740.00 GB/s (one direction, measured while the reverse runs)\n",
		"device_to_device_bidirectional_memcpy_read_ce_total Passed   sum 1481.52 GB/s (both directions added",
		"device_to_device_memcpy_write_ce              Passed   sum 780.03 GB/s\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d %s: summary lacks %q:\n%s", code, errs, want, out)
		}
	}
	code, out, _ = topoRunCLI("probe", "nvbandwidth", "--tool", tool, "--json")
	var got struct {
		Run probes.Run `json:"run"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 {
		t.Fatalf("exit %d, not JSON: %v", code, err)
	}
	labels := map[string]string{}
	for _, s := range got.Run.Samples {
		labels[s.Op] = s.Label
	}
	for op, want := range map[string]string{
		"host_to_device_bidirectional_memcpy_ce":              "memcpy CE CPU(row) <-> GPU(column) bandwidth (GB/s) [one direction, measured while the reverse runs]",
		"device_to_device_bidirectional_memcpy_read_ce_read2": "memcpy CE GPU(row) <-> GPU(column) Read2 bandwidth (GB/s) [one direction, measured while the reverse runs]",
		"device_to_device_memcpy_write_ce":                    "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)",
	} {
		if labels[op] != want {
			t.Errorf("%s label %q, want %q", op, labels[op], want)
		}
	}
	if !strings.HasPrefix(labels["device_to_device_bidirectional_memcpy_read_ce_total"], "memcpy CE GPU(row) <-> GPU(column) Total bandwidth (GB/s) [both directions added") {
		t.Errorf("total label %q", labels["device_to_device_bidirectional_memcpy_read_ce_total"])
	}
}
