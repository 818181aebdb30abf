package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDoctorRecorded(t *testing.T) {
	var out, errb bytes.Buffer
	if code := dispatch([]string{"doctor", "--recorded", "h200x2", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r struct {
		Tool     string `json:"tool"`
		ExitCode int    `json:"exit_code"`
		Answers  []any  `json:"answers"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.Tool != "commlab doctor" || len(r.Answers) != 8 {
		t.Fatalf("JSON report: %v %+v", err, r)
	}
}

func TestDoctorFilesSocketFallback(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := dispatch([]string{"doctor",
		"--topo", "probes/published/recorded/hgx-8gpu-8nic-topo-m.txt",
		"--nccl-log", "parse/nccllog/testdata/nccl398_2node_p2p_ipc_socket_excerpt.log",
		"--fr", "parse/flightrec/testdata/missing_rank",
		"--out", dir}, &out, &errb)
	if code != 2 {
		t.Fatalf("exit %d, want 2 (failures): %s\n%s", code, errb.String(), out.String())
	}
	for _, want := range []string{"[FAIL] nccl-network", "Socket fallback", "[FAIL] hang", "rank 3 never called all_reduce #3001"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text report lacks %q", want)
		}
	}
	for _, f := range []string{"report.html", "report.json", "report.txt", "topology.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	// The saved report is a baseline for the next run.
	out.Reset()
	errb.Reset()
	code = dispatch([]string{"doctor", "--recorded", "h200x2", "--baseline", filepath.Join(dir, "report.json")}, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "exit status 0") {
		t.Errorf("with baseline: exit %d: %s", code, errb.String())
	}
}

func TestDoctorBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"doctor", "--nccl-log", "no/such/file.log"},
		{"doctor", "--recorded", "no-such-machine"},
		{"doctor", "--recorded", "h200x2", "--baseline", "probes/recorded/data/latency-h200x1.json"},
		{"doctor", "--launcher", "pdsh", "--out", "/tmp/x"},
		{"doctor", "stray"},
	} {
		var out, errb bytes.Buffer
		if code := dispatch(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errb.String())
		}
	}
}

func TestDoctorLauncher(t *testing.T) {
	hostfile := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(hostfile, []byte("gpu-a slots=4\ngpu-b slots=4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := dispatch([]string{"doctor", "--launcher", "mpirun", "--hostfile", hostfile, "--num-nodes", "2", "--per-node", "4", "--out", "/shared/d"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "mpirun --hostfile "+hostfile+" -np 8 --map-by ppr:4:node -x NCCL_DEBUG=INFO") ||
		!strings.Contains(out.String(), "doctor --node-dir /shared/d/nodes") ||
		!strings.Contains(out.String(), "doctor --nodes /shared/d/nodes --nccl-log '/shared/d/nccl.*.log' --out /shared/d/report --nccl-tests /shared/d/nccl-tests.txt") {
		t.Errorf("plan:\n%s", out.String())
	}
	// --nodes N with --launcher is the node count (not a directory).
	for _, args := range [][]string{
		{"doctor", "--launcher", "srun", "--nodes", "4", "--out", "/shared/d"},
		{"doctor", "--launcher", "srun", "--num-nodes", "4", "--gpus-per-node", "8", "--out", "/shared/d"},
	} {
		out.Reset()
		if code := dispatch(args, &out, &errb); code != 0 || !strings.Contains(out.String(), "srun -N 4 --ntasks-per-node=8 env") || strings.Contains(out.String(), "srun -N 2") {
			t.Errorf("%v: exit %d\n%s", args, code, out.String())
		}
	}
	for _, args := range [][]string{
		{"doctor", "--launcher", "srun", "--nodes", "four", "--out", "/x"},
		{"doctor", "--launcher", "srun", "--nodes", "4", "--num-nodes", "3", "--out", "/x"},
		{"doctor", "--launcher", "srun", "--nodes", "3", "--hosts", "a,b", "--out", "/x"},
	} {
		if code := dispatch(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// Three pairs with the same recorded nccl-tests output: the reader places
// each pair's time on its nodes and finds none slow.
func TestDoctorPairs(t *testing.T) {
	data, err := os.ReadFile("parse/nccltests/testdata/allreduce_h100_2node_a3mega.txt")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, p := range []string{"a+b", "a+c", "b+c"} {
		if err := os.WriteFile(filepath.Join(dir, p+".txt"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	code := dispatch([]string{"doctor", "--pairs", dir}, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "[ok  ] slow-rank              3 ranks") {
		t.Errorf("exit %d: %s\n%s", code, errb.String(), out.String())
	}
	out.Reset()
	code = dispatch([]string{"doctor", "--launcher", "srun", "--pairwise", "--hosts", "a,b,c", "--num-nodes", "3", "--per-node", "8", "--out", "/shared/d"}, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "srun -N 2 -w a,c --ntasks-per-node=8 all_reduce_perf") {
		t.Errorf("pairwise plan: exit %d\n%s", code, out.String())
	}
}

// --rdma reads show_gids (or ibv_devinfo, ibstat, rdma link) output into
// the RoCE GID check.
func TestDoctorRDMAFlag(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch([]string{"doctor", "--rdma", "parse/rdmatools/testdata/showgids_cx6_spectrumscale_pr4.txt"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, want 0: %s\n%s", code, errb.String(), out.String())
	}
	for _, want := range []string{"rdma tool output: parse/rdmatools/testdata/showgids_cx6_spectrumscale_pr4.txt (show_gids: ", "[ok  ] roce-gid"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// --counters reads port counters read twice into the port-counters check:
// the link that went down during the window fails it.
func TestDoctorCountersFlag(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch([]string{"doctor", "--counters", "parse/netcounters/testdata/sysfs_counters_two_reads.txt"}, &out, &errb)
	if code != 2 {
		t.Fatalf("exit %d, want 2 (a failure): %s\n%s", code, errb.String(), out.String())
	}
	for _, want := range []string{"port counters: parse/netcounters/testdata/sysfs_counters_two_reads.txt (2 port reading(s))", "[FAIL] port-counters", "link_downed +1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
