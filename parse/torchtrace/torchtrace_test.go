package torchtrace

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/parse"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// The hand-written step: a one-rank all_gather's device copy on stream 20
// (10..50 us), GEMMs on stream 7 (15..35, 52..60), an NCCL kernel with no
// launch in the trace (70..75).
func TestParseClassifies(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"plain", readFixture(t, "handmade-step.json")},
		{"gzipped", gz(readFixture(t, "handmade-step.json"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Parse(bytes.NewReader(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Activities) != 4 || tr.Unclassified != 1 {
				t.Fatalf("activities %d, unclassified %d; want 4, 1", len(tr.Activities), tr.Unclassified)
			}
			want := []struct {
				kind, role, by, op, launch string
				start, end                 float64
			}{
				{Memcpy, Comm, ByOp, "c10d::_allgather_base_", "cudaMemcpyAsync", 10, 50},
				{Kernel, Compute, ByOp, "aten::mm", "cudaLaunchKernel", 15, 35},
				{Kernel, Compute, ByOp, "aten::mm", "cuLaunchKernelEx", 52, 60},
				{Kernel, Comm, ByName, "", "", 70, 75},
			}
			for i, w := range want {
				a := tr.Activities[i]
				if a.Kind != w.kind || a.Role != w.role || a.By != w.by || a.Op != w.op || a.Launch != w.launch ||
					!near(a.StartUS, w.start) || !near(a.EndUS, w.end) {
					t.Errorf("activity %d = %+v, want %+v", i, a, w)
				}
			}
			if tr.Activities[0].Bytes != 1<<30 || tr.Activities[0].Stream != 20 || tr.Devices[0] != "NVIDIA H200" {
				t.Errorf("copy %+v, devices %v", tr.Activities[0], tr.Devices)
			}
		})
	}
}

func TestAnalyzeWithinStep(t *testing.T) {
	tr, err := Parse(bytes.NewReader(readFixture(t, "handmade-step.json")))
	if err != nil {
		t.Fatal(err)
	}
	an, err := tr.Analyze(Options{Within: "bench:step", Device: -1})
	if err != nil {
		t.Fatal(err)
	}
	// Window 10..60: comm 40, compute 28, comm under compute 20+0 = 20 (15..35
	// inside 10..50), alone 20; busy 10..50 and 52..60 = 48; gap 50..52.
	checks := []struct {
		name      string
		got, want float64
	}{
		{"span", an.SpanUS, 50}, {"busy", an.BusyUS, 48}, {"idle", an.IdleUS, 2},
		{"comm", an.CommUS, 40}, {"compute", an.ComputeUS, 28},
		{"under", an.CommUnderComputeUS, 20}, {"alone", an.CommAloneUS, 20},
		{"overlap", an.OverlapFraction, 0.5}, {"gaps", float64(an.GapCount), 1}, {"gap us", an.GapUS, 2},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if len(an.Streams) != 2 || an.Streams[0].Stream != 7 || an.Streams[0].Role != Compute || an.Streams[1].Role != Comm {
		t.Errorf("streams %+v", an.Streams)
	}
	if len(an.CommOps) != 1 || an.CommOps[0] != "c10d::_allgather_base_" {
		t.Errorf("comm ops %v", an.CommOps)
	}
}

func TestAnalyzeWholeTrace(t *testing.T) {
	tr, _ := Parse(bytes.NewReader(readFixture(t, "handmade-step.json")))
	an, err := tr.Analyze(Options{Device: -1})
	if err != nil {
		t.Fatal(err)
	}
	// 10..75: comm 40 + 5 (the NCCL kernel, by name), under compute 20.
	if !near(an.SpanUS, 65) || !near(an.CommUS, 45) || !near(an.OverlapFraction, 20.0/45) || an.GapCount != 2 {
		t.Errorf("whole trace: %+v", an)
	}
	if an.Gaps[0].StartUS != 60 || an.Gaps[0].EndUS != 70 {
		t.Errorf("longest gap %+v, want 60..70", an.Gaps[0])
	}
}

func TestAnalyzeErrors(t *testing.T) {
	tr, _ := Parse(bytes.NewReader(readFixture(t, "handmade-step.json")))
	if _, err := tr.Analyze(Options{Within: "no such range", Device: -1}); err == nil {
		t.Error("no error for a missing range")
	}
	if _, err := tr.Analyze(Options{Device: 3}); err == nil {
		t.Error("no error for a device with no activity")
	}
}

func TestCoreQuestionHelpers(t *testing.T) {
	tr, _ := Parse(bytes.NewReader(readFixture(t, "handmade-step.json")))
	steps := tr.Ranges("bench:step")
	if len(steps) != 1 || steps[0].DurUS() != 100 {
		t.Fatalf("ranges %+v", steps)
	}
	ag := tr.Ranges("c10d::_allgather_base_")
	got := tr.LaunchedIn(ag[0])
	if len(got) != 1 || got[0].Kind != Memcpy {
		t.Errorf("launched in the all_gather: %+v", got)
	}
	if len(tr.LaunchedIn(steps[0])) != 3 {
		t.Errorf("launched in the step: %d, want 3", len(tr.LaunchedIn(steps[0])))
	}
	if c := tr.Calls("cudaMemcpyAsync"); len(c) != 1 || c[0].Correlation != 11 {
		t.Errorf("calls %+v", c)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     error
	}{
		{"text", "NCCL INFO hello\n", parse.ErrFormat},
		{"empty", "", parse.ErrFormat},
		{"object without events", `{"schemaVersion": 1}`, parse.ErrFormat},
		{"cut off", `{"traceEvents": [{"ph": "X", "cat": "kernel"`, ErrMalformed},
		{"bad gzip", "\x1f\x8b\x08\x00garbage", ErrMalformed},
		{"bad ts", `{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": "x", "dur": 1}]}`, ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Parse(strings.NewReader(tc.in))
			if tr == nil {
				t.Fatal("nil trace")
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			var pe *parse.Error
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "torchtrace: ") {
				t.Errorf("error %q is not a torchtrace *parse.Error", err)
			}
		})
	}
}

