package measure

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/child"
	"github.com/commlab/commlab/probes/cuda"
	"github.com/commlab/commlab/probes/dynlib"
	"github.com/commlab/commlab/probes/nccl"
	"github.com/commlab/commlab/probes/recorded"
)

func TestParseMode(t *testing.T) {
	tests := []struct {
		in   string
		want Mode
		ok   bool
	}{
		{"auto", ModeAuto, true},
		{"live", ModeLive, true},
		{"recorded", ModeRecorded, true},
		{"", ModeAuto, true},
		{"  Live ", ModeLive, true},
		{"RECORDED", ModeRecorded, true},
		{"record", "", false},
		{"gpu", "", false},
		{"auto,live", "", false},
	}
	for _, tt := range tests {
		got, err := ParseMode(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && (!errors.Is(err, ErrMode) || !strings.HasPrefix(err.Error(), "measure: ") || !strings.Contains(err.Error(), "auto, live or recorded")) {
			t.Errorf("ParseMode(%q) error %q: want ErrMode, prefixed, naming the modes", tt.in, err)
		}
	}
	if _, err := NCCL(context.Background(), Mode("sometimes"), nccl.Config{}, "nccl-h200x1-proto-auto"); !errors.Is(err, ErrMode) {
		t.Errorf("NCCL with an unknown mode: %v, want ErrMode", err)
	}
}

// gpuHere reports whether this machine can run CUDA; tests that assume it
// cannot skip when it can.
func gpuHere() bool {
	_, err := cuda.Init()
	return err == nil
}

// noLive makes every live call fail the test: recorded mode must not
// touch the GPU.
func noLive(t *testing.T) {
	t.Helper()
	fail := func(what string) error { t.Errorf("recorded mode called %s", what); return errors.New("called") }
	hooks(t)
	cudaInit = func() (int, error) { return 0, fail("cuda.Init") }
	measureBandwidth = func(cuda.BandwidthConfig) (*probes.Run, error) { return nil, fail("cuda.MeasureBandwidth") }
	measureLatency = func(cuda.LatencyConfig) (*probes.Run, error) { return nil, fail("cuda.MeasureLatency") }
	ncclVersion = func() (string, string, error) { return "", "", fail("nccl.Version") }
	runChild = func(context.Context, child.Request, child.Options) (*probes.Run, error) {
		return nil, fail("child.Run")
	}
}

// hooks restores the live calls when the test ends.
func hooks(t *testing.T) {
	t.Helper()
	ci, nv, rc, mb, ml := cudaInit, ncclVersion, runChild, measureBandwidth, measureLatency
	t.Cleanup(func() {
		cudaInit, ncclVersion, runChild, measureBandwidth, measureLatency = ci, nv, rc, mb, ml
	})
}

func TestRecordedMode(t *testing.T) {
	noLive(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		measure func() (*Measurement, error)
		want    []string // in the banner
	}{
		{"nccl-h200x2-proto-auto", func() (*Measurement, error) {
			return NCCL(ctx, ModeRecorded, nccl.Config{}, "nccl-h200x2-proto-auto")
		}, []string{"recorded on 2x NVIDIA H200", "driver 580.159.04", "CUDA 13.0", "NCCL 2.28.9", "2026-11-29",
			`command "commlab probe nccl --coll all_reduce,all_gather,reduce_scatter -b 8 -e 8G --warmup 3`}},
		{"bandwidth-h200x1", func() (*Measurement, error) {
			return Bandwidth(ctx, ModeRecorded, cuda.BandwidthConfig{}, "bandwidth-h200x1")
		}, []string{"recorded on 1x NVIDIA H200", "driver 580.159.04", "CUDA 13.0", "2026-11-29", `command "commlab probe bandwidth -b 4K -e 1G -f 4"`}},
		{"latency-h200x2", func() (*Measurement, error) {
			return Latency(ctx, ModeRecorded, cuda.LatencyConfig{}, "latency-h200x2.json")
		}, []string{"recorded on 2x NVIDIA H200", "2026-11-29", `command "commlab probe latency"`}},
		{"nccl-tests-all_reduce-h200x1", func() (*Measurement, error) {
			return NCCL(ctx, ModeRecorded, nccl.Config{}, "nccl-tests-all_reduce-h200x1")
		}, []string{"NCCL 2.28.3, nccl-tests 2.17.6", `command "all_reduce_perf -b 8 -e 1G -f 2 -g 1"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := tt.measure()
			if err != nil {
				t.Fatal(err)
			}
			if m.Live || m.Fallback != "" || m.Recorded != strings.TrimSuffix(tt.name, ".json") && !strings.HasPrefix(m.Recorded, tt.name) {
				t.Errorf("Live %v, Fallback %q, Recorded %q", m.Live, m.Fallback, m.Recorded)
			}
			if len(m.Run.Samples) == 0 {
				t.Error("no samples")
			}
			b := m.Banner()
			for _, w := range tt.want {
				if !strings.Contains(b, w) {
					t.Errorf("banner lacks %q:\n%s", w, b)
				}
			}
			for _, bad := range []string{"--save", `["`, "\n", "/root/out"} {
				if strings.Contains(b, bad) {
					t.Errorf("banner has %q:\n%s", bad, b)
				}
			}
		})
	}
}

func TestRecordedNames(t *testing.T) {
	noLive(t)
	ctx := context.Background()
	_, err := Recorded("nccl-h200x2-proto-atuo")
	if !errors.Is(err, recorded.ErrNotFound) || !strings.HasPrefix(err.Error(), "measure: ") || !strings.Contains(err.Error(), "did you mean nccl-h200x2-proto-auto") {
		t.Errorf("a misspelt name: %v, want ErrNotFound naming nccl-h200x2-proto-auto first", err)
	}
	if strings.Contains(fmt.Sprint(err), "torch-copy") {
		t.Errorf("a misspelt name lists names far from it: %v", err)
	}
	_, err = Recorded("something else entirely")
	if !errors.Is(err, recorded.ErrNotFound) || !strings.Contains(err.Error(), "have ") || !strings.Contains(err.Error(), "latency-h200x1") {
		t.Errorf("a name close to none: %v, want every name listed", err)
	}
	// A wrong name fails in every mode, also where a live run would work.
	for _, mode := range []Mode{ModeAuto, ModeLive, ModeRecorded} {
		if _, err := NCCL(ctx, mode, nccl.Config{}, "nccl-h200x8-proto-auto"); !errors.Is(err, recorded.ErrNotFound) {
			t.Errorf("%s mode, unknown name: %v", mode, err)
		}
	}
	if _, err := Bandwidth(ctx, ModeRecorded, cuda.BandwidthConfig{}, "latency-h200x1"); err == nil || !strings.Contains(err.Error(), "is a latency run, not bandwidth") {
		t.Errorf("a latency run for bandwidth: %v", err)
	}
	if _, err := NCCL(ctx, ModeRecorded, nccl.Config{}, ""); err == nil || !strings.HasPrefix(err.Error(), "measure: ") {
		t.Errorf("recorded mode with no name: %v", err)
	}
	m, err := Recorded("torch-nccl-h200x2")
	if err != nil || m.Run.Kind != "torch" || m.Recorded != "torch-nccl-h200x2" {
		t.Errorf("Recorded of a run of any kind: %v, %v", m, err)
	}
}

// TestAutoFallsBackHere runs the real live paths on a machine without a
// GPU (CI's, this one): auto mode shows the recording and says why.
func TestAutoFallsBackHere(t *testing.T) {
	if gpuHere() {
		t.Skip("a GPU is present: auto mode measures live here")
	}
	ctx := context.Background()
	for name, call := range map[string]func() (*Measurement, error){
		"nccl":      func() (*Measurement, error) { return NCCL(ctx, ModeAuto, nccl.Config{}, "nccl-h200x1-proto-auto") },
		"bandwidth": func() (*Measurement, error) { return Bandwidth(ctx, "", cuda.BandwidthConfig{}, "bandwidth-h200x1") },
		"latency":   func() (*Measurement, error) { return Latency(ctx, ModeAuto, cuda.LatencyConfig{}, "latency-h200x1") },
	} {
		m, err := call()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.Live || !strings.HasPrefix(m.Fallback, "no GPU here: cuda: ") || !errors.Is(m.LiveError, probes.ErrUnavailable) {
			t.Errorf("%s: Live %v, Fallback %q, LiveError %v", name, m.Live, m.Fallback, m.LiveError)
		}
		if b := m.Banner(); !strings.HasPrefix(b, "recorded on 1x NVIDIA H200") || !strings.Contains(b, "; no GPU here: cuda: ") || strings.Contains(b, "\n") {
			t.Errorf("%s: banner %q", name, b)
		}
		// Inside a sentence the reason is said in its first words, without the library's error.
		if src := m.Source(); !strings.HasSuffix(src, "; no GPU here") || !strings.HasPrefix(src, "recorded on 1x NVIDIA H200") {
			t.Errorf("%s: source %q", name, src)
		}
	}
}

func TestLiveWithoutGPU(t *testing.T) {
	if gpuHere() {
		t.Skip("a GPU is present")
	}
	ctx := context.Background()
	for name, call := range map[string]func() (*Measurement, error){
		"nccl":      func() (*Measurement, error) { return NCCL(ctx, ModeLive, nccl.Config{}, "nccl-h200x1-proto-auto") },
		"bandwidth": func() (*Measurement, error) { return Bandwidth(ctx, ModeLive, cuda.BandwidthConfig{}, "") },
		"latency":   func() (*Measurement, error) { return Latency(ctx, ModeLive, cuda.LatencyConfig{}, "") },
	} {
		m, err := call()
		if m != nil || !errors.Is(err, probes.ErrUnavailable) || !strings.HasPrefix(err.Error(), "measure: live "+name+": no GPU here: cuda: ") {
			t.Errorf("%s: %v, %v; want a plain error wrapping probes.ErrUnavailable", name, m, err)
		}
	}
}

// liveRun is a run as the live paths return it.
func liveRun() *probes.Run {
	return &probes.Run{Kind: "nccl", Date: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), GPUModel: "NVIDIA H200", GPUCount: 1,
		Driver: "580.159.04", CUDA: "13.0", NCCL: "2.28.9", Command: []string{"/usr/local/bin/commlab", "probe", "nccl"},
		Samples: []probes.Sample{{Op: "all_reduce", Bytes: 8, MedianUS: 9}, {Op: "all_reduce", Bytes: 1 << 20, MedianUS: 20}}}
}

