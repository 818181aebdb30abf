package probes

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/commlab/commlab/units"
)

// WriteRunText prints a run as the probe verbs do without --json: its
// provenance, the GPUs' L2 cache when recorded, its notes, each line after
// "# ", then the probe's own table.
func WriteRunText(w io.Writer, run *Run, table func(io.Writer, *Run)) {
	fmt.Fprintln(w, "#", run.Provenance())
	if l2 := l2Line(run); l2 != "" {
		fmt.Fprintln(w, "#", l2)
	}
	for _, n := range run.Notes {
		fmt.Fprintln(w, "# note:", n)
	}
	table(w, run)
}

// l2Line says how large the GPUs' L2 cache is, where copies stop fitting
// in it; empty for runs that did not record it.
func l2Line(run *Run) string {
	if run.L2Bytes() <= 0 {
		return ""
	}
	var sizes []string
	for _, f := range strings.Split(run.Settings[SettingL2Bytes], ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return ""
		}
		sizes = append(sizes, units.FormatSize(n))
	}
	return "L2 cache per GPU: " + strings.Join(sizes, ", ") + " (copies whose buffers fit may not reach HBM)"
}

// WriteComparison prints the comparison of a run with a reference run
// (Compare), one row per sample in common and the count within criteria.
func WriteComparison(w io.Writer, cs []Comparison) {
	if len(cs) == 0 {
		fmt.Fprintln(w, "# comparison: no samples in common")
		return
	}
	pass := 0
	fmt.Fprintf(w, "# comparison with the reference (ratio = ours / reference time)\n%-16s %12s %-4s %12s %12s %8s %-10s %s\n", "op", "bytes", "mode", "ours(µs)", "ref(µs)", "ratio", "criteria", "verdict")
	for _, c := range cs {
		v := "FAIL"
		if c.Pass {
			v, pass = "ok", pass+1
		}
		fmt.Fprintf(w, "%-16s %12d %-4s %12.3f %12.3f %8.4f %-10s %s\n", c.Op, c.Bytes, Placement(c.InPlace), c.OursUS, c.RefUS, c.Ratio, c.Criteria, v)
	}
	fmt.Fprintf(w, "# %d of %d within criteria\n", pass, len(cs))
}

// Placement names a collective's mode column: "in" for in-place, "out"
// for out-of-place.
func Placement(inPlace bool) string {
	if inPlace {
		return "in"
	}
	return "out"
}