// A bare array of events (Chrome's other trace form) and the older Kineto
// categories (Kernel, Runtime, Operator) read the same.
func TestOldSpellingAndArray(t *testing.T) {
	in := `[
 {"ph":"X","cat":"Operator","name":"nccl:all_reduce","pid":1,"tid":2,"ts":100,"dur":10},
 {"ph":"X","cat":"Runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":101,"dur":1,"args":{"correlation":5}},
 {"ph":"X","cat":"Kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float","pid":0,"tid":"stream 13","ts":120,"dur":30,"args":{"device":0,"stream":13,"correlation":5}}
]`
	tr, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	a := tr.Activities[0]
	if a.Role != Comm || a.By != ByOp || a.Op != "nccl:all_reduce" || a.Stream != 13 || !near(a.StartUS, 20) {
		t.Errorf("activity %+v", a)
	}
}

// Timestamps of 1e12 us and more keep their nanoseconds.
func TestNanosPrecision(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want int64
		ok   bool
	}{
		{json.Number("1701112345678.123"), 1701112345678123, true},
		{json.Number("12.5"), 12500, true},
		{json.Number("7"), 7000, true},
		{json.Number("1.5e3"), 1500000, true},
		{"3.25", 3250, true},
		{json.Number("1.2.3"), 0, false},
		{json.Number("12.-5"), 0, false},
		{true, 0, false},
	} {
		got, ok := nanos(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("nanos(%v) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestIsCommOp(t *testing.T) {
	for name, want := range map[string]bool{
		"nccl:all_reduce": true, "c10d::allreduce_": true, "_c10d_functional::all_reduce": true,
		"record_param_comms": true, "gloo:all_reduce": true, "aten::mm": false, "cq:call": false,
	} {
		if IsCommOp(name) != want {
			t.Errorf("IsCommOp(%q) = %v", name, !want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(readFixture(f, "handmade-step.json"))
	f.Add(gz(readFixture(f, "handmade-step.json")))
	recorded, _ := filepath.Glob("testdata/h200/*.json.gz")
	for _, p := range recorded {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b) // the small ones: the fuzzer mutates every seed
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse(bytes.NewReader(data))
		if tr == nil {
			t.Fatalf("nil trace (err %v)", err)
		}
		if err != nil {
			var pe *parse.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *parse.Error: %v", err, err)
			}
		}
		r, _ := tr.Report(Options{Device: -1})
		if _, merr := json.Marshal(r); merr != nil {
			t.Fatalf("report does not marshal: %v", merr)
		}
		if r.Analysis != nil {
			an := r.Analysis
			if an.OverlapFraction < 0 || an.OverlapFraction > 1+1e-9 || an.CommAloneUS < -1e-6 || an.IdleUS < -1e-6 {
				t.Fatalf("inconsistent analysis %+v", an)
			}
			var sb strings.Builder
			if err := r.WriteSummary(&sb, "fuzz"); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// A copy whose launch escaped the profiler, on the stream where NCCL's
// copies run, is communication by its stream; on the compute stream it is
// not.
func TestStreamFallback(t *testing.T) {
	in := `{"traceEvents": [
 {"ph":"X","cat":"cpu_op","name":"nccl:_all_gather_base","pid":1,"tid":1,"ts":0,"dur":10},
 {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":1,"dur":2,"args":{"correlation":1}},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":20,"dur":10},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":21,"dur":2,"args":{"correlation":2}},
 {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoD (Device -> Device)","pid":0,"tid":13,"ts":30,"dur":10,"args":{"device":0,"stream":13,"correlation":1}},
 {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoD (Device -> Device)","pid":0,"tid":13,"ts":50,"dur":10,"args":{"device":0,"stream":13,"correlation":77}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":30,"dur":10,"args":{"device":0,"stream":7,"correlation":2}},
 {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pinned)","pid":0,"tid":7,"ts":45,"dur":1,"args":{"device":0,"stream":7,"correlation":78}}
]}`
	tr, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	got := map[float64]string{}
	for _, a := range tr.Activities {
		got[a.StartUS] = a.Role + "/" + a.By
	}
	want := map[float64]string{30: "", 50: "comm/stream", 45: "other/name"}
	if got[50] != want[50] || got[45] != want[45] {
		t.Errorf("roles %v", got)
	}
}
