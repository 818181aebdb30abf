package c10dlab

import (
	"fmt"
	"io"
	"strings"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/units"
)

// WriteSummary writes what each part found, as text.
func (r *Result) WriteSummary(w io.Writer) error {
	return probes.WriteReport(w, r.Run, r.Errors, func(b *strings.Builder) {
		if p := r.Store; p != nil {
			fmt.Fprintf(b, "\nstore: %d ranks\n", p.World)
			for _, rk := range p.Ranks {
				for _, op := range rk.Ops {
					if op.Op == "mark" {
						fmt.Fprintf(b, "  rank %d %9s  -- %s\n", rk.Rank, units.Readable(op.TMS, "ms"), op.Key)
						continue
					}
					size := ""
					if op.Bytes > 0 {
						size = units.Readable(float64(op.Bytes), "B")
					}
					fmt.Fprintf(b, "  rank %d %9s  %-11s %-28s %s\n", rk.Rank, units.Readable(op.TMS, "ms"), op.Op, op.Key, size)
				}
			}
			if p.Error != "" {
				fmt.Fprintf(b, "  error: %s\n", p.Error)
			}
		}
		if p := r.Coalesce; p != nil {
			fmt.Fprintf(b, "\ncoalesce: %d ranks, op %s; one group's median time (host: issuing it)\n", p.World, p.Op)
			fmt.Fprintf(b, "  %-22s %6s %10s %12s %12s %8s\n", "method", "count", "each", "host", "total", "kernels")
			for _, row := range p.Rows {
				if row.Error != "" {
					fmt.Fprintf(b, "  %-22s %6d %10s  %s\n", row.Method, row.Count, units.Readable(float64(row.Bytes), "B"), row.Error)
					continue
				}
				fmt.Fprintf(b, "  %-22s %6d %10s %12s %12s %8d\n", row.Method, row.Count, units.Readable(float64(row.Bytes), "B"),
					units.Readable(row.HostUS, "us"), units.Readable(row.TotalUS, "us"), row.GPUKernels)
			}
			if a := p.AfterFailure; a != nil {
				fmt.Fprintf(b, "  after %s failed, an all_reduce of ones gave %g (want %g), returned %s\n", a.Method, a.AllReduceOfOnes, a.Expected, a.Returned)
			}
			if p.Error != "" {
				fmt.Fprintf(b, "  error: %s\n", p.Error)
			}
		}
		if p := r.Timeout; p != nil {
			fmt.Fprintf(b, "\ntimeout: %d ranks, timeout %g s, the collective held %g s past it", p.World, p.TimeoutS, p.StallS)
			if p.DumpWaitMS > 0 {
				fmt.Fprintf(b, ", TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC=%g", p.DumpWaitMS)
			}
			if p.Concurrent {
				b.WriteString(", the modes side by side")
			}
			b.WriteString("\n")
			for _, run := range p.Runs {
				fmt.Fprintf(b, "  TORCH_NCCL_ASYNC_ERROR_HANDLING=%s: %d Flight Recorder dump(s)\n", run.Mode, len(run.FRDumps))
				for _, rk := range run.Ranks {
					fmt.Fprintf(b, "    rank %d: %s; last reached %q at %g s\n", rk.Rank, rk.Exit, rk.Last().What, rk.Last().TS)
					for _, m := range rk.Marks {
						if m.Error != "" {
							fmt.Fprintf(b, "      %s at %g s: %s\n", m.What, m.TS, m.Error)
						}
					}
				}
			}
			if p.Error != "" {
				fmt.Fprintf(b, "  error: %s\n", p.Error)
			}
		}
		if p := r.Compile; p != nil {
			fmt.Fprintf(b, "\ncompile: eager result %s; Dynamo's graph: %s\n", p.EagerResultType, strings.Join(p.DynamoOps, " -> "))
			for _, name := range InductorConfigs {
				if c, ok := p.Inductor[name]; ok {
					if c.Error != "" {
						fmt.Fprintf(b, "  Inductor (%s): %s\n", name, c.Error)
						continue
					}
					fmt.Fprintf(b, "  Inductor (%s): %s\n", name, strings.Join(c.Ops, " -> "))
				}
			}
			if p.Error != "" {
				fmt.Fprintf(b, "  error: %s\n", p.Error)
			}
		}
	})
}
