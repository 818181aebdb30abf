// Package render owns the renderings that join packages which do not know
// each other: a topology drawn by probes/topograph, a recorded run shown with
// its provenance, a parsed nccl-tests output drawn by lab/chart. Importing it
// registers them in kernel/display's registry, so cell results show them;
// the kernel and the headless runner (lab) import it for that.
//
// It does not own the display API (kernel/display) nor the drawings
// themselves (probes/topograph, lab/chart).
package render

import (
	"context"
	"fmt"
	"html"
	"reflect"
	"strings"
	"time"

	"github.com/commlab/commlab/kernel/display"
	"github.com/commlab/commlab/lab/chart"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/parse/nccltests"
	"github.com/commlab/commlab/probes/topograph"
)

func init() {
	display.RegisterRenderer(reflect.TypeOf(&probes.Topology{}), renderTopology)
	display.RegisterRenderer(reflect.TypeOf(&probes.Run{}), renderRun)
	display.RegisterRenderer(reflect.TypeOf(&nccltests.Result{}), renderNCCLTests)
}

func renderTopology(v any) (display.Bundle, error) {
	t := v.(*probes.Topology)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	svg, err := topograph.SVG(ctx, t)
	if err != nil {
		return display.Bundle{}, err
	}
	return display.Bundle{Data: map[string]any{display.MIMESVG: string(svg), display.MIMEPlain: t.Matrix()}}, nil
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

// renderNCCLTests draws each run's bus bandwidth against size.
func renderNCCLTests(v any) (display.Bundle, error) {
	res := v.(*nccltests.Result)
	var series []chart.Series
	var text strings.Builder
	for i := range res.Runs {
		run := &res.Runs[i]
		name := run.Collective
		if name == "" {
			name = fmt.Sprintf("run %d", i+1)
		}
		series = append(series, chart.Series{Name: name + " (out of place)", X: run.SizesBytes(), Y: run.OutOfPlaceBusBW(), Points: true})
		fmt.Fprintf(&text, "%s: %d sizes, %d ranks\n", name, len(run.Rows), run.NRanks())
	}
	if len(series) == 0 {
		return display.Bundle{}, fmt.Errorf("render: no nccl-tests rows to draw")
	}
	c, err := chart.BusBWVsSize("nccl-tests bus bandwidth", 0, "", series...)
	if err != nil {
		return display.Bundle{}, err
	}
	b := display.BundleOf(c)
	b.Data[display.MIMEPlain] = strings.TrimSpace(text.String())
	return b, nil
}