// cudaRun is a copy or latency run as cuda.MeasureBandwidth and
// cuda.MeasureLatency return it on one H200, with samples.
func cudaRun(kind string, samples ...probes.Sample) *probes.Run {
	r := &probes.Run{Kind: kind, Date: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Settings: map[string]string{"library": "libcudart.so.13"},
		Samples: samples}
	(&cuda.Info{Library: "libcudart.so.13", Driver: "13.0", Runtime: "13.0", DriverRelease: "580.159.04", Devices: []string{"NVIDIA H200"}}).Describe(r)
	return r
}

// gpu makes CUDA and NCCL present.
func gpu(t *testing.T) {
	hooks(t)
	cudaInit = func() (int, error) { return 1, nil }
	measureBandwidth = func(cuda.BandwidthConfig) (*probes.Run, error) {
		return cudaRun("bandwidth", probes.Sample{Op: cuda.OpD2D, Bytes: 1 << 20, MedianUS: 1}), nil
	}
	measureLatency = func(cuda.LatencyConfig) (*probes.Run, error) {
		return cudaRun("latency", probes.Sample{Op: cuda.OpLaunchHost, MedianUS: 2.5}), nil
	}
	ncclVersion = func() (string, string, error) { return "2.28.9", "/usr/lib/libnccl.so.2", nil }
}

