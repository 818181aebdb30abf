package doctor

// This file finds dips: runs of sizes whose value (the measured/model
// ratio, or busbw itself when there is no model) falls well below what
// the sizes on both sides reach.

import (
	"fmt"
	"math"
	"strings"

	"github.com/commlab/commlab/units"
)

// dipVerdicts finds runs of sizes whose measured/model ratio falls well
// below the best ratio of their neighbours on both sides.
func dipVerdicts(rep *CurveReport, opt CurveOptions) []Verdict {
	r, c, m := rep.Ratio, rep.Curve, rep.Model
	b, _ := BranchByID(BranchDip)
	// The latency-bound sizes are left out: there a few us of noise look
	// like dips.
	depth := dipDepths(r, opt.DipSpan, func(i int) bool { return c.Points[i].Bytes <= rep.FloorUpTo })
	var out []Verdict
	runs := dipRuns(depth, opt.DipDepth)
	for _, run := range runs {
		i, j, worst := run.first, run.last, run.worst
		lo, hi := c.Points[i].Bytes, c.Points[j].Bytes
		v := Verdict{Layer: LayerCollective, Check: BranchDip, Status: Warn, Chapter: ChapterCurve,
			Summary: fmt.Sprintf("dip at %s: busbw %s at %s, %s of what its neighbours reach against the model", sizeRange(lo, hi),
				units.Readable(c.Points[worst].BusBW, "GB/s"), units.Readable(c.Points[worst].Bytes, "B"), pct(depth[worst])),
			Evidence: []string{fmt.Sprintf("measured/model ratio %.2f at %s; the model picks %s/%s there", r[worst], units.Readable(c.Points[worst].Bytes, "B"), m.Points[worst].Algorithm, m.Points[worst].Protocol)},
			Next:     "check " + strings.Join(b.Checks, "; ")}
		if near := nearSwitch(m, i, j); near != "" {
			v.Evidence = append(v.Evidence, "the model switches "+near)
		} else if len(rep.Switches) > 0 {
			v.Evidence = append(v.Evidence, "no model switch near it (the model switches "+strings.Join(rep.Switches, ", ")+"): NCCL's own switch is elsewhere than its model's, or something else runs there")
		}
		out = append(out, v)
	}
	for _, v := range slowerThanLarger(c, runs, opt, func(i int) bool { return c.Points[i].Bytes <= rep.FloorUpTo }) {
		if near := nearSwitch(m, v.first, v.last); near != "" {
			v.Evidence = append(v.Evidence, "the model switches "+near)
		}
		out = append(out, v.Verdict)
	}
	if len(out) == 0 {
		out = append(out, Verdict{Layer: LayerCollective, Check: BranchDip, Status: OK, Chapter: ChapterCurve,
			Summary: fmt.Sprintf("no dip: no size below %s of its neighbours' ratio to the model", pct(opt.DipDepth))})
		if len(rep.Switches) > 0 {
			out[0].Evidence = []string{"the model switches " + strings.Join(rep.Switches, ", ")}
		}
	}
	return out
}

// dipDepths is each value over the smaller of the best values within span
// places on its left and on its right: how far it falls below what its
// neighbours on both sides reach. The ends, the places leftOut names and
// places without a reference get 1 (no dip).
func dipDepths(values []float64, span int, leftOut func(i int) bool) []float64 {
	span = max(span, 1)
	depth := make([]float64, len(values))
	for i := range values {
		depth[i] = 1
		if i == 0 || i == len(values)-1 || leftOut(i) {
			continue
		}
		left, right := 0.0, 0.0
		for j := max(0, i-span); j < i; j++ {
			left = math.Max(left, values[j])
		}
		for j := i + 1; j <= min(len(values)-1, i+span); j++ {
			right = math.Max(right, values[j])
		}
		if ref := math.Min(left, right); ref > 0 {
			depth[i] = values[i] / ref
		}
	}
	return depth
}

// dipRun is one dip: consecutive places whose depth is below the limit,
// first to last, and the deepest of them.
type dipRun struct{ first, last, worst int }

