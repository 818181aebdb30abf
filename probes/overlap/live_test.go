package overlap

import (
	"context"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/probes/measure"

	"github.com/commlab/commlab/probes/hwtest"
)

// Where python3 has no PyTorch with a GPU, auto mode shows the recording
// and says why.
func TestMeasureAutoFallsBack(t *testing.T) {
	ctx := context.Background()
	if launch.TorchCUDA(ctx) == nil {
		t.Skip("PyTorch with a GPU is here: auto mode runs live (TestLiveRun covers it)")
	}
	m, err := Measure(ctx, measure.ModeAuto, Config{}, RecordedName)
	if err != nil {
		t.Fatal(err)
	}
	if m.Live || m.Fallback == "" || !strings.Contains(m.Banner(), "recorded on 1x NVIDIA H200") {
		t.Errorf("banner %q, fallback %q", m.Banner(), m.Fallback)
	}
	if _, err := Measure(ctx, measure.ModeLive, Config{}, RecordedName); err == nil {
		t.Error("live mode without PyTorch did not fail")
	}
}

// On a machine with PyTorch and a GPU, a small run of the benchmark reads
// back with traces that hold the collective on its own stream.
func TestLiveRun(t *testing.T) {
	ctx := context.Background()
	if err := launch.TorchCUDA(ctx); err != nil {
		hwtest.Skipf(t, hwtest.Torch, "no live run here: %v", err)
	}
	res, err := Run(ctx, Config{What: "variants,cq", Args: []string{"--bytes", "67108864", "--cq-bytes", "67108864",
		"--gemm", "1024", "--steps", "2", "--trace-steps", "1", "--variants", "compute_only,comm_only,overlap,wait_early"}})
	if err != nil {
		t.Fatal(err)
	}
	over := res.Variant("overlap")
	if over == nil || over.Analysis == nil || over.Analysis.CommUS <= 0 || len(res.Cases) == 0 {
		t.Fatalf("live result %+v", res)
	}
	if c := res.Case("all_gather", "default"); c == nil || c.CommActivities == 0 || c.CommEndUS <= c.CommStartUS {
		t.Errorf("core question live: %+v", c)
	}
}
