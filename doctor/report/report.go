// Package report renders a doctor.Report as one self-contained HTML page:
// the seed's questions and their answers first, the machine (its topology
// drawn by probes/topograph, its matrix and NIC paths), then every check by layer
// with its evidence, next step and chapter, the measured collective beside
// the tuner's model as a chart, NCCL's picks beside the tuner's, and the
// Flight Recorder's reading of a hang.
//
// It builds the page as a title and blocks of Markdown and raw HTML (Page),
// which the program draws as the chapters are drawn: package cells turns
// it into a notebook and hands it to notebook/export, so the report looks
// like the chapters and loads nothing from elsewhere. The subject never
// imports the notebook machine, so this package does not draw HTML pages
// itself. It builds pages and writes the report's folder; the checks are
// doctor's.
package report

import (
	"context"
	"fmt"
	"html"
	"math"
	"sort"
	"strings"

	"github.com/commlab/commlab/chart"
	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/doctor"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/topograph"
	"github.com/commlab/commlab/units"
)

// css styles the report's own pieces (status badges, the bars of measured
// against ceiling); the page's base style is notebook/export's.
const css = `<style>
.badge{display:inline-block;min-width:3.6em;text-align:center;border-radius:4px;padding:0 .35em;font:600 12px/1.6 ui-monospace,monospace;color:#fff}
.badge.ok{background:#1a7f37}.badge.warn{background:#9a6700}.badge.fail{background:#cf222e}.badge.skipped{background:#8c959f}
table.checks td,table.checks th{text-align:left;vertical-align:top}
table.checks td.st{white-space:nowrap}
table.checks details summary{cursor:pointer}
table.checks ul{margin:.25rem 0 .25rem 1rem;padding:0}
.q{border-left:4px solid #8c959f;padding:.1rem .75rem;margin:.6rem 0}
.q.info{border-color:#0969da}.q.ok{border-color:#1a7f37}.q.warn{border-color:#9a6700}.q.fail{border-color:#cf222e}
.q h3{margin:.2rem 0;font-size:16px}.q p{margin:.2rem 0;white-space:pre-line}
.bar{background:#eaeef2;width:12rem;height:.8rem;display:inline-block;vertical-align:middle}
.bar span{display:block;height:100%;background:#0969da}
.small{color:#57606a;font-size:13px}
.nicpaths td,.nicpaths th{text-align:left}
</style>`

// Page is the report as a page for a notebook front end to draw: its
// title and its blocks in order.
type Page struct {
	Title  string
	Blocks []Block
}

// Block is one piece of a page: Markdown, or (Raw) HTML shown as it is.
type Block struct {
	Source string
	Raw    bool
}

// ChapterURL is where the report's chapter names and mentions ("chapter
// 2", "06-nccl-tests") link: each chapter's source as published with the
// project, which every reader of a report sent elsewhere can open.
func ChapterURL(name string) string {
	return "https://github.com/commlab/commlab/blob/main/chapters/" + name + ".md"
}

func md(src string) Block { return Block{Source: src} }

func raw(htmlSrc string) Block { return Block{Source: htmlSrc, Raw: true} }

func badge(s doctor.Status) string {
	return fmt.Sprintf(`<span class="badge %s">%s</span>`, s, s)
}

var esc = html.EscapeString

