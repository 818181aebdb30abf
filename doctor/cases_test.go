package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/flightrec"
	"github.com/commlab/commlab/probes"
)

// The cases below are the faults a user brings the doctor, each with the
// verdict it must give. Their evidence is real (the lab's recordings,
// public logs and kernel lines) or built from real evidence and says so
// (the 4-rank dumps are edits of the 2xH200 recording: flightrec's
// gen_h200_hangs.py).

const frData = "../parse/flightrec/testdata/"

func readEvidence(t *testing.T, f Files) *Evidence {
	t.Helper()
	ev, err := ReadFiles(f)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func verdictOf(t *testing.T, r *Report, check string) Verdict {
	t.Helper()
	return find(t, r.Verdicts, check)
}

func mustContain(t *testing.T, what, text string, words ...string) {
	t.Helper()
	for _, w := range words {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

func mustNotContain(t *testing.T, what, text string, words ...string) {
	t.Helper()
	for _, w := range words {
		if strings.Contains(text, w) {
			t.Errorf("%s says %q:\n%s", what, w, text)
		}
	}
}

// The pickle and the JSON dumps of the healthy 2xH200 run, as the
// recording's folder holds them (with probe-topo.json, logs, nvidia-smi
// text): one verdict, two ranks, the other files left out by name.
func TestFlightRecorderFolderOfMixedFiles(t *testing.T) {
	ev := readEvidence(t, Files{FlightRecorder: "../probes/testdata/h200/x2"})
	r := Diagnose(ev)
	v := verdictOf(t, r, "hang")
	if v.Status != OK {
		t.Errorf("hang: %v %s", v.Status, v.Summary)
	}
	mustContain(t, "hang evidence", strings.Join(v.Evidence, "\n"), "2 dumps, ranks 0,1", "completed every collective up to #11")
	var notes []string
	for _, in := range ev.Inputs {
		notes = append(notes, in.Source+": "+in.Note)
	}
	all := strings.Join(notes, "\n")
	mustContain(t, "inputs", all, "2 dumps, ranks 0,1", "probe-topo.json: left out: not a Flight Recorder dump", "flight-recorder-rank0.pickle: left out: a second dump of rank 0")
	// Only the pickles, pg_status lagging: the same verdict, and the
	// disagreement said.
	ev = readEvidence(t, Files{FlightRecorder: "../probes/testdata/h200/x2/*.pickle"})
	v = verdictOf(t, Diagnose(ev), "hang")
	if v.Status != OK {
		t.Errorf("pickles: %v %s", v.Status, v.Summary)
	}
	mustContain(t, "pickle evidence", strings.Join(v.Evidence, "\n"), "completed every collective up to #11", "pg_status says last completed #1, the entries #11: the entries are later")
}

func TestHangCases(t *testing.T) {
	cases := []struct {
		name    string
		files   Files
		env     map[string]string
		torch   string
		branch  string
		start   string // the summary's start
		want    []string
		wantNot []string
		evid    []string // in the evidence
		next    []string
	}{
		{name: "every rank started, none done", files: Files{FlightRecorder: frData + "h200x4_all_started"},
			branch: BranchHangSame, start: "every rank with a dump (ranks 0-3) started all_reduce #12",
			want: []string{"points at the network or a dead rank"}, wantNot: []string{"no rank behind", "stream is busy"},
			next: []string{"alive", "py-spy", "dmesg", "Xid", "ibstat", "counters", "NCCL WARN"}},
		{name: "timing off: the dump cannot tell", files: Files{FlightRecorder: frData + "h200x4_timing_off"},
			branch: BranchHangSame, start: "every rank with a dump (ranks 0-3) enqueued all_reduce #12",
			want:    []string{"cannot tell whether the GPUs started it", "points at the network or a dead rank"},
			wantNot: []string{"never started", "stream is busy", "no rank behind"},
			evid:    []string{"start events off"}},
		{name: "one rank left no dump", files: Files{FlightRecorder: frData + "h200x4_no_dump"},
			branch: BranchHangSame, start: "rank 3 left no dump: did it crash or get killed?",
			wantNot: []string{"stream is busy"}, next: []string{"alive", "py-spy", "dmesg"}},
		{name: "ranks at different places", files: Files{FlightRecorder: frData + "h200x4_apart"},
			branch: BranchHangDiffer, start: "rank 2 never called all_reduce #12",
			want: []string{"ranks 0,1,3 are waiting in all_reduce #12"}},
		{name: "pickles, JSON and a topology file in one folder", files: Files{FlightRecorder: frData + "h200x4_mixed"},
			branch: BranchHangSame, start: "every rank with a dump (ranks 0-3) enqueued all_reduce #12"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := readEvidence(t, c.files)
			if c.env != nil {
				ev.Env = c.env
			}
			ev.TorchVersion = c.torch
			r := Diagnose(ev)
			v := verdictOf(t, r, "hang")
			if v.Status != Fail || v.Branch != c.branch {
				t.Errorf("hang: %v on %q, want fail on %q: %s", v.Status, v.Branch, c.branch, v.Summary)
			}
			if !strings.HasPrefix(v.Summary, c.start) {
				t.Errorf("summary %q does not start %q", v.Summary, c.start)
			}
			mustContain(t, "summary", v.Summary, c.want...)
			mustNotContain(t, "summary", v.Summary, c.wantNot...)
			mustContain(t, "evidence", strings.Join(v.Evidence, "\n"), c.evid...)
			mustContain(t, "next", v.Next, c.next...)
			if r.ExitCode != 2 {
				t.Errorf("exit %d", r.ExitCode)
			}
		})
	}
}

// Timing read from the job's settings where the dumps do not show it: the
// dumps without pg_status, and PyTorch 2.11 whose default is timing off.
func TestHangTimingFromVersion(t *testing.T) {
	ev := readEvidence(t, Files{FlightRecorder: frData + "h200x4_timing_off"})
	for _, d := range ev.FlightRecorder {
		d.Status = nil
	}
	ev.TorchVersion = "2.11.0+cu130"
	v, _ := CheckHang(ev)
	mustContain(t, "evidence", strings.Join(v.Evidence, "\n"), "start events off (TORCH_NCCL_ENABLE_TIMING=0 (PyTorch 2.11.0's default")
	mustNotContain(t, "summary", v.Summary, "never started", "stream is busy")
	ev.TorchVersion = ""
	v, _ = CheckHang(ev)
	mustContain(t, "summary without a version", v.Summary, "start events are not known to be on")
}

// py-spy stacks and a kernel log beside the dumps: the rank without a
// dump had no process to read, and a GPU fell off the bus.
func TestHangWithStacksAndDmesg(t *testing.T) {
	dir := t.TempDir()
	exited, err := os.ReadFile("../parse/hanglab/testdata/pyspy/pyspy-0.4.3-exited.txt")
	if err != nil {
		t.Fatal(err)
	}
	alive, err := os.ReadFile("../parse/hanglab/testdata/pyspy/pyspy-0.4.3-dump.txt")
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 3; r++ {
		if err := os.WriteFile(filepath.Join(dir, "rank"+string(rune('0'+r))+".txt"), alive, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "rank3.txt"), exited, 0o644); err != nil {
		t.Fatal(err)
	}
	ev := readEvidence(t, Files{FlightRecorder: frData + "h200x4_no_dump", Stacks: dir,
		Dmesg: "../parse/dmesg/testdata/nvsentinel155_xid79.txt"})
	r := Diagnose(ev)
	hang := verdictOf(t, r, "hang")
	mustContain(t, "hang summary", hang.Summary, "rank 3 left no dump: did it crash or get killed?", "the kernel log names a cause: Xid 79")
	mustContain(t, "hang evidence", strings.Join(hang.Evidence, "\n"), "rank 3's process was gone when its stack was taken",
		"stack of ranks 0-2, py-spy: in all_reduce (stand-in-hang.py:5)")
	if p := verdictOf(t, r, "processes"); p.Status != Fail || !strings.Contains(p.Summary, "rank 3 had no process") {
		t.Errorf("processes: %v %s", p.Status, p.Summary)
	}
	if k := verdictOf(t, r, "kernel-log"); k.Status != Fail || !strings.Contains(k.Summary, "fell off the bus") {
		t.Errorf("kernel-log: %v %s", k.Status, k.Summary)
	}
	// The consequence without its cause only warns.
	ev = readEvidence(t, Files{Dmesg: "../parse/dmesg/testdata/ogkm1150_xid45_caused_by_previous.txt"})
	if k := CheckKernel(ev); k.Status != Warn || !strings.Contains(k.Summary, "follow from an earlier one") {
		t.Errorf("kernel-log, Xid 45 only: %v %s", k.Status, k.Summary)
	}
}

// PyTorch's defaults per version and launcher, and unknown where no
// evidence says.
func TestTorchDefaults(t *testing.T) {
	cases := []struct {
		name, setting string
		ev            Evidence
		value         string
		known         bool
		source        string
	}{
		{"2.11 dumps on timeout", "TORCH_NCCL_DUMP_ON_TIMEOUT", Evidence{TorchVersion: "2.11.0+cu130"}, "1", true, "PyTorch 2.11.0's default"},
		{"2.11 under plain python", "TORCH_NCCL_ASYNC_ERROR_HANDLING", Evidence{TorchVersion: "2.11.0"}, "3", true, "under torchrun it is 1"},
		{"2.11 under torchrun", "TORCH_NCCL_ASYNC_ERROR_HANDLING", Evidence{TorchVersion: "2.11.0", Launcher: "torchrun", LauncherWhy: "TORCHELASTIC_RUN_ID is set"}, "1", true, "torchrun sets it"},
		{"2.4 error handling", "TORCH_NCCL_ASYNC_ERROR_HANDLING", Evidence{TorchVersion: "2.4.1"}, "3", true, "pytorch/pytorch#110723"},
		{"2.6 dump on timeout: not read", "TORCH_NCCL_DUMP_ON_TIMEOUT", Evidence{TorchVersion: "2.6.0"}, "", false, "has not been read"},
		{"no version", "TORCH_NCCL_DUMP_ON_TIMEOUT", Evidence{}, "", false, "the PyTorch version is not in the evidence"},
		{"set beats the default", "TORCH_NCCL_DUMP_ON_TIMEOUT", Evidence{TorchVersion: "2.11.0", Env: map[string]string{"TORCH_NCCL_DUMP_ON_TIMEOUT": "0"}, EnvSource: "job.env"}, "0", true, "set in the job's environment (job.env)"},
		{"old name still read", "TORCH_FR_BUFFER_SIZE", Evidence{Env: map[string]string{"TORCH_NCCL_TRACE_BUFFER_SIZE": "0"}}, "0", true, "set in the job's environment"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.ev.TorchSetting(c.setting)
			if s.Value != c.value || s.Known != c.known || !strings.Contains(s.Source, c.source) {
				t.Errorf("%s", s)
			}
		})
	}
	// PyTorch's own log says what was in effect, whatever the version.
	ev := readEvidence(t, Files{NCCLLog: "../probes/recorded/data/torch-overlap-h200x1/cq-default.log"})
	for name, want := range map[string]string{"TORCH_NCCL_DUMP_ON_TIMEOUT": "1", "TORCH_NCCL_ASYNC_ERROR_HANDLING": "3", "TORCH_FR_BUFFER_SIZE": "2000", "TORCH_NCCL_ENABLE_TIMING": "0"} {
		if s := ev.TorchSetting(name); s.Value != want || !strings.Contains(s.Source, "printed by ProcessGroupNCCL") {
			t.Errorf("from the log: %s", s)
		}
	}
	r := Diagnose(ev)
	if v := verdictOf(t, r, "env-flight-recorder"); v.Status != OK || !strings.Contains(v.Summary, "a timeout leaves one Flight Recorder dump per rank") {
		t.Errorf("flight recorder from the log: %v %s", v.Status, v.Summary)
	}
	// No version, no log: said, not assumed.
	r = Diagnose(&Evidence{Env: map[string]string{"NCCL_DEBUG": "INFO"}, EnvSource: "job.env"})
	if v := verdictOf(t, r, "env-flight-recorder"); v.Status != Skipped || !strings.Contains(v.Summary, "not known") {
		t.Errorf("unknown version: %v %s", v.Status, v.Summary)
	}
}

func hgxNICs(t *testing.T) *probes.Topology {
	t.Helper()
	tp := hgx(t)
	for i := range tp.NICs {
		tp.NICs[i].Name = "mlx5_" + string(rune('0'+i))
	}
	return tp
}

func TestEnvLintCases(t *testing.T) {
	envFile := filepath.Join(t.TempDir(), "job.env")
	if err := os.WriteFile(envFile, []byte("export NCCL_IB_GID_INDX=3\nNCCL_DEBUG=INFO\nTORCH_NCCL_ENABLE_TIMNG=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ev := readEvidence(t, Files{Env: envFile, Torch: "2.11.0"})
	v := find(t, LintEnv(ev), "env-unknown")
	if v.Status != Warn {
		t.Errorf("env-unknown %v", v.Status)
	}
	mustContain(t, "env-unknown", v.Summary, "NCCL_IB_GID_INDX (did you mean NCCL_IB_GID_INDEX?)", "TORCH_NCCL_ENABLE_TIMNG (did you mean TORCH_NCCL_ENABLE_TIMING?)")
	// A name of a later NCCL than the one in use.
	ev = &Evidence{Env: map[string]string{"NCCL_NVLS_ENABLE": "0"}, NCCL: &probes.Run{NCCL: "2.12.12"}}
	v = find(t, LintEnv(ev), "env-unknown")
	mustContain(t, "env-unknown, NCCL 2.12", v.Summary, "NCCL_NVLS_ENABLE (not in NCCL 2.12.12)")
	mustContain(t, "env-unknown, NCCL 2.12", strings.Join(v.Evidence, "\n"), "NCCL 2.17.1 to 2.30.7 do")

	hca := []struct {
		value  string
		status Status
		words  []string
	}{
		{"mlx5_0", Warn, []string{"selects 1 of the node's 8 RDMA port(s) (mlx5_0:1)", "mlx5_1:1, mlx5_2:1"}},
		{"=mlx5_0:1,mlx5_1:1", Warn, []string{"selects 2 of the node's 8"}},
		{"^mlx5_0", Warn, []string{"selects 7 of the node's 8"}},
		{"mlx5", OK, []string{"selects all 8 RDMA port(s)"}},
		{"mlx4_0", Fail, []string{"selects none of the 8 RDMA port(s)", "falls back to TCP sockets"}},
		{"mlx5_0:2", Fail, []string{"selects none"}},
	}
	for _, c := range hca {
		t.Run("NCCL_IB_HCA="+c.value, func(t *testing.T) {
			ev := &Evidence{Topology: hgxNICs(t), Env: map[string]string{"NCCL_IB_HCA": c.value}}
			v := find(t, LintEnv(ev), "env-nics")
			if v.Status != c.status {
				t.Errorf("%v, want %v: %s", v.Status, c.status, v.Summary)
			}
			mustContain(t, "env-nics", v.Summary, c.words...)
		})
	}
	// Sixteen NICs: mlx5_1 is a prefix of mlx5_10 to mlx5_15.
	tp := hgxNICs(t)
	for i := 8; i < 16; i++ {
		n := tp.NICs[0]
		n.Index, n.Name = i, "mlx5_1"+string(rune('0'+i-10))
		if i < 10 {
			n.Name = "mlx5_" + string(rune('0'+i))
		}
		tp.NICs = append(tp.NICs, n)
	}
	v = find(t, LintEnv(&Evidence{Topology: tp, Env: map[string]string{"NCCL_IB_HCA": "mlx5_1"}}), "env-nics")
	mustContain(t, "prefix", strings.Join(v.Evidence, "\n"), "without '=' mlx5_1 is a prefix: it also selects mlx5_10, mlx5_11, mlx5_12, mlx5_13, mlx5_14, mlx5_15")
}

// NCCL's WARN lines of a failed init (public logs): a failure with its
// cause and exit 2, never "no check found a fault".
func TestNCCLFailedInit(t *testing.T) {
	cases := []struct {
		log   string
		words []string
	}{
		{"nccl290_shm_fallocate.log", []string{"shared memory (/dev/shm)", "posix_fallocate"}},
		{"ciinfra490_shm_extend.log", []string{"shared memory (/dev/shm)", "failed to extend /dev/shm"}},
		{"horovod785_ipc_handle.log", []string{"CUDA IPC", "failed to open CUDA IPC handle"}},
	}
	for _, c := range cases {
		t.Run(c.log, func(t *testing.T) {
			ev := readEvidence(t, Files{NCCLLog: "testdata/logs/" + c.log})
			r := Diagnose(ev)
			v := verdictOf(t, r, "nccl-warnings")
			if v.Status != Fail {
				t.Errorf("%v: %s", v.Status, v.Summary)
			}
			mustContain(t, "nccl-warnings", v.Summary, c.words...)
			if r.ExitCode != 2 {
				t.Errorf("exit %d", r.ExitCode)
			}
			mustNotContain(t, "where is the gap", r.Answers[6].Answer, "no check found a fault")
		})
	}
	// A WARN that is not a failure (libibverbs missing) warns.
	lg := loadLog(t, "ncclt82_warn_version_excerpt.log")
	if v := checkNCCLWarnings(lg); v.Status != Warn || !strings.Contains(v.Summary, "libibverbs") {
		t.Errorf("libibverbs: %v %s", v.Status, v.Summary)
	}
}

// GPUDirect RDMA is judged only where the network carries traffic, and
// NCCL's GDRDMA transports count as evidence of it.
func TestGDRWhereTheNetworkCarriesTraffic(t *testing.T) {
	tp := hgxNICs(t)
	tp.GPUDirect = probes.GPUDirect{PeerMem: false, NvidiaVersion: "535.104.05", DMABuf: "no: kernel 5.4.0-150-generic is older than 5.12"}
	one := loadLog(t, "nccl671_4gpu_p2p_direct_excerpt.log") // one node, P2P only
	for _, v := range CheckNIC(tp, nil, one, 1) {
		if v.Status == Fail {
			t.Errorf("one node: %s fails: %s", v.Check, v.Summary)
		}
	}
	if v := find(t, CheckNIC(tp, nil, one, 1), "gdr"); v.Status != Warn || !strings.Contains(v.Summary, "once the job spans nodes") {
		t.Errorf("one node gdr: %v %s", v.Status, v.Summary)
	}
	if v := find(t, CheckNIC(tp, nil, one, 2), "gdr"); v.Status != Fail {
		t.Errorf("two nodes gdr: %v %s", v.Status, v.Summary)
	}
	// A log whose transports say GDRDMA, no NIC list: GDR in use.
	two := loadLog(t, "ncclt252_2node_ibext_transports_excerpt.log")
	if v := find(t, CheckNIC(nil, nil, two, 2), "gdr"); v.Status != OK || !strings.Contains(v.Summary, "GPUDirect RDMA in use") {
		t.Errorf("GDRDMA in the log: %v %s", v.Status, v.Summary)
	}
}

// Inputs that do not read give a named problem and the rest still reads.
func TestBadInputNamed(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	frDir := filepath.Join(dir, "fr")
	if err := os.MkdirAll(frDir, 0o755); err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile(frData + "missing_rank/nccl_trace_rank_0")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(frDir, "nccl_trace_rank_0"), full[:len(full)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(frDir, "nccl_trace_rank_1"), []byte{0x80, 0x02, 0x7d}, 0o644); err != nil {
		t.Fatal(err)
	}
	f := Files{
		Topo:           write("topo.txt", "this is not a matrix\n"),
		NCCLLog:        write("nccl.log", "no nccl here\n"),
		Env:            write("env.txt", "nothing\n"),
		NCCLTests:      write("nt.txt", "# nothing\n"),
		Dmesg:          write("dmesg.bin", "a\x00b"),
		FlightRecorder: frDir,
	}
	ev := readEvidence(t, f)
	r := Diagnose(ev)
	v := verdictOf(t, r, "evidence")
	if v.Status != Warn {
		t.Errorf("evidence: %v %s", v.Status, v.Summary)
	}
	mustContain(t, "evidence", strings.Join(v.Evidence, "\n"), "topology "+f.Topo, "nccl log "+f.NCCLLog+": no NCCL line", "environment "+f.Env+": no NAME=VALUE line",
		"nccl-tests "+f.NCCLTests+": no nccl-tests row", "kernel log "+f.Dmesg, "flight recorder "+frDir+": read in part", "unreadable dump")
	if _, err := ReadFiles(Files{Topo: filepath.Join(dir, "nope.txt")}); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing file: %v", err)
	}
	_ = flightrec.ErrTruncated
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			return err
		}
		err = u.Unwrap()
	}
}

// NCCL's own defaults per release: NCCL_CUMEM_ENABLE=0 masks cuMem from
// 2.19 on, and is the default before.
func TestMaskingPerNCCLRelease(t *testing.T) {
	for ver, want := range map[string]Status{"2.18.6": OK, "2.19.3": Warn, "2.28.9": Warn} {
		ev := &Evidence{Env: map[string]string{"NCCL_CUMEM_ENABLE": "0"}, NCCL: &probes.Run{NCCL: ver}}
		if v := find(t, LintEnv(ev), "env-masking"); v.Status != want {
			t.Errorf("NCCL %s: %v %s %v", ver, v.Status, v.Summary, v.Evidence)
		}
	}
}