func TestNCCLLivePaths(t *testing.T) {
	ctx := context.Background()
	missingNCCL := fmt.Errorf("nccl: %w", &dynlib.NotFoundError{What: "NCCL", Tried: []string{"libnccl.so.2", "libnccl.so"},
		Reasons: []string{"libnccl.so.2: cannot open shared object file: No such file or directory", "libnccl.so: cannot open shared object file: No such file or directory"}})
	initFailed := errors.New("nccl: child: nccl: ncclCommInitRankConfig: error 2 (unhandled system error)\nsecond line")
	tests := []struct {
		name     string
		setup    func()
		runner   Runner
		live     bool
		argv     []string // the worker command, when one starts
		fallback string   // Fallback's prefix in auto mode
		liveErr  string   // the error's prefix in live mode
		unavail  bool     // the live error wraps probes.ErrUnavailable
	}{
		{name: "commlab runs its own worker", live: true},
		{name: "a command set by the caller", runner: Runner{NCCLCommand: []string{"/opt/worker", "--nccl"}}, live: true,
			argv: []string{"/opt/worker", "--nccl"}},
		{name: "no CUDA device", setup: func() {
			cudaInit = func() (int, error) { return 0, fmt.Errorf("cuda: %w: no CUDA device", probes.ErrUnavailable) }
		}, fallback: "no GPU here: cuda: probes: unavailable: no CUDA device", liveErr: "measure: live nccl: no GPU here: cuda: ", unavail: true},
		{name: "no libnccl", setup: func() { ncclVersion = func() (string, string, error) { return "", "", missingNCCL } },
			fallback: "no NCCL here: nccl: NCCL unavailable: libnccl.so.2, libnccl.so not found", liveErr: "measure: live nccl: no NCCL here: nccl: NCCL unavailable", unavail: true},
		{name: "not the commlab binary", setup: func() { runChild = child.Run }, // this test binary is measure.test
			fallback: "no NCCL worker: live NCCL runs in a child process started from the commlab binary, and this process is ", // the test binary, named measure.test by go test and probes-measure.test by make test-gpu
			liveErr:  "measure: live nccl: no NCCL worker: live NCCL runs in a child process"},
		{name: "a live failure", setup: func() {
			runChild = func(context.Context, child.Request, child.Options) (*probes.Run, error) { return nil, initFailed }
		},
			fallback: "live run failed: nccl: child: nccl: ncclCommInitRankConfig: error 2 (unhandled system error) second line", liveErr: "measure: live nccl: live run failed: nccl: child:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gpu(t)
			var gotArgv []string
			var gotEnv map[string]string
			runChild = func(_ context.Context, req child.Request, opt child.Options) (*probes.Run, error) {
				gotArgv, gotEnv = opt.Command, req.NCCL.Env
				return liveRun(), nil
			}
			if tt.setup != nil {
				tt.setup()
			}
			for _, mode := range []Mode{ModeAuto, ModeLive} {
				gotArgv = nil
				cfg := nccl.Config{Env: map[string]string{"NCCL_PROTO": "LL"}}
				m, err := tt.runner.NCCL(ctx, mode, cfg, "nccl-h200x1-proto-LL")
				if tt.argv != nil && !slices.Equal(gotArgv, tt.argv) && (tt.live || gotArgv != nil) {
					t.Errorf("%s: worker command %q, want %q", mode, gotArgv, tt.argv)
				}
				if tt.live {
					if err != nil || !m.Live || m.Fallback != "" || m.Recorded != "" || gotEnv["NCCL_PROTO"] != "LL" {
						t.Errorf("%s: %+v, %v; env %v", mode, m, err, gotEnv)
					}
					if b := m.Banner(); b != "live on 1x NVIDIA H200, driver 580.159.04, CUDA 13.0, NCCL 2.28.9, 2026-12-01" {
						t.Errorf("%s: banner %q", mode, b)
					}
					continue
				}
				if mode == ModeAuto {
					if err != nil || m.Live || !strings.HasPrefix(m.Fallback, tt.fallback) || m.Recorded != "nccl-h200x1-proto-LL" || m.LiveError == nil {
						t.Errorf("auto: %+v, %v; want Fallback %q", m, err, tt.fallback)
					} else if !strings.HasSuffix(m.Banner(), "; "+m.Fallback) || strings.Contains(m.Banner(), "\n") {
						t.Errorf("auto: the banner does not end with the fallback on one line: %q", m.Banner())
					}
					continue
				}
				if m != nil || err == nil || !strings.HasPrefix(err.Error(), tt.liveErr) || errors.Is(err, probes.ErrUnavailable) != tt.unavail {
					t.Errorf("live: %v, %v; want an error starting %q (unavailable %v)", m, err, tt.liveErr, tt.unavail)
				}
			}
		})
	}
}