// PageOf builds the report's page: what the HTML page shows, block by
// block (a notebook's markdown and raw cells, once drawn).
func PageOf(r *doctor.Report) Page {
	p := Page{Title: "commlab doctor"}
	if r.Host != "" {
		p.Title += ": " + r.Host
	}
	add := func(b Block) { p.Blocks = append(p.Blocks, b) }
	host := r.Host
	if host == "" {
		host = "the evidence given"
	}
	add(md(fmt.Sprintf("# commlab doctor: %s\n\n%s. %d ok, %d warn, %d fail, %d skipped; exit status %d (0 all ok, 1 warnings, 2 failures).",
		host, r.Date.UTC().Format("2006-01-02 15:04 UTC"), r.Counts["ok"], r.Counts["warn"], r.Counts["fail"], r.Counts["skipped"], r.ExitCode)))
	if r.Command != "" {
		add(raw("<p class=\"small\">made by <code>" + esc(r.Command) + "</code></p>"))
	}
	add(raw(css))

	var in strings.Builder
	in.WriteString("<table class=\"checks\"><tr><th>evidence</th><th>from</th><th>provenance</th></tr>\n")
	for _, i := range r.Inputs {
		fmt.Fprintf(&in, "<tr><td>%s</td><td>%s</td><td class=\"small\">%s</td></tr>\n", esc(i.What), esc(i.Source), esc(i.Note))
	}
	in.WriteString("</table>")
	if len(r.Inputs) == 0 {
		in.Reset()
		in.WriteString("<p>No evidence was given.</p>")
	}
	add(md("## The evidence"))
	add(raw(in.String()))
	if r.Baseline != "" {
		add(md("Compared with the saved report `" + r.Baseline + "` (the `baseline-*` checks)."))
	}

	add(md("## The questions\n\nThe series ends on these questions; each answer comes from the checks named under it."))
	var qs strings.Builder
	for _, a := range r.Answers {
		if len(a.Checks) == 0 {
			fmt.Fprintf(&qs, "<div class=\"q info\"><h3>%s</h3><p>%s</p>", esc(a.Question), esc(a.Answer))
		} else {
			fmt.Fprintf(&qs, "<div class=\"q %s\"><h3>%s %s</h3><p>%s</p>", a.Status, badge(a.Status), esc(a.Question), esc(a.Answer))
		}
		if len(a.Checks) > 0 {
			fmt.Fprintf(&qs, "<p class=\"small\">from %s</p>", checkLinks(a.Checks))
		}
		qs.WriteString("</div>\n")
	}
	add(raw(qs.String()))

	if t := topologySection(r); t != "" {
		add(md("## The machine\n\nGPUs, PCIe switches, NICs and NUMA nodes as the evidence shows them, the `nvidia-smi topo -m` matrix, and the NIC NCCL gives each GPU."))
		add(raw(t))
	}
	if c := busbwChart(r); c != "" {
		add(md("## The collective against the model\n\nMeasured all_reduce bus bandwidth (points) beside the cost model's prediction for this machine (dashed: NCCL's tuner picks the algorithm, the links and the fitted efficiencies give the bandwidth). busbw compares directly with a link's one-way rate."))
		add(raw(c))
	}
	if b := bandwidthBars(r); b != "" {
		add(md("## Links: measured against ceiling\n\nThe fastest copy per pair of endpoints, against the one-way ceiling of the link between them (PCIe generation and width, NVLink links x 25 GB/s)."))
		add(raw(b))
	}
	if len(r.Picks) > 0 {
		add(md("## NCCL's pick against the tuner's"))
		add(raw(picksTable(r.Picks)))
	}

	add(md("## Where to look first\n\nThe warnings and failures, causes before what they explain (a Socket fallback before the GPUDirect RDMA it turns off)."))
	add(raw(gapsList(r.Gaps)))
	add(md("## The decision tree\n\nChapter 6's tree from the symptom to the checks, marked where this evidence reaches (`ok`, `warn`, `fail`; unmarked: nothing here speaks to it)."))
	add(raw(treeTable(r.Tree)))

	add(md("## The checks, layer by layer\n\nOpen a row for its evidence. The chapter column names the chapter that explains the check."))
	add(raw(checksTable(r.Verdicts)))

	if r.Hang != nil {
		add(md("## Flight Recorder\n\nThe dumps read side by side (parse/flightrec):"))
		add(raw("<pre>" + esc(r.Hang.Text()) + "</pre>"))
	}
	return p
}

// checkLinks links each check to its section of the page, comma-separated.
func checkLinks(checks []string) string {
	var links []string
	for _, c := range checks {
		links = append(links, fmt.Sprintf("<a href=\"#check-%s\">%s</a>", anchor(c), esc(c)))
	}
	return strings.Join(links, ", ")
}

func anchor(ref string) string { return strings.NewReplacer("/", "-", " ", "-").Replace(ref) }

var layerOrder = []doctor.Layer{doctor.LayerEvidence, doctor.LayerTopology, doctor.LayerNVLink, doctor.LayerNIC, doctor.LayerNCCL, doctor.LayerCollective, doctor.LayerFramework, doctor.LayerHang}

