package measure

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/probes/child"
	"github.com/commlab/commlab/probes/cuda"
	"github.com/commlab/commlab/probes/nccl"

	"github.com/commlab/commlab/probes/hwtest"
)

// TestLiveOnGPU measures for real where a GPU is present: copies and
// launches in this process, an NCCL sweep in the worker child of the
// commlab binary that COMMLAB_BINARY names (this test binary is not
// commlab, so without it auto mode must say so and fall back).
func TestLiveOnGPU(t *testing.T) {
	if !gpuHere() {
		hwtest.Skip(t, hwtest.GPU, "no GPU here: the live paths are covered by fakes in the other tests")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bw, err := Bandwidth(ctx, ModeLive, cuda.BandwidthConfig{Sizes: []int64{1 << 20, 64 << 20}, Ops: []string{cuda.OpH2DPinned, cuda.OpD2D}, Devices: []int{0}}, "bandwidth-h200x1")
	if err != nil {
		t.Fatal(err)
	}
	if !bw.Live || len(bw.Run.Samples) != 4 || !strings.HasPrefix(bw.Banner(), "live on ") {
		t.Errorf("bandwidth: %s", bw)
	}
	t.Log(bw)
	lat, err := Latency(ctx, ModeAuto, cuda.LatencyConfig{Iters: 50, Reps: 3}, "latency-h200x1")
	if err != nil || !lat.Live || lat.Fallback != "" {
		t.Fatalf("latency: %v, %v", lat, err)
	}
	t.Log(lat)
	if _, _, err := nccl.Version(); err != nil {
		hwtest.Skipf(t, hwtest.GPU, "no NCCL here: %v", err)
	}
	cfg := nccl.Config{Sizes: []int64{8, 1 << 20, 64 << 20}, Iters: 5, Reps: 3, Check: true, Env: map[string]string{"NCCL_PROTO": "Simple", "NCCL_DEBUG": "INFO"}}
	auto, err := NCCL(ctx, ModeAuto, cfg, "nccl-h200x1-proto-Simple")
	if err != nil || auto.Live || !strings.HasPrefix(auto.Fallback, "no NCCL worker: ") {
		t.Errorf("auto NCCL from a test binary: %v, %v; want a fallback naming the missing worker", auto, err)
	} else {
		t.Log(auto.Banner())
	}
	bin := os.Getenv("COMMLAB_BINARY")
	if bin == "" {
		hwtest.Skip(t, hwtest.GPU, "COMMLAB_BINARY unset: no commlab binary to run the NCCL worker")
	}
	m, err := Runner{NCCLCommand: []string{bin, child.Verb}}.NCCL(ctx, ModeLive, cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	if !m.Live || m.Run.NCCL == "" || m.Run.Env["NCCL_PROTO"] != "Simple" || len(m.Run.Samples) != 6 || m.Run.Logs["nccl-debug"] == "" {
		t.Errorf("live NCCL: %s (env %v, %d bytes of log)", m, m.Run.Env, len(m.Run.Logs["nccl-debug"]))
	}
	for _, s := range m.Run.Samples {
		if s.Wrong != 0 || s.MedianUS <= 0 {
			t.Errorf("live NCCL sample: %s", s)
		}
	}
	t.Log(m)
}
