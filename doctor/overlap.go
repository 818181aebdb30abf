package doctor

import (
	"fmt"
	"io"

	"github.com/commlab/commlab/parse/torchtrace"
)

// Overlap thresholds: communication left exposed for more than
// exposedWarn of the traced span, with less than overlapWarn of it under
// compute, is time the step could get back (chapter 5's overlap model).
const (
	overlapWarn = 0.5
	exposedWarn = 0.10
)

// CheckOverlap reads a torch.profiler trace's analysis: how much of the
// communication ran under compute, and how much of the step it left
// exposed.
func CheckOverlap(an *torchtrace.Analysis, name string) Verdict {
	v := Verdict{Layer: LayerFramework, Check: "overlap", Chapter: chapterPyTorch}
	if an == nil || an.SpanUS <= 0 {
		return v.judge(Skipped, name+": no GPU activity to read", "")
	}
	v.Evidence = []string{
		fmt.Sprintf("%s: span %.3f ms on GPU %d, %d activities", name, an.SpanUS/1e3, an.Device, an.Activities),
		fmt.Sprintf("communication %.3f ms, %.3f ms of it under compute, %.3f ms alone; compute %.3f ms; idle %.3f ms",
			an.CommUS/1e3, an.CommUnderComputeUS/1e3, an.CommAloneUS/1e3, an.ComputeUS/1e3, an.IdleUS/1e3),
	}
	if an.CommUS <= 0 {
		return v.judge(Skipped, name+": no communication in the trace (no NCCL or c10d work launched)", "")
	}
	exposed := an.CommAloneUS / an.SpanUS
	summary := fmt.Sprintf("overlap_fraction %.2f: %.0f%% of communication ran under compute; %.0f%% of the traced time is communication alone",
		an.OverlapFraction, 100*an.OverlapFraction, 100*exposed)
	if an.OverlapFraction < overlapWarn && exposed > exposedWarn {
		return v.judge(Warn, summary, "find what serialises the step (an .item(), a synchronize, a wait() before the compute, the allocator freeing) in the trace's CPU ops; chapter 5 measures each")
	}
	return v.judge(OK, summary, "")
}

// TraceOverlap reads a torch.profiler Chrome trace (JSON, gzipped or not)
// and judges its overlap on the lowest GPU it shows (CheckOverlap).
func TraceOverlap(r io.Reader, name string) (Verdict, error) {
	tr, err := torchtrace.Parse(r)
	if err != nil {
		return Verdict{}, fmt.Errorf("doctor: %s: %w", name, err)
	}
	an, err := tr.Analyze(torchtrace.Options{Device: -1})
	if err != nil {
		return Verdict{}, fmt.Errorf("doctor: %s: %w", name, err)
	}
	return CheckOverlap(an, name), nil
}