func checksTable(vs []doctor.Verdict) string {
	var b strings.Builder
	b.WriteString("<table class=\"checks\"><tr><th>layer</th><th>status</th><th>check</th><th>finding</th><th>chapter</th></tr>\n")
	byLayer := map[doctor.Layer][]doctor.Verdict{}
	for _, v := range vs {
		byLayer[v.Layer] = append(byLayer[v.Layer], v)
	}
	for _, l := range layerOrder {
		for i, v := range byLayer[l] {
			layer := ""
			if i == 0 {
				layer = "<b>" + esc(string(l)) + "</b>"
			}
			fmt.Fprintf(&b, "<tr id=\"check-%s\"><td>%s</td><td class=\"st\">%s</td><td>%s</td><td>", anchor(string(v.Layer)+"/"+v.Check), layer, badge(v.Status), esc(v.Check))
			if len(v.Evidence) > 0 || v.Next != "" {
				fmt.Fprintf(&b, "<details%s><summary>%s</summary><ul>", openIf(v.Status == doctor.Fail), esc(v.Summary))
				for _, e := range v.Evidence {
					fmt.Fprintf(&b, "<li>%s</li>", esc(e))
				}
				b.WriteString("</ul>")
				if v.Next != "" {
					fmt.Fprintf(&b, "<p><b>next:</b> %s</p>", esc(v.Next))
				}
				b.WriteString("</details>")
			} else {
				b.WriteString(esc(v.Summary))
			}
			fmt.Fprintf(&b, "</td><td class=\"small\">%s</td></tr>\n", esc(v.Chapter))
		}
	}
	b.WriteString("</table>")
	return b.String()
}

// gapsList is the ranked gaps as an ordered list linking to the checks.
func gapsList(gaps []doctor.Gap) string {
	if len(gaps) == 0 {
		return "<p>No check found a fault in the evidence given.</p>"
	}
	var b strings.Builder
	b.WriteString("<ol>\n")
	for _, g := range gaps {
		fmt.Fprintf(&b, "<li>%s %s: %s", badge(g.Status), checkLinks([]string{g.Check}), esc(g.Summary))
		if len(g.ExplainedBy) > 0 {
			fmt.Fprintf(&b, " <span class=\"small\">(follows from %s)</span>", checkLinks(g.ExplainedBy))
		}
		b.WriteString("</li>\n")
	}
	b.WriteString("</ol>")
	return b.String()
}

// treeTable draws the decision tree as chapter 6 does: symptom, what you
// see, the mark here, the checks in order, and the verdicts that marked it.
func treeTable(marks []doctor.TreeMark) string {
	var b strings.Builder
	b.WriteString("<table class=\"checks\"><tr><th>symptom</th><th>what you see</th><th>here</th><th>check, in order</th><th>from</th></tr>\n")
	last := ""
	for _, m := range marks {
		sym := ""
		if m.Branch.Symptom != last {
			sym, last = "<b>"+esc(m.Branch.Symptom)+"</b>", m.Branch.Symptom
		}
		mark := ""
		if m.Reached {
			mark = badge(m.Status)
		}
		var checks []string
		for _, c := range m.Branch.Checks {
			checks = append(checks, "<li>"+esc(c)+"</li>")
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td class=\"st\">%s</td><td><ol style=\"margin:0\">%s</ol></td><td class=\"small\">%s</td></tr>\n",
			sym, esc(m.Branch.Sign), mark, strings.Join(checks, ""), checkLinks(m.Checks))
	}
	b.WriteString("</table>")
	return b.String()
}

func openIf(b bool) string {
	if b {
		return " open"
	}
	return ""
}

func picksTable(rows []doctor.PickRow) string {
	var b strings.Builder
	b.WriteString("<table><tr><th>size</th><th>NCCL logged</th><th>tuner</th><th>model time</th><th>bound</th><th></th></tr>\n")
	for _, p := range rows {
		mark := "same"
		if !p.Agree {
			mark = "<b>differs</b>"
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			esc(units.Readable(float64(p.Bytes), "B")), esc(p.NCCL), esc(p.Model), esc(units.Readable(p.ModelTimeUS, "us")), esc(p.Bound), mark)
	}
	b.WriteString("</table>")
	return b.String()
}

