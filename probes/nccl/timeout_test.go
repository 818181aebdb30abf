package nccl

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/probes"

	"github.com/commlab/commlab/probes/hwtest"
)

// TestConfigLayoutMatchesHeader holds nl_config to ncclConfig_t's leading
// fields as nccl.h declares them (src/nccl.h.in, NVIDIA/nccl): size_t,
// two unsigned ints, four ints, a pointer, two ints, a pointer, four ints,
// with C's alignment on an LP64 machine.
func TestConfigLayoutMatchesHeader(t *testing.T) {
	want := map[string]int64{"size": 0, "magic": 8, "version": 12, "blocking": 16, "cgaClusterSize": 20, "minCTAs": 24,
		"maxCTAs": 28, "netName": 32, "splitShare": 40, "trafficClass": 44, "commName": 48, "collnetEnable": 56,
		"CTAPolicy": 60, "shrinkShare": 64, "nvlsCTAs": 68}
	offs, size := configOffsets()
	for i, name := range configFieldNames {
		if offs[i] != want[name] {
			t.Errorf("%s at offset %d, want %d", name, offs[i], want[name])
		}
	}
	if size != 72 {
		t.Errorf("sizeof = %d, want 72", size)
	}
}

// TestConfigInitLikeInitializer: NCCL_CONFIG_INITIALIZER's values, with the
// loaded library's version code and blocking set.
func TestConfigInitLikeInitializer(t *testing.T) {
	for _, blocking := range []bool{false, true} {
		c := initConfig(22809, blocking)
		if c.Size != 72 || c.Magic != 0xcafebeef || c.Version != 22809 {
			t.Errorf("header = %d %#x %d", c.Size, c.Magic, c.Version)
		}
		if want := map[bool]int{false: 0, true: 1}[blocking]; c.Blocking != want {
			t.Errorf("blocking = %d, want %d", c.Blocking, want)
		}
		for i, v := range c.Unset {
			if v != math.MinInt32 {
				t.Errorf("unset field %d = %d, want NCCL_CONFIG_UNDEF_INT", i, v)
			}
		}
		if !c.NilNames {
			t.Error("netName/commName not NULL")
		}
	}
}

// fakeClock advances only when the code under test sleeps.
type fakeClock struct {
	now    time.Time
	sleeps int
}

func (f *fakeClock) Now() time.Time        { return f.now }
func (f *fakeClock) Sleep(d time.Duration) { f.now = f.now.Add(d); f.sleeps++ }

func TestPollUntil(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name      string
		doneAfter int // polls until done; -1 never
		failAt    int // poll that fails; -1 never
		budget    time.Duration
		want      error
		polls     int
	}{
		{"done at once", 1, -1, time.Second, nil, 1},
		{"done before deadline", 5, -1, time.Second, nil, 5},
		{"deadline", -1, -1, 10 * pollInterval, errDeadline, 11},
		{"error wins", -1, 3, time.Second, boom, 3},
		{"past deadline still polls once", 1, -1, -time.Second, nil, 1},
		{"past deadline, not done", -1, -1, -time.Second, errDeadline, 1},
	}
	for _, tc := range tests {
		clk := &fakeClock{now: time.Unix(1000, 0)}
		polls := 0
		err := pollUntil(clk, clk.now.Add(tc.budget), func() (bool, error) {
			polls++
			if polls == tc.failAt {
				return false, boom
			}
			return polls == tc.doneAfter, nil
		})
		if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
		if polls != tc.polls {
			t.Errorf("%s: %d polls, want %d", tc.name, polls, tc.polls)
		}
	}
}

func TestTimeoutErrorWrapsErrTimeout(t *testing.T) {
	te := &TimeoutError{Phase: PhaseCompletion, Op: StalledStream, Bytes: 1024, Devices: []int{0}, After: 2 * time.Second, Aborted: true}
	var err error = te
	if !errors.Is(err, ErrTimeout) {
		t.Fatal("TimeoutError does not wrap ErrTimeout")
	}
	var got *TimeoutError
	if !errors.As(err, &got) || got.Op != StalledStream {
		t.Fatal("errors.As lost the details")
	}
	msg := err.Error()
	for _, want := range []string{"stalled_stream 1024 bytes out-of-place", "GPUs [0]", "completion not finished after 2s", "aborted (ncclCommAbort)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	init := (&TimeoutError{Phase: PhaseInit, Devices: []int{0, 1}, After: time.Minute}).Error()
	if !strings.Contains(init, "init not finished") || !strings.Contains(init, "not (yet) aborted") {
		t.Errorf("init timeout: %q", init)
	}
}

// TestHangAbortsInProcess is the hang lab on a real GPU: a collective
// queued behind a stalled stream times out, the communicators are aborted
// in this process, Measure returns soon after the timeout, and a fresh
// communicator then works.
func TestHangAbortsInProcess(t *testing.T) {
	if _, _, err := Version(); err != nil {
		hwtest.Skipf(t, hwtest.GPU, "no NCCL here: %v", err)
	}
	const timeout = 2 * time.Second
	var ready time.Time // communicators up
	cfg := Config{Collectives: []string{StalledStream}, Sizes: []int64{1024}, Modes: []string{"out"},
		Warmup: 1, Iters: 1, Reps: 1, Timeout: timeout}
	cfg.checkpoint = func(*probes.Run) {
		if ready.IsZero() {
			ready = time.Now()
		}
	}
	start := time.Now()
	run, err := Measure(cfg)
	took := time.Since(ready)
	if errors.Is(err, probes.ErrUnavailable) {
		hwtest.Skipf(t, hwtest.GPU, "no GPU here: %v", err)
	}
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want a TimeoutError", err)
	}
	t.Logf("init took %v; returned %v after init: %v; notes %v", ready.Sub(start), took, err, run.Notes)
	if !te.Aborted {
		t.Errorf("ncclCommAbort did not return: %v", te)
	}
	// The warm-up all_reduce, the timeout, the abort and the drain.
	if limit := timeout + abortGrace + 3*time.Second; took > limit {
		t.Errorf("Measure returned %v after init, want under %v", took, limit)
	}
	start = time.Now()
	run, err = Measure(Config{Collectives: []string{AllReduce}, Sizes: []int64{1 << 20}, Check: true, Warmup: 1, Iters: 2, Reps: 2, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("all_reduce on a fresh communicator after the abort: %v", err)
	}
	for _, s := range run.Samples {
		if s.Wrong != 0 || s.MedianUS <= 0 {
			t.Errorf("after abort: %s %d bytes: wrong %d, median %v us", s.Op, s.Bytes, s.Wrong, s.MedianUS)
		}
	}
	t.Logf("fresh all_reduce after the abort: %d samples in %v, notes %v", len(run.Samples), time.Since(start), run.Notes)
}

// TestRecordedHangRun: the run recorded on the H200 says what the hang lab
// shows, a timeout aborted in-process rather than a killed child.
func TestRecordedHangRun(t *testing.T) {
	run, err := probes.LoadRun("testdata/h200/commlab-hang-stalled-stream-abort.json")
	if err != nil {
		t.Fatal(err)
	}
	if run.GPUCount != 1 || run.NCCL == "" || run.GPUModel == "" {
		t.Errorf("provenance missing: %+v", run)
	}
	for _, want := range []string{"timed out", "stalled_stream", "communicators aborted (ncclCommAbort)"} {
		if !strings.Contains(run.Error, want) {
			t.Errorf("error %q lacks %q", run.Error, want)
		}
	}
	if strings.Contains(run.Error, "killed") {
		t.Errorf("the watchdog killed the child: %q", run.Error)
	}
}
