package c10dlab

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/probes/measure"
	"github.com/commlab/commlab/probes/recorded"
)

func readFixture(t *testing.T, name string) *Result {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := Read(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// Each fixture (real outputs of c10d_lab.py on gloo ranks) reads into the
// summary its golden file holds.
func TestGolden(t *testing.T) {
	for _, file := range golden.Inputs(t, 2, "testdata/*.json") {
		res := readFixture(t, filepath.Base(file))
		var b bytes.Buffer
		if err := res.WriteSummary(&b); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, golden.ReplaceExt(file), b.Bytes())
	}
}

// What the gloo fixtures show, read through the API the chapter uses.
func TestGlooFacts(t *testing.T) {
	a := readFixture(t, "gloo-store-coalesce.json")
	if a.Backend != "gloo" || a.Run.Kind != Kind || a.Run.GPUCount != 0 || !strings.Contains(a.Run.Provenance(), "CPU only") {
		t.Errorf("run %+v, provenance %q", a.Run, a.Run.Provenance())
	}
	if a.Store == nil || len(a.Store.Ranks) != 2 {
		t.Fatalf("store %+v", a.Store)
	}
	for _, rk := range a.Store.Ranks {
		sets := 0
		for _, op := range rk.Ops {
			if op.Op == "set" {
				sets++
				if op.Bytes != 170 {
					t.Errorf("rank %d set %d bytes, want gloo's 170-byte address", rk.Rank, op.Bytes)
				}
			}
		}
		if sets != 1 {
			t.Errorf("rank %d made %d sets, want 1", rk.Rank, sets)
		}
	}
	if r := a.Coalesce.Row("coalescing_manager", 1, 4096); r == nil || !strings.Contains(r.Error, "startCoalescing") {
		t.Errorf("gloo's coalescing manager: %+v", r)
	}
	if r := a.Coalesce.Row("separate", 8, 4096); r == nil || r.TotalUS <= 0 || r.Error != "" {
		t.Errorf("separate row %+v", r)
	}
	if a.Coalesce.Row("separate", 9, 4096) != nil {
		t.Error("a row nobody measured was found")
	}
	if got := a.Coalesce.Counts(); len(got) != 2 || got[0] != 1 || got[1] != 8 {
		t.Errorf("counts %v", got)
	}
	if len(a.Run.Samples) == 0 || a.Run.Samples[0].Op != "coalesce:separate" {
		t.Errorf("samples %+v", a.Run.Samples)
	}

	b := readFixture(t, "gloo-timeout-compile.json")
	for _, mode := range []string{"unset", "1", "3"} {
		run := b.Timeout.Run(mode)
		if run == nil {
			t.Fatalf("no run for mode %s", mode)
		}
		r0 := run.Ranks[0]
		m, ok := r0.Reached("wait() raised")
		if !ok || !strings.Contains(m.Error, "Timed out waiting 5000ms") || m.TS < b.Timeout.TimeoutS {
			t.Errorf("mode %s: rank 0 %+v", mode, r0.Marks)
		}
		if r0.Exit.String() != "exit 0" || len(run.FRDumps) != 0 {
			t.Errorf("mode %s: %s, %d dumps; gloo has no watchdog to take the process down or dump", mode, r0.Exit, len(run.FRDumps))
		}
		if r0.Last().What != "destroy_process_group returned" {
			t.Errorf("mode %s: last mark %q", mode, r0.Last().What)
		}
	}
	if b.Timeout.Run("2") != nil {
		t.Error("mode 2 was not run on gloo")
	}
	c := b.Compile
	want := []string{"_c10d_functional.all_reduce", "_c10d_functional.wait_tensor", "mm"}
	if strings.Join(c.DynamoOps, ",") != strings.Join(want, ",") || c.EagerResultType != "AsyncCollectiveTensor" || !c.CompiledMatchesEager {
		t.Errorf("compile %+v", c)
	}
}

func TestExitString(t *testing.T) {
	zero, one := 0, 1
	for _, tc := range []struct {
		e    Exit
		want string
	}{
		{Exit{Code: &zero}, "exit 0"},
		{Exit{Code: &one}, "exit 1"},
		{Exit{Signal: "SIGABRT"}, "killed by SIGABRT"},
		{Exit{KilledAtDeadline: true}, "killed at the deadline"},
		{Exit{}, "unknown"},
	} {
		if got := tc.e.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
}

// Bad input is an error that says what was wrong; what did parse is kept.
func TestReadBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		kept           bool
	}{
		{"not json", "hello", "c10dlab: invalid character", false},
		{"empty", "", "c10dlab: EOF", false},
		{"other kind", `{"kind": "torch-overlap"}`, "not a c10d-lab summary", false},
		{"bad part", `{"kind": "c10d-lab", "parts": {"store": {"world": "two"}, "timeout": {"world": 2, "runs": []}}}`, "part store", true},
		{"unknown part", `{"kind": "c10d-lab", "parts": {"magic": {}, "timeout": {"world": 2}}}`, `unknown part "magic"`, true},
	} {
		res, err := Read(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
		if tc.kept && (res == nil || res.Timeout == nil) {
			t.Errorf("%s: the good part was lost: %+v", tc.name, res)
		}
	}
}

func TestConfigArgs(t *testing.T) {
	if args, err := (Config{}).args(); err != nil || strings.Join(args, " ") != "--backend gloo" {
		t.Errorf("default: %q, %v", args, err)
	}
	if args, err := (Config{Backend: "nccl", Parts: []string{"store", "timeout"}, Args: []string{"--timeout", "3"}}).args(); err != nil ||
		strings.Join(args, " ") != "--backend nccl --parts store,timeout --timeout 3" {
		t.Errorf("nccl: %q, %v", args, err)
	}
	if _, err := (Config{Backend: "mpi"}).args(); err == nil {
		t.Error("backend mpi accepted")
	}
	if _, err := (Config{Parts: []string{"store", "magic"}}).args(); err == nil || !strings.Contains(err.Error(), "magic") {
		t.Errorf("unknown part: %v", err)
	}
}

func TestRecorded(t *testing.T) {
	if _, err := Recorded("torch-c10d-nowhere"); !errors.Is(err, recorded.ErrNotFound) {
		t.Errorf("a name not recorded: %v, want recorded.ErrNotFound", err)
	}
	res, err := Recorded(RecordedCPU)
	if err != nil {
		t.Fatal(err)
	}
	if res.Store == nil || res.Coalesce == nil || res.Timeout == nil || res.Compile == nil {
		t.Errorf("the CPU recording lacks a part: %+v", res)
	}
	m, err := Measure(context.Background(), measure.ModeRecorded, Config{}, RecordedCPU)
	if err != nil || m.Live || !strings.Contains(m.Banner(), "recorded on CPU only") {
		t.Errorf("recorded measurement: %v, %q", err, m.Banner())
	}
}

// Where python3 has PyTorch, the store part runs live on two gloo ranks.
func TestLiveStore(t *testing.T) {
	ctx := context.Background()
	if err := launch.TorchAvailable(ctx); err != nil {
		if os.Getenv("COMMLAB_REQUIRE_TORCH") != "" {
			t.Fatalf("%v (make hang-cpu installs torch in a venv)", err)
		}
		t.Skipf("no live run here: %v", err)
	}
	res, err := Run(ctx, Config{Backend: "gloo", Parts: []string{"store"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Store == nil || len(res.Store.Ranks) != 2 || res.Timeout != nil {
		t.Fatalf("live store %+v", res)
	}
	for _, rk := range res.Store.Ranks {
		if len(rk.Ops) < 4 {
			t.Errorf("rank %d: %d store calls", rk.Rank, len(rk.Ops))
		}
	}
}

func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"kind": "c10d-lab", "parts": {"timeout": {"runs": [{"mode": "1", "ranks": [{"exit": {"code": null}}]}]}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := Read(bytes.NewReader(b))
		if err != nil && res == nil {
			return
		}
		var out bytes.Buffer
		if werr := res.WriteSummary(&out); werr != nil {
			t.Fatal(werr)
		}
	})
}

// A constructed NCCL timeout (not a recording): the watchdog took rank 0
// down with SIGABRT after it dumped. The reader keeps the signal, the
// marks reached before it and the dump.
func TestTimeoutAbortShape(t *testing.T) {
	in := `{"kind": "c10d-lab", "settings": {"backend": "nccl", "world": "1"},
	 "versions": {"gpu_model": "NVIDIA H200", "gpu_count": 1, "torch": "2.11.0+cu130", "cuda": "13.0", "nccl_version": "2.28.9"},
	 "parts": {"timeout": {"world": 1, "timeout_s": 5, "stall_s": 10, "runs": [
	  {"mode": "1", "seconds": 9.5, "fr_dumps": [{"file": "rank-0", "bytes": 4096}],
	   "ranks": [{"rank": 0, "exit": {"code": null, "signal": "SIGABRT", "killed_at_deadline": false},
	     "marks": [{"t_s": 0, "what": "start"}, {"t_s": 1.2, "what": "collective issued (async_op=True)"}, {"t_s": 1.3, "what": "wait() returned"}, {"t_s": 1.4, "what": "work not completed"}],
	     "log": ["[PG ID 0 PG GUID 0 Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE) ran for 5000 milliseconds before timing out."]}]}]}}}`
	res, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if res.Run.GPUModel != "NVIDIA H200" || res.Run.NCCL != "2.28.9" || res.Run.GPUCount != 1 {
		t.Errorf("run %+v", res.Run)
	}
	r0 := res.Timeout.Run("1").Ranks[0]
	if r0.Exit.String() != "killed by SIGABRT" || r0.Last().What != "work not completed" || len(res.Timeout.Run("1").FRDumps) != 1 {
		t.Errorf("rank 0 %+v", r0)
	}
	if _, ok := r0.Reached("wait() raised"); ok {
		t.Error("a mark nobody reached was found")
	}
	if !strings.Contains(r0.LogWith("Watchdog caught"), "5000 milliseconds") {
		t.Errorf("log %q", r0.Log)
	}
	var b bytes.Buffer
	if err := res.WriteSummary(&b); err != nil || !strings.Contains(b.String(), "killed by SIGABRT") {
		t.Errorf("summary %q, %v", b.String(), err)
	}
}

func TestUnderCollective(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  []string
		want string
	}{
		// PyTorch 2.11 on one H200, default and with the flag alone: the wait follows the collective.
		{"wait at once", []string{"extern_kernels.mm", "triton_red_fused_sum_0", "triton_poi_fused_all_reduce_2", "_c10d_functional.all_reduce_", "_c10d_functional.wait_tensor", "triton_poi_fused_add_mul_3"}, ""},
		{"mm under the collective", []string{"triton_poi_fused_all_reduce_2", "_c10d_functional.all_reduce_", "extern_kernels.mm", "triton_red_fused_sum_0", "_c10d_functional.wait_tensor", "triton_poi_fused_add_mul_3"}, "extern_kernels.mm,triton_red_fused_sum_0"},
		// Dynamo's graph names the functional op without the trailing underscore.
		{"functional op", []string{"_c10d_functional.all_reduce", "mm", "_c10d_functional.wait_tensor"}, "mm"},
		{"no wait", []string{"_c10d_functional.all_reduce_", "extern_kernels.mm"}, ""},
		{"no collective", []string{"extern_kernels.mm", "_c10d_functional.wait_tensor"}, ""},
	} {
		if got := strings.Join(InductorCode{Ops: tc.ops}.UnderCollective(), ","); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestLogSeconds(t *testing.T) {
	r := TimeoutRank{Log: []string{
		"[I1202 06:55:00.979491354 ProcessGroupNCCL.cpp:1725] HeartbeatMonitor environments: ...",
		"[rank0]:[E1202 06:55:05.390192474 ProcessGroupNCCL.cpp:689] [Rank 0] Watchdog caught collective operation timeout: ...",
		"[rank0]:[E1202 06:56:10.254997355 ProcessGroupNCCL.cpp:750] [Rank 0] Some NCCL operations have failed or timed out.",
		"#2 rank_timeout from c10d_lab.py:415",
	}}
	caught, ok1 := r.LogSeconds("Watchdog caught")
	failed, ok2 := r.LogSeconds("Some NCCL operations")
	if !ok1 || !ok2 || math.Abs(caught-(6*3600+55*60+5.390192474)) > 1e-6 || math.Abs(failed-caught-64.864804881) > 1e-6 {
		t.Errorf("caught %v (%v), failed %v (%v)", caught, ok1, failed, ok2)
	}
	if _, ok := r.LogSeconds("rank_timeout"); ok {
		t.Error("a line without a log prefix has no time")
	}
	if _, ok := r.LogSeconds("not logged"); ok {
		t.Error("a line not kept has no time")
	}
}

func TestParseEndings(t *testing.T) {
	log := `[c10d_lab] part timeout
[c10d_lab] timeout unset exits [{'code': None, 'signal': 'SIGABRT', 'killed_at_deadline': False}] dumps 1
[c10d_lab] timeout 0 exits [{'killed_at_deadline': True, 'code': None, 'signal': None}] dumps 1
[c10d_lab] timeout 1 exits [{'code': 0, 'signal': None, 'killed_at_deadline': False}, {'code': 1, 'signal': None, 'killed_at_deadline': False}] dumps 2
`
	got, err := ParseEndings(log)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		mode  string
		exits []string
		dumps int
	}{
		{"unset", []string{"killed by SIGABRT"}, 1},
		{"0", []string{"killed at the deadline"}, 1},
		{"1", []string{"exit 0", "exit 1"}, 2},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d endings, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		var exits []string
		for _, e := range got[i].Exits {
			exits = append(exits, e.String())
		}
		if got[i].Mode != w.mode || strings.Join(exits, ";") != strings.Join(w.exits, ";") || got[i].Dumps != w.dumps {
			t.Errorf("ending %d: %s %v %d, want %s %v %d", i, got[i].Mode, exits, got[i].Dumps, w.mode, w.exits, w.dumps)
		}
	}
}

func TestFirstRunEndings(t *testing.T) {
	got, err := FirstRunEndings()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[1].Mode != "0" || !got[1].Exits[0].KilledAtDeadline {
		t.Errorf("the recorded first run: %+v", got)
	}
}