// topologySection draws the topology (probes/topograph), prints its
// matrix and the GPU-to-NIC table; "" without a topology.
func topologySection(r *doctor.Report) string {
	ev := r.Evidence
	if ev == nil || ev.Topology == nil || len(ev.Topology.GPUs) == 0 {
		return ""
	}
	t := ev.Topology
	var b strings.Builder
	if svg, err := topograph.SVG(context.Background(), t); err == nil {
		b.WriteString(`<div style="max-width:100%;overflow-x:auto">`)
		b.Write(svg)
		b.WriteString("</div>\n")
	}
	if len(t.Devices) > 0 {
		b.WriteString(`<pre style="white-space:pre;overflow-x:auto;font-size:12px">` + esc(t.Matrix()) + "</pre>\n")
	}
	if len(doctor.RDMANICs(t)) > 0 {
		b.WriteString(`<div class="nicpaths">` + t.NICPaths(probes.LevelPXB).HTML() + "</div>")
	}
	return b.String()
}

// busbwChart draws the NCCL sweep's all_reduce busbw with the tuner's
// prediction, as SVG; "" when there is no sweep.
func busbwChart(r *doctor.Report) string {
	ev := r.Evidence
	if ev == nil || ev.NCCL == nil {
		return ""
	}
	var samples []probes.Sample
	for _, s := range ev.NCCL.Samples {
		if s.Op == "all_reduce" && !s.InPlace && s.BusBW > 0 {
			samples = append(samples, s)
		}
	}
	if len(samples) < 2 {
		return ""
	}
	series := []chart.Series{chart.MeasuredBusBW(fmt.Sprintf("measured, %d GPUs", ev.NCCL.GPUCount), samples)}
	series[0].Color = "#0969da"
	if table, desc, ok := doctor.TunerFor(ev.Topology, ev.NCCLLog, ev.Env, ev.Nodes()); ok {
		var sizes []float64
		for _, s := range samples {
			sizes = append(sizes, float64(s.Bytes))
		}
		sort.Float64s(sizes)
		if rows, err := costmodel.SweepTuner(table, costmodel.AllReduce, sizes); err == nil {
			m := chart.ModelBusBW("tuner: "+desc, rows)
			m.Color = "#0969da"
			series = append(series, m)
		}
	}
	peak, label := 0.0, ""
	if t := ev.Topology; t != nil && len(t.GPUs) > 1 {
		if p, ok := t.PathBetween(t.GPUs[0].ID(), t.GPUs[1].ID()); ok && p.Level == probes.LevelNVLink {
			peak = float64(p.NVLinks) * 25
			label = fmt.Sprintf("%s, %.0f GB/s one way", p, peak)
		}
	}
	c, err := chart.BusBWVsSize("all_reduce bus bandwidth", peak, label, series...)
	if err != nil {
		return ""
	}
	return c.SVG()
}

// bandwidthBars is a table of the fastest copy per endpoint pair against
// its ceiling, with a bar for the fraction.
func bandwidthBars(r *doctor.Report) string {
	ev := r.Evidence
	if ev == nil || ev.Bandwidth == nil {
		return ""
	}
	var rows []string
	for _, check := range []string{"host-device-bandwidth", "p2p-bandwidth"} {
		for _, v := range r.Verdicts {
			if v.Check != check {
				continue
			}
			for _, e := range v.Evidence {
				frac := fractionIn(e)
				bar := ""
				if frac > 0 {
					bar = fmt.Sprintf("<span class=\"bar\"><span style=\"width:%.0f%%\"></span></span>", math.Min(frac, 1)*100)
				}
				rows = append(rows, fmt.Sprintf("<tr><td>%s</td><td>%s</td><td style=\"text-align:left\">%s</td></tr>", badge(v.Status), bar, esc(e)))
			}
		}
	}
	if len(rows) == 0 {
		return ""
	}
	return "<table>" + strings.Join(rows, "\n") + "</table>"
}

// fractionIn reads the "= 87.69% of" a bandwidth evidence line carries.
func fractionIn(line string) float64 {
	_, rest, ok := strings.Cut(line, " = ")
	if !ok {
		return 0
	}
	pct, _, ok := strings.Cut(rest, "%")
	if !ok {
		return 0
	}
	var f float64
	if _, err := fmt.Sscan(pct, &f); err != nil {
		return 0
	}
	return f / 100
}