// TestTwoGPURunOnOneGPU holds that a run naming two devices on a machine
// with one shows the two-GPU recording and says why, and that live mode
// refuses it without starting a worker; with two GPUs it runs live.
func TestTwoGPURunOnOneGPU(t *testing.T) {
	ctx := context.Background()
	cfg := nccl.Config{Devices: []int{0, 1}}
	for _, tt := range []struct {
		gpus int
		live bool
	}{{1, false}, {2, true}, {8, true}} {
		gpu(t)
		cudaInit = func() (int, error) { return tt.gpus, nil }
		started := false
		runChild = func(context.Context, child.Request, child.Options) (*probes.Run, error) {
			started = true
			return liveRun(), nil
		}
		m, err := NCCL(ctx, ModeAuto, cfg, "nccl-h200x2-proto-auto")
		if err != nil || m.Live != tt.live || started != tt.live {
			t.Fatalf("%d GPUs, auto: %+v, %v, worker started %v", tt.gpus, m, err, started)
		}
		if !tt.live {
			want := "too few GPUs here: this run needs devices 0, 1 and this machine has 1 GPU(s)"
			if m.Fallback != want || m.Recorded != "nccl-h200x2-proto-auto" || !strings.HasSuffix(m.Banner(), "; "+want) {
				t.Errorf("fallback %q, banner %q", m.Fallback, m.Banner())
			}
			if _, err := NCCL(ctx, ModeLive, cfg, "nccl-h200x2-proto-auto"); err == nil || !strings.Contains(err.Error(), "too few GPUs here") {
				t.Errorf("live mode on one GPU: %v", err)
			}
		}
	}
}

