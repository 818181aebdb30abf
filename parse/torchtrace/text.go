package torchtrace

import (
	"fmt"
	"io"
	"strings"

	"github.com/commlab/commlab/parse"
)

// Report is what `commlab parse torch-trace` prints: the trace's counts
// and the overlap analysis.
type Report struct {
	Events       int            `json:"events"`
	Activities   int            `json:"activities"`
	Unclassified int            `json:"unclassified"`
	Devices      map[int]string `json:"devices,omitempty"`
	Within       string         `json:"within,omitempty"`
	Analysis     *Analysis      `json:"analysis"`
}

// Report analyses the trace with o and returns it with the trace's counts.
func (t *Trace) Report(o Options) (*Report, error) {
	r := &Report{Events: t.Events, Activities: len(t.Activities), Unclassified: t.Unclassified, Devices: t.Devices, Within: o.Within}
	an, err := t.Analyze(o)
	r.Analysis = an
	return r, err
}

// ms formats microseconds as milliseconds.
func ms(us float64) string { return fmt.Sprintf("%.3f ms", us/1e3) }

// WriteSummary writes the report as text, under the input's name.
func (r *Report) WriteSummary(w io.Writer, name string) error {
	return parse.WriteBuffered(w, func(w io.Writer) {
		fmt.Fprintf(w, "torch.profiler trace %s: %d events, %d GPU activities", name, r.Events, r.Activities)
		if r.Unclassified > 0 {
			fmt.Fprintf(w, " (%d without their launch call: classified by name)", r.Unclassified)
		}
		fmt.Fprintln(w)
		an := r.Analysis
		if an == nil {
			return
		}
		dev := fmt.Sprintf("GPU %d", an.Device)
		if n := r.Devices[an.Device]; n != "" {
			dev += " (" + n + ")"
		}
		where := "the whole trace"
		if r.Within != "" {
			where = fmt.Sprintf("%d window(s) of %q", len(an.Windows), r.Within)
		}
		fmt.Fprintf(w, "%s, %s: span %s, busy %s, idle %s\n", dev, where, ms(an.SpanUS), ms(an.BusyUS), ms(an.IdleUS))
		for _, s := range an.Streams {
			fmt.Fprintf(w, "  stream %-4d %-7s %3d kernels %3d memcpy %3d memset  busy %s", s.Stream, s.Role, s.Kernels, s.Memcpys, s.Memsets, ms(s.BusyUS))
			if len(s.Ops) > 0 {
				fmt.Fprintf(w, "  comm %s by %s", ms(s.CommUS), strings.Join(s.Ops, ", "))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "communication %s: under compute %s, alone %s; overlap_fraction %.3f\n",
			ms(an.CommUS), ms(an.CommUnderComputeUS), ms(an.CommAloneUS), an.OverlapFraction)
		fmt.Fprintf(w, "compute %s, other copies and memsets %s\n", ms(an.ComputeUS), ms(an.OtherUS))
		fmt.Fprintf(w, "idle gaps: %d, %s in all", an.GapCount, ms(an.GapUS))
		if len(an.Gaps) > 0 {
			fmt.Fprintf(w, "; longest %s at %s", ms(an.Gaps[0].DurUS()), ms(an.Gaps[0].StartUS))
		}
		fmt.Fprintln(w)
	})
}
