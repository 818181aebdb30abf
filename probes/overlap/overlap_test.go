package overlap

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes/measure"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestLoadHandmade(t *testing.T) {
	res, err := Load(os.DirFS("testdata/handmade"), ".")
	if err != nil {
		t.Fatal(err)
	}
	if res.Run == nil || res.Run.Kind != "torch-overlap" || res.Run.GPUModel != "HANDMADE" {
		t.Fatalf("run %+v", res.Run)
	}
	if len(res.Errors) != 1 || !strings.HasPrefix(res.Errors[0], "cq-default: ") {
		t.Errorf("errors %q", res.Errors)
	}
	v := res.Variant("overlap")
	if v == nil || v.Analysis == nil || !near(v.Analysis.OverlapFraction, 0.5) || v.StepMS != 0.06 || len(v.Timeline) != 3 {
		t.Fatalf("variant %+v", v)
	}
	if len(res.Run.Samples) != 1 || res.Run.Samples[0].Op != "step:overlap" || !near(res.Run.Samples[0].MedianUS, 60) ||
		res.Run.Samples[0].Label != "set=variants overlap_fraction=0.500" {
		t.Errorf("samples %+v", res.Run.Samples)
	}
	c := res.Case("all_gather", "default")
	if c == nil {
		t.Fatal("no all_gather case")
	}
	// Times from the trace's first event (ts 1000): call 30..70, copy
	// 411..911, wait 75..85, queued GEMM ends at 410, next kernel at 912.
	for _, x := range [][2]float64{{c.CallStartUS, 30}, {c.CallReturnUS, 70}, {c.CommStartUS, 411}, {c.CommEndUS, 911},
		{c.WaitStartUS, 75}, {c.WaitReturnUS, 85}, {c.QueuedEndUS, 410}, {c.AfterStartUS, 912}} {
		if !near(x[0], x[1]) {
			t.Errorf("case times %+v", c)
			break
		}
	}
	if c.StartedByReturn() || c.FinishedByWaitReturn() || c.ModifyRacesComm() || c.CommActivities != 1 {
		t.Errorf("answers: started %v finished %v races %v", c.StartedByReturn(), c.FinishedByWaitReturn(), c.ModifyRacesComm())
	}
	if c.Facts["is_completed_after_wait"] != false {
		t.Errorf("facts %v", c.Facts)
	}
	if b := res.Case("broken", "default"); b == nil || b.Error == "" {
		t.Errorf("broken case %+v", b)
	}
	var buf bytes.Buffer
	if err := res.WriteSummary(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"overlap", "0.500", "case all_gather [default]: call returned at +40.0 us", "started by return: false"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestLoadVariantsOnly(t *testing.T) {
	res, err := LoadVariants(os.DirFS("testdata/handmade"), "variants")
	if err != nil || len(res.Variants) != 1 || len(res.Cases) != 0 {
		t.Fatalf("%+v, %v", res, err)
	}
	if _, err := Load(os.DirFS("testdata"), "."); err == nil {
		t.Error("a folder without summary.json loaded")
	}
}

func TestMeasureRecordedMode(t *testing.T) {
	m, err := Measure(context.Background(), measure.ModeRecorded, Config{}, RecordedName)
	if err != nil {
		t.Fatal(err)
	}
	if m.Live || m.Recorded != RecordedName || !strings.HasPrefix(m.Banner(), "recorded on 1x NVIDIA H200") {
		t.Errorf("banner %q", m.Banner())
	}
	if _, err := Measure(context.Background(), measure.Mode("sometimes"), Config{}, RecordedName); !errors.Is(err, measure.ErrMode) {
		t.Errorf("bad mode: %v", err)
	}
}

// The recorded H200 run answers the core question the way the chapter
// says: read from its traces, not from the script's arithmetic.
func TestRecordedRunAnswers(t *testing.T) {
	res, err := Recorded(RecordedName)
	if err != nil {
		t.Fatal(err)
	}
	if res.Run.GPUModel != "NVIDIA H200" || res.Run.NCCL == "" || !strings.HasPrefix(res.Run.Tool, "torch 2.11") {
		t.Errorf("provenance %s", res.Run.Provenance())
	}
	c := res.Case("all_gather", "default")
	if c == nil || c.CommActivities != 1 || c.StartedByReturn() || c.FinishedByWaitReturn() || c.AfterStartUS < c.CommEndUS {
		t.Errorf("default all_gather: %+v", c)
	}
	if b := res.Case("all_gather", "blocking-wait"); b == nil || !b.FinishedByWaitReturn() {
		t.Errorf("blocking wait: %+v", b)
	}
	if s := res.Case("all_reduce_sum", "default"); s == nil || s.CommActivities != 0 {
		t.Errorf("one-rank SUM all_reduce launched GPU work: %+v", s)
	}
	if m := res.Case("modify_after_wait", "default"); m == nil || m.Facts["out_modified_elements"] != int64(0) || m.ModifyRacesComm() {
		t.Errorf("modify after wait: %+v", m)
	}
	over, early := res.VariantIn("variants-allreduce-avg", "overlap"), res.VariantIn("variants-allreduce-avg", "wait_early")
	if over == nil || early == nil || over.Analysis.OverlapFraction < 0.5 || early.Analysis.OverlapFraction != 0 || over.StepMS >= early.StepMS {
		t.Errorf("AVG all_reduce: overlap %+v, wait_early %+v", over, early)
	}
	if len(res.Sets()) != 2 {
		t.Errorf("sets %v", res.Sets())
	}
}

func TestLoggedSettings(t *testing.T) {
	log := "[I1201 22:03:56.205921544 ProcessGroupNCCL.cpp:1725] [PG ID 0 PG GUID 0 Rank 0] HeartbeatMonitor environments: TORCH_NCCL_ENABLE_MONITORING (Whether to kill program when no watchdog heartbeat detected): 1, TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC: 480\n" +
		"[I1201 22:03:56.206000325 ProcessGroupNCCL.cpp:988] [PG ID 0 PG GUID 0 Rank 0] ProcessGroupNCCL initialization options: size: 1, TIMEOUT(ms): 600000\n" +
		"[W1201 22:04:14.976547079 ProcessGroupNCCL.cpp:932] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, this environment variable is thus deprecated. (function operator())\n"
	settings, messages := LoggedSettings(log)
	want := []Setting{{"TORCH_NCCL_ENABLE_MONITORING", "1"}, {"TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC", "480"}, {"size", "1"}, {"TIMEOUT(ms)", "600000"}}
	if len(settings) != len(want) {
		t.Fatalf("settings %v", settings)
	}
	for i := range want {
		if settings[i] != want[i] {
			t.Errorf("setting %d = %v, want %v", i, settings[i], want[i])
		}
	}
	if len(messages) != 1 || !strings.HasPrefix(messages[0], "Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now") {
		t.Errorf("messages %q", messages)
	}
}

func TestKeptLog(t *testing.T) {
	out := "[bench_overlap] calibration {}\n" +
		"[I1201 22:04:04.807109005 ProcessGroupNCCL.cpp:939] [PG ID 0 PG GUID 0 Rank 0] TORCH_NCCL_BLOCKING_WAIT is enabled, NO watchdog thread is created.\n" +
		"[I1201 22:04:00.546296044 ProcessGroupNCCL.cpp:1515] [PG ID 0 PG GUID 0(default_pg) Rank 0] Starting to destroy process group, flushing operations.\n" +
		"[I1201 22:04:04.807135329 ProcessGroupNCCL.cpp:999] [PG ID 0 PG GUID 0 Rank 0] ProcessGroupNCCL environments: TORCH_NCCL_BLOCKING_WAIT: 1\r\n"
	got := keptLog(out)
	if strings.Count(got, "\n") != 1 || !strings.Contains(got, "NO watchdog") || !strings.HasSuffix(got, "TORCH_NCCL_BLOCKING_WAIT: 1") {
		t.Errorf("kept %q", got)
	}
}