func TestAutoWithoutRecordingReportsTheLiveFailure(t *testing.T) {
	gpu(t)
	measureBandwidth = func(cuda.BandwidthConfig) (*probes.Run, error) {
		return nil, fmt.Errorf("cuda: %w: no CUDA device", probes.ErrUnavailable)
	}
	_, err := Bandwidth(context.Background(), ModeAuto, cuda.BandwidthConfig{}, "")
	if !errors.Is(err, probes.ErrUnavailable) || !strings.Contains(err.Error(), "no recorded run is named") {
		t.Errorf("auto with no recording and no GPU: %v", err)
	}
}

// TestInterruptStopsWaiting holds that a cancelled context ends the call
// at once, in every mode but recorded, and never shows a recording in
// place of the interrupted run.
func TestInterruptStopsWaiting(t *testing.T) {
	gpu(t)
	runChild = func(ctx context.Context, _ child.Request, _ child.Options) (*probes.Run, error) {
		<-ctx.Done() // exec.CommandContext kills the child
		return nil, fmt.Errorf("nccl: child failed before writing its run: signal: killed")
	}
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	measureBandwidth = func(cuda.BandwidthConfig) (*probes.Run, error) {
		started <- struct{}{}
		<-release // the GPU work an interrupt cannot stop
		return cudaRun("bandwidth", probes.Sample{Op: "d2d", Bytes: 1 << 20, MedianUS: 1}), nil
	}
	for name, call := range map[string]func(context.Context) (*Measurement, error){
		"nccl": func(ctx context.Context) (*Measurement, error) {
			return NCCL(ctx, ModeAuto, nccl.Config{}, "nccl-h200x1-proto-auto")
		},
		"bandwidth": func(ctx context.Context) (*Measurement, error) {
			return Bandwidth(ctx, ModeAuto, cuda.BandwidthConfig{}, "bandwidth-h200x1")
		},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			m, err := call(ctx)
			if m != nil {
				err = fmt.Errorf("got a measurement %q", m.Banner())
			}
			done <- err
		}()
		time.Sleep(20 * time.Millisecond)
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "measure: live "+name+": interrupted") {
				t.Errorf("%s: %v, want an interruption", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still waiting 5 s after the interrupt", name)
		}
	}
	<-started
	// The abandoned copies still hold the GPU: the next call waits for them.
	next := make(chan *Measurement, 1)
	go func() {
		m, err := Bandwidth(context.Background(), ModeLive, cuda.BandwidthConfig{}, "")
		if err != nil {
			t.Error(err)
		}
		next <- m
	}()
	select {
	case <-next:
		t.Fatal("a second in-process measurement ran beside the abandoned one")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if m := <-next; m == nil || !m.Live || len(m.Run.Samples) != 1 {
		t.Errorf("after release: %+v", m)
	}
	// Already cancelled: nothing starts.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Latency(ctx, ModeAuto, cuda.LatencyConfig{}, "latency-h200x1"); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v", err)
	}
}