// dipRuns groups the places whose depth is below limit into dips.
func dipRuns(depth []float64, limit float64) []dipRun {
	var out []dipRun
	for i := 0; i < len(depth); {
		if depth[i] >= limit {
			i++
			continue
		}
		run := dipRun{i, i, i}
		for run.last+1 < len(depth) && depth[run.last+1] < limit {
			run.last++
			if depth[run.last] < depth[run.worst] {
				run.worst = run.last
			}
		}
		out = append(out, run)
		i = run.last + 1
	}
	return out
}

// nearSwitch names a model switch within one size step of points i..j.
func nearSwitch(m Model, i, j int) string {
	for k := max(1, i-1); k <= min(len(m.Points)-1, j+1); k++ {
		a, b := m.Points[k-1], m.Points[k]
		if a.Algorithm != b.Algorithm || a.Protocol != b.Protocol {
			return fmt.Sprintf("%s/%s -> %s/%s at %s", a.Algorithm, a.Protocol, b.Algorithm, b.Protocol, units.Readable(b.Bytes, "B"))
		}
	}
	return ""
}

// slowVerdict is a slower-than-larger dip and the sizes it spans.
type slowVerdict struct {
	Verdict
	first, last int
}

// slowerThanLarger finds sizes that take more than opt.SlowerThanLarger
// times as long as a larger size within opt.DipSpan sizes, outside the
// dips already found and the places leftOut names. Twice the data should
// not finish sooner: a protocol or algorithm kept past where the next one
// is faster (a switch placed too late) does that, and on a flat stretch of
// busbw the neighbour test above does not see it.
func slowerThanLarger(c Curve, dips []dipRun, opt CurveOptions, leftOut func(i int) bool) []slowVerdict {
	if opt.SlowerThanLarger <= 0 {
		return nil
	}
	inDip := func(i int) bool {
		for _, d := range dips {
			if i >= d.first && i <= d.last {
				return true
			}
		}
		return false
	}
	span := max(opt.DipSpan, 1)
	faster := make([]int, len(c.Points)) // the larger size that beats it, -1 for none
	for i, p := range c.Points {
		faster[i] = -1
		if p.TimeUs <= 0 || leftOut(i) || inDip(i) {
			continue
		}
		for j := i + 1; j <= min(len(c.Points)-1, i+span); j++ {
			q := c.Points[j]
			if q.Bytes > p.Bytes && q.TimeUs > 0 && p.TimeUs > opt.SlowerThanLarger*q.TimeUs &&
				(faster[i] < 0 || q.TimeUs < c.Points[faster[i]].TimeUs) {
				faster[i] = j
			}
		}
	}
	b, _ := BranchByID(BranchDip)
	var out []slowVerdict
	for i := 0; i < len(faster); {
		if faster[i] < 0 {
			i++
			continue
		}
		first, worst := i, i
		for i+1 < len(faster) && faster[i+1] >= 0 {
			i++
			if c.Points[i].TimeUs/c.Points[faster[i]].TimeUs > c.Points[worst].TimeUs/c.Points[faster[worst]].TimeUs {
				worst = i
			}
		}
		p, q := c.Points[worst], c.Points[faster[worst]]
		out = append(out, slowVerdict{first: first, last: i, Verdict: Verdict{Layer: LayerCollective, Check: BranchDip, Status: Warn, Chapter: ChapterCurve,
			Summary: fmt.Sprintf("dip at %s: %s takes %s, %.2fx the %s that %s takes", sizeRange(c.Points[first].Bytes, c.Points[i].Bytes),
				units.Readable(p.Bytes, "B"), units.Readable(p.TimeUs, "us"), p.TimeUs/q.TimeUs, units.Readable(q.TimeUs, "us"), units.Readable(q.Bytes, "B")),
			Evidence: []string{"a larger size finishing sooner: the smaller one ran a slower protocol or algorithm than NCCL switches to next (a switch placed too late)"},
			Next:     "check " + strings.Join(b.Checks, "; ")}})
		i++
	}
	return out
}
