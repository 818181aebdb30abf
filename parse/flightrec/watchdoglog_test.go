package flightrec

import (
	"bytes"
	"strings"
	"testing"

	"github.com/commlab/commlab/internal/golden"
)

// TestWatchdogLogGolden reads each public watchdog log (testdata/public,
// sources in its README) and holds the ranks and the reading to a golden
// file.
func TestWatchdogLogGolden(t *testing.T) {
	inputs := golden.Inputs(t, 2, "testdata/public/*.log")
	golden.Each(t, inputs, golden.AppendExt, func(t *testing.T, data []byte) []byte {
		l, err := ParseWatchdogLog(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return append(golden.JSON(t, l, "  "), []byte(l.Reading()+"\n")...)
	})
}

func TestWatchdogLogReading(t *testing.T) {
	for _, tc := range []struct {
		name, log, want string
	}{
		{"a rank behind", "[PG ID 0 PG GUID 0(default_pg) Rank 0] Timeout at NCCL work: 12, last enqueued NCCL work: 12, last completed NCCL work: 11.\n" +
			"[PG ID 0 PG GUID 0(default_pg) Rank 1] Timeout at NCCL work: 11, last enqueued NCCL work: 11, last completed NCCL work: 10.\n",
			"rank 1 (last enqueued #11) never enqueued work #12"},
		{"all joined", "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1802212 milliseconds before timing out.\n" +
			"[PG 0 (default_pg) Rank 3] Timeout at NCCL work: 5, last enqueued NCCL work: 5, last completed NCCL work: 4.\n",
			"rank 3 enqueued ALLREDUCE #5 and none completed it"},
		{"torch 2.11's status line", "[rank0]:[E1206 13:55:03.320418466 ProcessGroupNCCL.cpp:689] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1024, NumelOut=1024, Timeout(ms)=30000) ran for 30032 milliseconds before timing out.\n" +
			"[rank0]:[E1206 13:55:03.320647593 ProcessGroupNCCL.cpp:2303] [PG ID 0 PG GUID 0(default_pg) Rank 0]  failure detected by watchdog at work sequence id: 2 PG status: last enqueued work: 2, last completed work: 1\n",
			"rank 0 enqueued ALLREDUCE #2 and none completed it"},
		{"numbers not logged", "[Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600001 milliseconds before timing out.\n",
			"rank 2 enqueued BROADCAST #9 and none completed it"},
	} {
		l, err := ParseWatchdogLog(strings.NewReader(tc.log))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if strings.Contains(tc.log, "last enqueued") && l.Ranks[0].LastEnqueued < 0 {
			t.Errorf("%s: the last enqueued work not read: %+v", tc.name, l.Ranks[0])
		}
		if got := l.Reading(); !strings.Contains(got, tc.want) {
			t.Errorf("%s: reading %q, want it to contain %q", tc.name, got, tc.want)
		}
	}
	if _, err := ParseWatchdogLog(strings.NewReader("NCCL INFO Init COMPLETE\n")); err == nil {
		t.Error("a log without watchdog lines: no error")
	}
}

func FuzzParseWatchdogLog(f *testing.F) {
	f.Add("[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.")
	f.Add("[PG ID 2 PG GUID 9 Rank 4] Timeout at NCCL work: 610, last enqueued NCCL work: 616, last completed NCCL work: 609.")
	f.Fuzz(func(t *testing.T, s string) {
		if l, err := ParseWatchdogLog(strings.NewReader(s)); err == nil {
			_ = l.Reading()
		}
	})
}
