package doctor

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/units"
)

// Tables a chapter sets beside a curve: each returns a markdown table
// whose numbers come from the curves, reports and logs it is given.

// PickTable sets NCCL's logged algorithm/protocol pick for collective op
// (NCCL's name, "AllReduce") beside the model's pick at the same size:
// one row per size, the first logged call of that size, and a row only
// where the logged pick, its channel range or the model's pick changes
// from the row before, except at the sizes in always, which are shown
// whatever they say. A size the model does not price shows an empty pick.
func PickTable(choices []nccllog.FoldedChoice, model Model, op string, always ...float64) string {
	modelPick := map[int64]string{}
	for _, p := range model.Points {
		modelPick[int64(p.Bytes)] = p.Algorithm + "/" + p.Protocol
	}
	var b strings.Builder
	b.WriteString("| size | NCCL logged | channels | model | same |\n|---:|---|---:|---|:---:|\n")
	lastSize, prevRow := int64(-1), ""
	for _, f := range choices {
		c := f.Choice
		if c.Op != op || c.Bytes == lastSize {
			continue
		}
		lastSize = c.Bytes
		logged := c.Algorithm + "/" + c.Protocol
		same := "yes"
		if !strings.EqualFold(logged, modelPick[c.Bytes]) {
			same = "no"
		}
		row := fmt.Sprintf("%s %d %d %s", logged, c.ChannelLo, c.ChannelHi, modelPick[c.Bytes])
		if row == prevRow && !slices.Contains(always, float64(c.Bytes)) {
			continue
		}
		prevRow = row
		fmt.Fprintf(&b, "| %s | %s | %d..%d | %s | %s |\n", units.ReadableIEC(float64(c.Bytes), "B"), logged, c.ChannelLo, c.ChannelHi, modelPick[c.Bytes], same)
	}
	return b.String()
}

// FloorUs is the smallest time of the curve, µs: the small-message floor
// a sweep reached (+Inf for a curve with no points).
func (c Curve) FloorUs() float64 {
	f := math.Inf(1)
	for _, p := range c.Points {
		f = math.Min(f, p.TimeUs)
	}
	return f
}

// SideBySide sets curves that measured the same collective beside each
// other, one column each (its heading from names, "time, busbw" in it), at
// the sizes given, in their order; a size missing from any curve is left
// out.
func SideBySide(names []string, curves []Curve, sizes ...float64) string {
	var b strings.Builder
	b.WriteString("| size |")
	for _, n := range names {
		b.WriteString(" " + n + " |")
	}
	b.WriteString("\n|---:|" + strings.Repeat("---:|", len(names)) + "\n")
	at := make([]map[float64]CurvePoint, len(curves))
	for i, c := range curves {
		at[i] = map[float64]CurvePoint{}
		for _, p := range c.Points {
			at[i][p.Bytes] = p
		}
	}
rows:
	for _, s := range sizes {
		cells := []string{units.ReadableIEC(s, "B")}
		for i := range curves {
			p, ok := at[i][s]
			if !ok {
				continue rows
			}
			cells = append(cells, units.Readable(p.TimeUs, "us")+", "+units.Readable(p.BusBW, "GB/s"))
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

// Worst lists the report's warn and fail verdicts as "STATUS check", or
// "ok" when it has none.
func (r CurveReport) Worst() string {
	var worst []string
	for _, v := range r.Verdicts {
		if v.Status == Warn || v.Status == Fail {
			worst = append(worst, fmt.Sprintf("%s %s", v.Status, v.Check))
		}
	}
	if len(worst) == 0 {
		return "ok"
	}
	return strings.Join(worst, ", ")
}

// BusBWAt is the curve's busbw at exactly size bytes (its last point of
// that size), 0 where it has no point there.
func (c Curve) BusBWAt(size float64) float64 {
	bw := 0.0
	for _, p := range c.Points {
		if p.Bytes == size {
			bw = p.BusBW
		}
	}
	return bw
}

// ReportTable sets curves judged against their models side by side, one
// row each (named by names[i], the first column's heading given): busbw
// at the sizes given, the plateau against the model's, the floor and the
// doctor's warn and fail verdicts (Worst).
func ReportTable(heading string, names []string, reports []CurveReport, sizes ...float64) string {
	var b strings.Builder
	b.WriteString("| " + heading + " |")
	for _, s := range sizes {
		b.WriteString(" " + units.ReadableIEC(s, "B") + " |")
	}
	b.WriteString(" plateau / model | floor | doctor |\n|:---|" + strings.Repeat("---:|", len(sizes)+2) + ":---|\n")
	for i, r := range reports {
		cells := []string{names[i]}
		for _, s := range sizes {
			cells = append(cells, units.Readable(r.Curve.BusBWAt(s), "GB/s"))
		}
		cells = append(cells, units.Percent(r.PlateauBusBW/r.ModelPlateauBusBW), units.Readable(r.FloorUs, "us"), r.Worst())
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

// Markdown is the report for a notebook: a bold title, the verdicts as a
// list, and the whole text report folded under them.
func (r CurveReport) Markdown(title string) string {
	var verdicts []string
	for _, v := range r.Verdicts {
		verdicts = append(verdicts, "- "+v.String())
	}
	return fmt.Sprintf("**%s:**\n\n%s\n\n<details><summary>the doctor's whole report</summary>\n\n```text\n%s```\n</details>\n",
		title, strings.Join(verdicts, "\n"), r.Text())
}

// DiagnoseRun reads a recorded or live run's out-of-place curve of
// collective (CurveFromRun) and judges it against model with the default
// options (DiagnoseCurve); the report carries the curve.
func DiagnoseRun(r *probes.Run, collective string, model Model) (CurveReport, error) {
	c, err := CurveFromRun(r, collective, false)
	if err != nil {
		return CurveReport{}, err
	}
	return DiagnoseCurve(c, model, DefaultCurveOptions())
}
