package overlap

import (
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/torchtrace"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/recorded"
)

// The recorded run's answer says what its timestamps say, with the
// condition the "not started" holds under and what one rank leaves out.
func TestCoreAnswerRecorded(t *testing.T) {
	res, err := Recorded(RecordedName)
	if err != nil {
		t.Fatal(err)
	}
	got := res.CoreAnswer()
	for _, want := range []string{
		"| default | 203.4 µs | 3.052 ms | 3.055 ms | 232.8 µs | 3.561 ms | 3.563 ms |",
		"**Started when the call returned?** No: the call returned at 203.4 µs having *enqueued* the copy",
		"the 20 GEMMs queued ahead",
		"with an idle current stream the collective can start before the call returns",
		"**Finished when wait() returned?** No",
		"it ran from 211.2 µs to 4.524 ms and the copy ended at 3.558 ms, so the copy had ended when it returned",
		"in each run the copy started first and the fill overtook it before it ended, and 864 (default), 1,024 (blocking-wait), 1,920 (avoid-record-streams) of the 268,435,456 output elements hold 2.0",
		"The same fill after wait() started 1.567 µs after the copy ended: 0 output elements",
		"What this one-rank stand-in leaves out",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("answer lacks %q:\n%s", want, got)
		}
	}
}

// The sentences follow the numbers: a copy that started before the call
// returned and ended before wait() did is answered yes, and a run without
// the all_gather case says it has nothing to answer from.
func TestCoreAnswerFollowsTheNumbers(t *testing.T) {
	run := &probes.Run{Settings: map[string]string{"cq_gemms": "0", "cq_bytes": "1048576"}}
	early := &Result{Run: run, Cases: []Case{{Name: "all_gather", Setting: "default", CommActivities: 1, CommKinds: "Memcpy DtoD",
		CallStartUS: 0, CallReturnUS: 50, CommStartUS: 10, CommEndUS: 30, WaitStartUS: 60, WaitReturnUS: 70},
		{Name: "modify_before_wait", Setting: "default", CommActivities: 1, CommStartUS: 20, CommEndUS: 40, ModifyStartUS: 10, ModifyEndUS: 50,
			Facts: map[string]any{"out_elements": int64(1000), "out_modified_elements": int64(1000)}}}}
	got := early.CoreAnswer()
	for _, want := range []string{"Yes, here: the copy started at 10 µs, before the call returned at 50 µs", "**Finished when wait() returned?** Yes, here",
		"Here default: the copy started first: no, the fill ended first: no, and 1,000 (default) of the 1,000 output elements hold 2.0"} {
		if !strings.Contains(got, want) {
			t.Errorf("answer lacks %q:\n%s", want, got)
		}
	}
	if got := (&Result{Run: run}).CoreAnswer(); !strings.Contains(got, "No all_gather case") {
		t.Errorf("empty run: %q", got)
	}
}

func TestSettingsTableRecorded(t *testing.T) {
	res, err := Recorded(RecordedName)
	if err != nil {
		t.Fatal(err)
	}
	table, msgs := res.SettingsTable()
	if !strings.HasPrefix(table, "| logged as | default | with TORCH_NCCL_\u200bBLOCKING_WAIT=1 |") ||
		!strings.Contains(table, "| `TORCH_NCCL_BLOCKING_WAIT` | 0 | 1 | 0 |") {
		t.Errorf("table:\n%s", table)
	}
	if !strings.Contains(strings.Join(msgs, "\n"), "[blocking-wait] TORCH_NCCL_BLOCKING_WAIT is enabled, NO watchdog thread is created.") {
		t.Errorf("messages %q", msgs)
	}
	if table, _ := (&Result{Run: &probes.Run{}}).SettingsTable(); table != "" {
		t.Errorf("no logs gave a table: %q", table)
	}
}

// The comparison prices each variant with the model it is handed and
// leaves out what skip accepts.
func TestCompareRecorded(t *testing.T) {
	res, err := Recorded(RecordedName)
	if err != nil {
		t.Fatal(err)
	}
	m := Model{CopyRate: 2e12, PeakFLOPs: 1e15, GEMM: 4096, Step: func(c, comm, f float64) (float64, error) { return c + comm - min(f*comm, c), nil }}
	head, table, err := res.Compare("variants", m, func(v Variant) bool { return v.Name == "sync" })
	if err != nil {
		t.Fatal(err)
	}
	if head != ("variants (2 GiB, 9 GEMMs a step): model C = 1.237 ms, M = 1.074 ms; measured C = 1.567 ms, M = 1.135 ms") {
		t.Errorf("head %q", head)
	}
	md := table.Markdown()
	if strings.Contains(md, "| sync |") || !strings.Contains(md, "| wait_early | 0.00 | 2.311 ms |") || table.Len() != 8 {
		t.Errorf("table (%d rows):\n%s", table.Len(), md)
	}
}

func TestLargestCopy(t *testing.T) {
	run := &probes.Run{Samples: []probes.Sample{{Op: "d2d", Bytes: 1 << 20, AlgBW: 100}, {Op: "d2d", Bytes: 1 << 30, AlgBW: 1500}, {Op: "h2d", Bytes: 1 << 31, AlgBW: 50}}}
	if rate, n := LargestCopy(run); rate != 1500e9 || n != 1<<30 {
		t.Errorf("LargestCopy = %g, %d", rate, n)
	}
}

func TestStreamTablePublished(t *testing.T) {
	pub, err := recorded.Public("hta_a100x16_rank0_trace.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := torchtrace.Parse(strings.NewReader(pub.Text))
	if err != nil {
		t.Fatal(err)
	}
	an, err := tr.Analyze(torchtrace.Options{Device: -1})
	if err != nil {
		t.Fatal(err)
	}
	got := StreamTable(tr, an)
	if !strings.HasPrefix(got, "| stream | role | kernels | busy | communication ops launched on it |") ||
		!strings.Contains(got, "80 x `ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t`") || !strings.Contains(got, "(overlap fraction 0.014)") {
		t.Errorf("table:\n%s", got)
	}
}

func TestWithoutGate(t *testing.T) {
	got := withoutGate([]string{"python3", "b.py", "--out", "D", "--start-after", "/tmp/g/step-1", "--what", "cq"})
	if strings.Join(got, " ") != "python3 b.py --out D --what cq" {
		t.Errorf("withoutGate = %q", got)
	}
}
