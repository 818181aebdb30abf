package overlap

import (
	"fmt"
	"io"
	"strings"

	"github.com/commlab/commlab/probes"
)

// WriteSummary writes the variants and the core-question cases as text.
func (r *Result) WriteSummary(w io.Writer) error {
	return probes.WriteReport(w, r.Run, r.Errors, func(b *strings.Builder) {
		for _, set := range r.Sets() {
			coll := ""
			if v := r.Variants; len(v) > 0 {
				for _, x := range v {
					if x.Set == set {
						coll = x.Coll
						break
					}
				}
			}
			fmt.Fprintf(b, "%s (%s):", set, coll)
			if c := r.Calibration[set]; c != nil {
				fmt.Fprintf(b, " one GEMM %.3f ms (%.0f TFLOP/s), the collective alone %.3f ms (%.0f GB/s), %.0f GEMMs per step",
					c["gemm_ms"], c["gemm_tflops"], c["comm_ms"], c["comm_gbps"], c["gemms_per_step"])
			}
			b.WriteString("\n")
			fmt.Fprintf(b, "%-13s %9s %9s %9s %9s %8s %9s\n", "variant", "step ms", "comm ms", "under ms", "alone ms", "overlap", "idle ms")
			for _, v := range r.Variants {
				if v.Set != set {
					continue
				}
				fmt.Fprintf(b, "%-13s %9.3f", v.Name, v.StepMS)
				if a := v.Analysis; a != nil {
					steps := float64(max(len(a.Windows), 1))
					fmt.Fprintf(b, " %9.3f %9.3f %9.3f %8.3f %9.3f", a.CommUS/1e3/steps, a.CommUnderComputeUS/1e3/steps,
						a.CommAloneUS/1e3/steps, a.OverlapFraction, a.IdleUS/1e3/steps)
				}
				if v.AllocRetries > 0 {
					fmt.Fprintf(b, "  (%d allocator retries)", v.AllocRetries)
				}
				b.WriteString("\n")
			}
			b.WriteString("(comm, under, alone and idle per profiled step; step ms from unprofiled steps)\n")
		}
		for _, c := range r.Cases {
			fmt.Fprintf(b, "case %s [%s]: ", c.Name, c.Setting)
			if c.Error != "" {
				fmt.Fprintf(b, "failed: %s\n", c.Error)
				continue
			}
			t0 := c.CallStartUS
			fmt.Fprintf(b, "call returned at +%.1f us", c.CallReturnUS-t0)
			if c.WaitReturnUS > 0 {
				fmt.Fprintf(b, ", wait() %.1f..%.1f us", c.WaitStartUS-t0, c.WaitReturnUS-t0)
			}
			if c.CommActivities > 0 {
				fmt.Fprintf(b, "; GPU work %.1f..%.1f us (started by return: %v", c.CommStartUS-t0, c.CommEndUS-t0, c.StartedByReturn())
				if c.WaitReturnUS > 0 {
					fmt.Fprintf(b, ", finished by wait's return: %v", c.FinishedByWaitReturn())
				}
				b.WriteString(")")
			} else {
				b.WriteString("; no GPU work launched")
			}
			if c.ModifyEndUS > 0 {
				fmt.Fprintf(b, "; write to the input %.1f..%.1f us (races the collective: %v)", c.ModifyStartUS-t0, c.ModifyEndUS-t0, c.ModifyRacesComm())
			}
			if c.NewEndUS > 0 {
				fmt.Fprintf(b, "; fill of the new tensor %.1f..%.1f us (during the collective: %v)", c.NewStartUS-t0, c.NewEndUS-t0, c.NewRacesComm())
			}
			for _, k := range []string{"out_modified_elements", "new_tensor_reuses_input_memory", "out_elements_from_new_tensor"} {
				if v, ok := c.Facts[k]; ok {
					fmt.Fprintf(b, "; %s=%v", k, v)
				}
			}
			b.WriteString("\n")
		}
	})
}
