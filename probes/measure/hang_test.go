package measure_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes/measure"
	"github.com/commlab/commlab/probes/recorded"
)

func TestHangLabRecorded(t *testing.T) {
	h, err := measure.HangLab(context.Background(), measure.ModeRecorded, "count", 0, "hang-count")
	if err != nil {
		t.Fatal(err)
	}
	if h.M.Live || h.M.Recorded != "hang-count" || h.Lab.Scenario != "count" || len(h.Lab.Dumps) != 2 {
		t.Errorf("recorded hang: %+v", h.M)
	}
	b := h.M.Banner()
	for _, w := range []string{"recorded on 1x NVIDIA H200", "PyTorch 2.11.0+cu130, gloo, 2 CPU ranks", "2026-12-01", "--scenario count"} {
		if !strings.Contains(b, w) {
			t.Errorf("banner %q lacks %q", b, w)
		}
	}
	if !strings.Contains(h.String(), "rank 1: finished its loop") {
		t.Errorf("String: %s", h)
	}
}

func TestHangLabErrors(t *testing.T) {
	if _, err := measure.HangLab(context.Background(), measure.ModeRecorded, "count", 0, "hang-nope"); !errors.Is(err, recorded.ErrNotFound) {
		t.Errorf("unknown recording: %v", err)
	}
	if _, err := measure.HangLab(context.Background(), "sometimes", "count", 0, "hang-count"); err == nil {
		t.Error("bad mode accepted")
	}
	if _, err := measure.HangLab(context.Background(), measure.ModeRecorded, "count", 0, ""); err == nil {
		t.Error("recorded mode without a name accepted")
	}
}

// In auto mode on a machine without PyTorch the recording shows, and the
// banner says why.
func TestHangLabAutoFallsBack(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no python3 at all
	h, err := measure.HangLab(context.Background(), measure.ModeAuto, "count", 10, "hang-count")
	if err != nil {
		t.Fatal(err)
	}
	if h.M.Live || !strings.Contains(h.M.Fallback, "no PyTorch here") {
		t.Errorf("fallback %q", h.M.Fallback)
	}
	if _, err := measure.HangLab(context.Background(), measure.ModeLive, "count", 10, "hang-count"); err == nil || !strings.Contains(err.Error(), "no PyTorch here") {
		t.Errorf("live without PyTorch: %v", err)
	}
}
