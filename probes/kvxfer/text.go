package kvxfer

import (
	"fmt"
	"io"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/units"
)

// WriteTable prints a KV transfer run as `commlab probe kv-nixl` does:
// per operation and size the time, the rate and the bytes check.
func WriteTable(w io.Writer, r *probes.Run) {
	fmt.Fprintf(w, "%-10s %-9s %10s %12s %12s %s\n", "op", "label", "bytes", "time", "rate", "bytes check")
	for _, s := range r.Samples {
		check := "ok"
		if s.Wrong > 0 {
			check = "WRONG"
		}
		fmt.Fprintf(w, "%-10s %-9s %10s %12s %12s %s\n", s.Op, s.Label, units.FormatSize(s.Bytes),
			units.Duration(s.MedianUS*1e-6), units.FormatRate(s.AlgBW*1e9), check)
	}
}
