package overlap

import (
	"fmt"
	"math"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/prose"
)

// Model is what the overlap model is fed for chapter 5's Compare: numbers
// the benchmark did not measure, so that its step times are a prediction.
type Model struct {
	// CopyRate is a device copy's rate, bytes per second (chapter 2's
	// recorded copy): on one GPU both the all_gather and the AVG
	// all_reduce read their bytes once and write them once, as a copy does.
	CopyRate float64
	// PeakFLOPs is the GPU's dense peak for the GEMMs' type, FLOP/s (a
	// datasheet's).
	PeakFLOPs float64
	// GEMM is the GEMMs' dimension N (N x N by N x N).
	GEMM float64
	// Step is the overlap model: the step time of compute c and a
	// collective m of which the fraction f runs under compute (the
	// costmodel's StepOverlap; probes do not import the costmodel).
	Step func(c, m, f float64) (float64, error)
}

// LargestCopy returns the rate of the largest device-to-device copy in a
// bandwidth run (bytes per second) and its size.
func LargestCopy(run *probes.Run) (rate float64, bytes int64) {
	for _, s := range run.Samples {
		if s.Op == "d2d" && s.Bytes >= bytes {
			rate, bytes = s.AlgBW*1e9, s.Bytes
		}
	}
	return rate, bytes
}

// GEMMTime is one GEMM's time at the peak, seconds.
func (m Model) GEMMTime() float64 { return 2 * m.GEMM * m.GEMM * m.GEMM / m.PeakFLOPs }

// modelFraction is the share of the collective a variant's code lets run
// under compute: 1 when the GEMMs are queued while it runs, 0 when a
// wait(), a synchronize or a cudaFree makes one side wait for the other,
// and for item_output what its one GEMM can cover. ok is false for a
// variant the model has no fraction for.
func modelFraction(name string, gemmMS, commMS float64) (f float64, ok bool) {
	switch name {
	case "overlap", "item_compute":
		return 1, true
	case "item_output":
		return math.Min(1, gemmMS/commMS), true
	case "wait_early", "sync", "empty_cache", "alloc_retry":
		return 0, true
	}
	return 0, false
}

// Compare sets the model beside the measurement for one set of variants:
// a line with the model's C (the step's GEMMs at the peak) and M (the
// collective at the copy rate) and the measured ones, and a table of each
// variant's model and measured overlap fraction and step, their ratio, the
// step's change against overlap and the GEMMs' time in the trace. The two
// baselines have no overlap to predict: their model step is C or M alone.
// Variants skip accepts are left out.
func (r *Result) Compare(set string, m Model, skip func(Variant) bool) (string, *prose.Table, error) {
	cal := r.Calibration[set]
	k := cal["gemms_per_step"]
	c := k * m.GEMMTime() * 1e3                  // ms
	comm := cal["comm_bytes"] / m.CopyRate * 1e3 // ms
	t := prose.NewTable("variant", "model f", "model step", "measured f", "measured step", "measured / model", "than overlap", "GEMM time in the trace")
	ref := r.VariantIn(set, "overlap")
	for _, v := range r.Variants {
		if v.Set != set || v.Analysis == nil || (skip != nil && skip(v)) {
			continue
		}
		fs, mf := "", ""
		step := c
		if v.Name == "comm_only" {
			step = comm
		}
		if v.Name != "compute_only" && v.Name != "comm_only" {
			pf, ok := modelFraction(v.Name, c/k, comm)
			if !ok {
				continue
			}
			var err error
			if step, err = m.Step(c, comm, pf); err != nil {
				return "", nil, fmt.Errorf("overlap: %s: %w", v.Name, err)
			}
			fs, mf = fmt.Sprintf("%.2f", pf), fmt.Sprintf("%.2f", v.Analysis.OverlapFraction)
		}
		than := ""
		if ref != nil && v.Name != "compute_only" && v.Name != "comm_only" && v.Name != "overlap" {
			than = prose.Ms(v.StepMS - ref.StepMS)
			if v.StepMS > ref.StepMS {
				than = "+" + than
			}
		}
		gemm := prose.Us(v.Analysis.ComputeUS / float64(len(v.Analysis.Windows)))
		t.Row(v.Name, fs, prose.Ms(step), mf, prose.Ms(v.StepMS), fmt.Sprintf("%.2f", v.StepMS/step), than, gemm)
	}
	measured := func(name string) string {
		if v := r.VariantIn(set, name); v != nil {
			return prose.Ms(v.StepMS)
		}
		return "not measured"
	}
	head := fmt.Sprintf("%s (%s, %.0f GEMMs a step): model C = %s, M = %s; measured C = %s, M = %s", set, prose.Size(cal["comm_bytes"]), k,
		prose.Ms(c), prose.Ms(comm), measured("compute_only"), measured("comm_only"))
	return head, t, nil
}
