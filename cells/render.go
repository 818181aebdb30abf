package cells

import (
	"context"
	"fmt"
	"html"
	"reflect"
	"time"

	"github.com/commlab/commlab/chart"
	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/kernel/display"
	"github.com/commlab/commlab/parse/flightrec"
	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/parse/nccltests"
	"github.com/commlab/commlab/parse/ncclxml"
	"github.com/commlab/commlab/parse/nvbandwidth"
	"github.com/commlab/commlab/parse/nvidiasmi"
	"github.com/commlab/commlab/parse/perftest"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/topograph"
)

// renderers are the drawings of domain values that join packages which do
// not know each other (a topology drawn by probes/topograph, a parsed
// nccl-tests run drawn by chart), keyed by the value's type; every session
// registers them with kernel/display (session.Options.Renderers).
func renderers() map[reflect.Type]display.Renderer {
	r := map[reflect.Type]display.Renderer{
		reflect.TypeOf(&probes.Topology{}):      renderTopology,
		reflect.TypeOf(&probes.Run{}):           renderRun,
		reflect.TypeOf(&nccltests.Result{}):     renderNCCLTests,
		reflect.TypeOf(nccltests.Run{}):         renderNCCLTestsRun,
		reflect.TypeOf(&nvidiasmi.TopoMatrix{}): renderTopoMatrix,
		reflect.TypeOf(costmodel.TunerTable{}):  renderTunerTable,
		// A figure a cell builds with gonum/plot directly shows as
		// chart's charts do.
		chart.PlotType: renderPlot,
	}
	for _, v := range []fmt.Stringer{&nccllog.Log{}, &nvbandwidth.Report{}, &perftest.Report{},
		&flightrec.Analysis{}, &ncclxml.Document{}, &nvidiasmi.Query{}} {
		r[reflect.TypeOf(v)] = renderSummary
	}
	return r
}

func renderTopology(v any) (display.Bundle, error) {
	t := v.(*probes.Topology)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	svg, err := topograph.SVG(ctx, t)
	if err != nil {
		return display.Bundle{}, err
	}
	plain := t.String() + "\n\n" + t.Matrix()
	if len(t.GPUs) > 0 && len(t.NICs) > 0 {
		plain += "\n\nGPU -> NIC (NCCL's choice modelled from the matrix):\n" + t.NICPaths(probes.LevelUnknown).String()
	}
	return display.Bundle{Data: map[string]any{display.MIMESVG: string(svg), display.MIMEPlain: plain}}, nil
}

// renderRun shows where a run's numbers come from, then its samples.
func renderRun(v any) (display.Bundle, error) {
	r := v.(*probes.Run)
	table, err := display.TableBundleOf(r.Samples)
	if err != nil {
		return display.Bundle{}, err
	}
	prov := r.Provenance()
	return display.Bundle{Data: map[string]any{
		display.MIMEHTML:  "<p><b>" + html.EscapeString(prov) + "</b></p>" + table.Data[display.MIMEHTML].(string),
		display.MIMEPlain: prov + "\n" + table.Data[display.MIMEPlain].(string),
	}}, nil
}

// renderNCCLTests draws each run's bus bandwidth against size, with the
// result's summary as text.
func renderNCCLTests(v any) (display.Bundle, error) {
	res := v.(*nccltests.Result)
	return drawNCCLTests(res.Runs, res.String())
}

// renderNCCLTestsRun draws one run, with its rows as text.
func renderNCCLTestsRun(v any) (display.Bundle, error) {
	run := v.(nccltests.Run)
	rows, err := display.TableBundleOf(run.Rows)
	if err != nil {
		return display.Bundle{}, err
	}
	return drawNCCLTests([]nccltests.Run{run}, run.Program+"\n"+rows.Data[display.MIMEPlain].(string))
}

func drawNCCLTests(runs []nccltests.Run, text string) (display.Bundle, error) {
	var series []chart.Series
	for i := range runs {
		if len(runs[i].Rows) > 0 {
			series = append(series, chart.NCCLTestsBusBW(runs[i]))
		}
	}
	if len(series) == 0 {
		return display.Bundle{}, fmt.Errorf("cells: no nccl-tests rows to draw")
	}
	c, err := chart.BusBWVsSize("nccl-tests bus bandwidth", 0, "", series...)
	if err != nil {
		return display.Bundle{}, err
	}
	b := display.BundleOf(c)
	b.Data[display.MIMEPlain] = text
	return b, nil
}

// renderTopoMatrix shows the path matrix as a table, devices by devices.
func renderTopoMatrix(v any) (display.Bundle, error) {
	m := v.(*nvidiasmi.TopoMatrix)
	rows := make([][]string, len(m.Devices))
	for i, d := range m.Devices {
		rows[i] = append([]string{d}, make([]string, len(m.Devices))...)
		for j := range m.Devices {
			if i < len(m.Cells) && j < len(m.Cells[i]) {
				rows[i][j+1] = m.Cells[i][j]
			}
		}
	}
	b := display.TableBundle(append([]string{""}, m.Devices...), rows)
	b.Data[display.MIMEPlain] = m.String()
	return b, nil
}

// renderTunerTable shows NCCL's tuning table one cell a row, with units;
// its text is the table as NCCL logs it.
func renderTunerTable(v any) (display.Bundle, error) {
	t := v.(costmodel.TunerTable)
	b, err := display.TableBundleOf(t.Entries)
	if err != nil {
		return display.Bundle{}, err
	}
	b.Data[display.MIMEPlain] = t.String()
	return b, nil
}

// renderSummary shows a parsed result's summary (its String, which is its
// WriteSummary) as preformatted HTML.
func renderSummary(v any) (display.Bundle, error) {
	text := v.(fmt.Stringer).String()
	return display.Bundle{Data: map[string]any{
		display.MIMEHTML:  "<pre>" + html.EscapeString(text) + "</pre>",
		display.MIMEPlain: text,
	}}, nil
}
