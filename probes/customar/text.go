package customar

import (
	"fmt"
	"io"

	"github.com/commlab/commlab/probes"
)

// WriteTable prints a custom all-reduce run as `commlab probe
// custom-allreduce` does: the placement, then per algorithm and size the
// time, algbw, busbw and whether every rank's sums were right.
func WriteTable(w io.Writer, r *probes.Run) {
	fmt.Fprintf(w, "# %s ranks, placement %s, grid %s x %s\n", r.Settings["ranks"], r.Settings["placement"], r.Settings["blocks"], r.Settings["threads"])
	fmt.Fprintf(w, "%-8s %10s %6s %12s %10s %10s %s\n", "algo", "bytes", "iters", "time(µs)", "algbw", "busbw", "sums")
	for _, s := range r.Samples {
		check := "ok"
		switch {
		case s.Wrong < 0:
			check = "unchecked"
		case s.Wrong > 0:
			check = fmt.Sprintf("WRONG on %d ranks", s.Wrong)
		}
		fmt.Fprintf(w, "%-8s %10d %6d %12.2f %10.3f %10.3f %s\n", s.Label, s.Bytes, s.Iters, s.MedianUS, s.AlgBW, s.BusBW, check)
	}
}