func TestCudaLivePaths(t *testing.T) {
	gpu(t)
	var got cuda.LatencyConfig
	live := cudaRun("latency", probes.Sample{Op: cuda.OpLaunchHost, MedianUS: 2.5})
	measureLatency = func(cfg cuda.LatencyConfig) (*probes.Run, error) {
		got = cfg
		return live, nil
	}
	m, err := Latency(context.Background(), ModeAuto, cuda.LatencyConfig{Device: 0, Iters: 100}, "latency-h200x1")
	if err != nil || !m.Live || m.Run != live || got.Iters != 100 || got.Reps != 0 {
		t.Fatalf("%+v, %v; cuda.MeasureLatency given %+v", m, err, got)
	}
	if b := m.Banner(); !strings.HasPrefix(b, "live on 1x NVIDIA H200, driver 580.159.04, CUDA 13.0, ") || strings.Contains(b, "command") {
		t.Errorf("banner %q", b)
	}
	measureBandwidth = func(cuda.BandwidthConfig) (*probes.Run, error) {
		r := cudaRun("bandwidth")
		r.Error = "cuda: cudaMalloc: error 2 (out of memory)"
		return r, errors.New(r.Error)
	}
	m, err = Bandwidth(context.Background(), ModeAuto, cuda.BandwidthConfig{}, "bandwidth-h200x1")
	if err != nil || m.Live || m.Fallback != "live run failed: cuda: cudaMalloc: error 2 (out of memory)" {
		t.Errorf("a failing live bandwidth in auto mode: %+v, %v", m, err)
	}
	if _, err := Bandwidth(context.Background(), ModeLive, cuda.BandwidthConfig{}, "bandwidth-h200x1"); err == nil || err.Error() != "measure: live bandwidth: live run failed: cuda: cudaMalloc: error 2 (out of memory)" {
		t.Errorf("a failing live bandwidth in live mode: %v", err)
	}
	// CUDA absent when opened is no GPU here; a run that began and then
	// lost CUDA is a failed live run.
	gone := fmt.Errorf("cuda: %w: no CUDA device", probes.ErrUnavailable)
	for _, tt := range []struct {
		run      *probes.Run
		fallback string
	}{
		{nil, "no GPU here: cuda: "},
		{cudaRun("latency"), "live run failed: cuda: "},
	} {
		measureLatency = func(cuda.LatencyConfig) (*probes.Run, error) { return tt.run, gone }
		m, err := Latency(context.Background(), ModeAuto, cuda.LatencyConfig{}, "latency-h200x1")
		if err != nil || m.Live || !strings.HasPrefix(m.Fallback, tt.fallback) || !errors.Is(m.LiveError, probes.ErrUnavailable) {
			t.Errorf("run %v, CUDA unavailable: %+v, %v; want Fallback %q", tt.run != nil, m, err, tt.fallback)
		}
	}
}

