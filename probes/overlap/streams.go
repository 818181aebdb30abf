package overlap

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse/torchtrace"
	"github.com/commlab/commlab/prose"
)

// StreamTable reads a whole trace's analysis as chapter 5 shows a
// published one: a Markdown table of the streams (role, kernels, busy
// time, the communication ops launched on each), then the NCCL kernels by
// name (arguments cut) and the overlap in one sentence: communication
// time, the part under compute and the part alone, the overlap fraction,
// compute and idle time.
func StreamTable(tr *torchtrace.Trace, an *torchtrace.Analysis) string {
	kernels := map[string]int{}
	for _, a := range tr.Activities {
		if a.Role == "comm" {
			kernels[strings.SplitN(a.Name, "(", 2)[0]]++
		}
	}
	var words []string
	for name, n := range kernels {
		words = append(words, fmt.Sprintf("%d x `%s`", n, name))
	}
	sort.Strings(words)
	t := prose.NewTable("stream", "role", "kernels", "busy", "communication ops launched on it")
	for _, s := range an.Streams {
		t.Row(strconv.Itoa(s.Stream), s.Role, prose.Num(float64(s.Kernels)), prose.Secs(s.BusyUS*1e-6), strings.Join(s.Ops, ", "))
	}
	return t.Markdown() + fmt.Sprintf("\nNCCL kernels: %s. Over %s of trace: communication %s, of it %s under compute and %s alone (overlap fraction %.3f); compute %s; the GPU idle %s.\n",
		strings.Join(words, ", "), prose.Secs(an.SpanUS*1e-6), prose.Secs(an.CommUS*1e-6), prose.Secs(an.CommUnderComputeUS*1e-6),
		prose.Secs(an.CommAloneUS*1e-6), an.OverlapFraction, prose.Secs(an.ComputeUS*1e-6), prose.Secs(an.IdleUS*1e-6))
}
