package recorded

import (
	"bytes"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/flightrec"
	"github.com/commlab/commlab/parse/hanglab"
	"github.com/commlab/commlab/parse/nccllog"
)

// ncclHang is the recorded NCCL hang on one GPU (two ranks told apart by
// NCCL_HOSTID) that chapter 6 reads.
const ncclHang = "nccl-hang-two-hostids-h100x1"

// TestNCCLHangRecording holds the recording to what chapter 6 says it
// shows, each fact read from the files by the parser a reader would use:
// rank 0's all_reduce #2 started and never completed while rank 1 never
// recorded it, the NCCL kernel resident on the GPU, the Socket transport,
// and the watchdog's timeout as the run's summary set it.
func TestNCCLHangRecording(t *testing.T) {
	if _, err := Load(ncclHang); err != nil {
		t.Fatal(err)
	}
	hang, err := fs.Sub(Files(), ncclHang+"/hang")
	if err != nil {
		t.Fatal(err)
	}
	lab, err := hanglab.Load(hang)
	if err != nil {
		t.Fatal(err)
	}
	if len(lab.Warnings) > 0 || len(lab.Dumps) != lab.NProc {
		t.Fatalf("%d dumps of %d ranks, warnings %q", len(lab.Dumps), lab.NProc, lab.Warnings)
	}
	last := func(d *flightrec.Dump) flightrec.Entry { return d.Entries[len(d.Entries)-1] }
	if e := last(lab.Dumps[0]); e.State != "started" || e.CollectiveSeqID != 2 || e.Backend+e.ProfilingName == "" {
		t.Errorf("rank 0's last entry: %s #%d %s, want all_reduce #2 started", e.ProfilingName, e.CollectiveSeqID, e.State)
	}
	if e := last(lab.Dumps[1]); e.CollectiveSeqID >= last(lab.Dumps[0]).CollectiveSeqID {
		t.Errorf("rank 1 recorded #%d too", e.CollectiveSeqID)
	}

	report, err := fs.ReadFile(hang, "fr_trace.txt")
	if err != nil {
		t.Fatal(err)
	}
	errs, err := flightrec.ParseTraceReport(bytes.NewReader(report))
	if err != nil {
		t.Fatal(err)
	}
	if e := errs[0]; e.State != "started" || !slices.Equal(e.MissingRanks, []int{1}) || e.Collective != "nccl:all_reduce" {
		t.Errorf("fr_trace: %+v", e)
	}

	gdb, err := fs.ReadFile(hang, "cuda-gdb/rank0.txt")
	if err != nil {
		t.Fatal(err)
	}
	if ex := hanglab.CudaGDBExcerpt(string(gdb)); !strings.Contains(ex, "Active") || !strings.Contains(ex, "ncclDevKernel_AllReduce_Sum_f32_RING_LL") || !strings.Contains(ex, "running") {
		t.Errorf("cuda-gdb: no active NCCL kernel in\n%s", ex)
	}
	if st := hanglab.ParseGDB(0, string(gdb)); st.Error != "" || !hasFrame(st, "cudaDeviceSynchronize") {
		t.Errorf("cuda-gdb's host stack: error %q, no cudaDeviceSynchronize", st.Error)
	}

	stderr, err := fs.ReadFile(hang, "stderr/rank_0.txt")
	if err != nil {
		t.Fatal(err)
	}
	wl, err := flightrec.ParseWatchdogLog(bytes.NewReader(stderr))
	if err != nil {
		t.Fatal(err)
	}
	if w := wl.Ranks[0]; w.TimeoutMS != int64(lab.TimeoutS*1000) || w.RanForMS < w.TimeoutMS || w.SeqNum != 2 || w.LastEnqueued != 2 || w.LastCompleted != 1 {
		t.Errorf("watchdog: %+v, want a timeout of %g s on #2", w, lab.TimeoutS)
	}

	stdout, err := fs.ReadFile(hang, "stdout/rank_0.txt")
	if err != nil {
		t.Fatal(err)
	}
	log, err := nccllog.ParseBytes(stdout)
	if err != nil {
		t.Fatal(err)
	}
	if tc := log.TransportCounts(); len(tc) != 1 || tc["NET/Socket/0"] == 0 || log.Network == nil || log.Network.Using != "Socket" {
		t.Errorf("transports %v, network %+v: want NET/Socket only", tc, log.Network)
	}
}

func hasFrame(st hanglab.GDBStack, fn string) bool {
	for _, th := range st.Threads {
		for _, f := range th.Frames {
			if f.Func == fn {
				return true
			}
		}
	}
	return false
}