// TestGoldens keeps the banner, the text and the HTML as a reader sees
// them (go test -update rewrites them).
func TestGoldens(t *testing.T) {
	ctx := context.Background()
	cases := map[string]func(t *testing.T) *Measurement{
		"recorded_nccl_h200x2": func(t *testing.T) *Measurement {
			m, err := Recorded("nccl-h200x2-proto-auto")
			if err != nil {
				t.Fatal(err)
			}
			return m
		},
		"recorded_bandwidth_h200x1": func(t *testing.T) *Measurement {
			noLive(t)
			m, err := Bandwidth(ctx, ModeRecorded, cuda.BandwidthConfig{}, "bandwidth-h200x1")
			if err != nil {
				t.Fatal(err)
			}
			return m
		},
		"live_nccl": func(t *testing.T) *Measurement {
			gpu(t)
			runChild = func(context.Context, child.Request, child.Options) (*probes.Run, error) { return liveRun(), nil }
			m, err := NCCL(ctx, ModeAuto, nccl.Config{}, "nccl-h200x1-proto-auto")
			if err != nil {
				t.Fatal(err)
			}
			return m
		},
		"fallback_nccl_no_gpu": func(t *testing.T) *Measurement {
			gpu(t)
			cudaInit = func() (int, error) {
				return 0, fmt.Errorf("cuda: %w", &dynlib.NotFoundError{What: "CUDA runtime", Tried: []string{"libcudart.so.13", "libcudart.so.12", "libcudart.so"},
					Reasons: []string{"no such file", "no such file", "no such file"}})
			}
			m, err := NCCL(ctx, ModeAuto, nccl.Config{}, "nccl-h200x1-proto-auto")
			if err != nil {
				t.Fatal(err)
			}
			return m
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			m := build(t)
			got := "== banner\n" + m.Banner() + "\n== text/plain\n" + m.String() + "\n== text/html\n" + m.HTML() + "\n"
			golden.Check(t, filepath.Join("testdata", name+".golden"), []byte(got))
		})
	}
}

func TestHTMLEscapesAndLabels(t *testing.T) {
	m := &Measurement{Run: liveRun(), Fallback: `live run failed: <script>alert("x")</script> & more`}
	m.Run.Command = []string{"commlab", "probe", "nccl", "--env", "A=<b>"}
	h := m.HTML()
	if strings.Contains(h, "<script>") || strings.Contains(h, "<b>") || !strings.Contains(h, "&lt;script&gt;") || !strings.Contains(h, "RECORDED") {
		t.Errorf("HTML does not escape or label: %s", h)
	}
	m.Live, m.Fallback = true, ""
	if h := m.HTML(); !strings.Contains(h, "LIVE") || strings.Contains(h, "RECORDED") || !strings.Contains(h, liveColour) {
		t.Errorf("live HTML: %s", h)
	}
	var zero *Measurement
	if zero.Banner() != "no run" || zero.String() != "no run" || !strings.Contains(zero.HTML(), "no run") {
		t.Errorf("a nil measurement: %q", zero.Banner())
	}
}

func TestShellCommand(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"commlab", "probe", "nccl", "-b", "8", "--save", "/root/out/r.json", "--proto", "LL"}, "commlab probe nccl -b 8 --proto LL"},
		{[]string{"commlab", "probe", "nccl", "--save=/x.json", "--env", "NCCL_ALGO=Ring"}, "commlab probe nccl --env NCCL_ALGO=Ring"},
		{[]string{"python3", "bench.py", "--what", "copy nccl", "--debug", ""}, "python3 bench.py --what 'copy nccl' --debug ''"},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := shellCommand(tt.argv); got != tt.want {
			t.Errorf("shellCommand(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}
