package cells_test

import (
	"context"
	"path"
	"strings"
	"testing"

	"github.com/commlab/commlab/cells"
	"github.com/commlab/commlab/kernel/session"
)

// run executes cells in a fresh session and returns the events of the last.
func run(t *testing.T, code ...string) []session.Event {
	t.Helper()
	s, err := session.New(cells.View().Session())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var events []session.Event
	for _, c := range code {
		events = events[:0]
		if err := s.Execute(context.Background(), c, func(e session.Event) { events = append(events, e) }); err != nil {
			t.Fatalf("cell %q: %v\nevents: %+v", c, err, events)
		}
	}
	return events
}

// find returns the first event of kind.
func find(events []session.Event, kind session.EventKind) (session.Event, bool) {
	for _, e := range events {
		if e.Kind == kind {
			return e, true
		}
	}
	return session.Event{}, false
}

const buildPlot = `import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)
p := plot.New()
p.Title.Text = "squares"
p.X.Label.Text = "n"
pts := make(plotter.XYs, 10)
for i := range pts {
	pts[i].X, pts[i].Y = float64(i), float64(i*i)
}
line, err := plotter.NewLine(pts)
if err != nil {
	panic(err)
}
p.Add(line)
`

// TestPreloadedGonum holds that cells import gonum/plot and gonum's
// numeric packages, and that a plot a cell builds shows as an image.
func TestPreloadedGonum(t *testing.T) {
	images := func(t *testing.T, e session.Event) {
		for _, mime := range []string{"image/png", "image/svg+xml"} {
			if s, _ := e.Data[mime].(string); s == "" {
				t.Errorf("no %s in %v", mime, keys(e.Data))
			}
		}
		if text, _ := e.Data["text/plain"].(string); !strings.Contains(text, `"squares"`) {
			t.Errorf("text/plain %q does not name the plot", text)
		}
	}
	tests := []struct {
		name  string
		cells []string
		kind  session.EventKind
		check func(*testing.T, session.Event)
		want  string // the result's text/plain, when check is nil
	}{
		{name: "display.Plot of a plot built in a cell", cells: []string{buildPlot + "display.Plot(p)"}, kind: session.EventDisplay, check: images},
		{name: "a plot as the cell's result", cells: []string{buildPlot, "p"}, kind: session.EventResult, check: images},
		{name: "plotutil, imported for the cell", cells: []string{buildPlot, `plotutil.AddLinePoints(p, "again", pts) == nil`}, kind: session.EventResult, want: "true"},
		{name: "vg and vg/draw", cells: []string{"import \"gonum.org/v1/plot/vg/draw\"\nvar gs draw.GlyphStyle\ngs.Radius = vg.Points(3)\nfloat64(gs.Radius)"}, kind: session.EventResult, want: "3"},
		{name: "mat", cells: []string{"a := mat.NewDense(2, 2, []float64{1, 2, 3, 4})\nvar c mat.Dense\nc.Mul(a, a)\nc.At(1, 1)"}, kind: session.EventResult, want: "22"},
		{name: "stat", cells: []string{"stat.Mean([]float64{1, 2, 3}, nil)"}, kind: session.EventResult, want: "2"},
		{name: "floats", cells: []string{"import \"gonum.org/v1/gonum/floats\"\nfloats.Sum([]float64{1, 2, 3})"}, kind: session.EventResult, want: "6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events := run(t, tt.cells...)
			e, ok := find(events, tt.kind)
			if !ok {
				t.Fatalf("no %s event in %+v", tt.kind, events)
			}
			if tt.check != nil {
				tt.check(t, e)
				return
			}
			if got := e.Data["text/plain"]; got != tt.want {
				t.Errorf("result %q, want %q", got, tt.want)
			}
		})
	}
}

// TestHelpListsPreloadedPackages holds that %help names every package a
// cell can import besides the standard library.
func TestHelpListsPreloadedPackages(t *testing.T) {
	var out strings.Builder
	for _, e := range run(t, "%help") {
		if e.Kind == session.EventStream {
			out.WriteString(e.Text)
		}
	}
	for key := range cells.Symbols {
		if p := path.Dir(key); !strings.Contains(out.String(), " "+p+"\n") {
			t.Errorf("%%help does not list %s:\n%s", p, out.String())
		}
	}
}

func keys(m map[string]any) []string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	return k
}

// Chapter 2's cells: the NIC each GPU would use shows as a table, and
// nvbandwidth's bidirectional testcases carry their note.
func TestPreloadedChapter2Calls(t *testing.T) {
	events := run(t, "import (\n\t\"context\"\n\t\"github.com/commlab/commlab/probes/published\"\n)\ntopo, _ := published.HGXH200().Topology(context.Background())\ntopo.NICPaths(0)")
	e, ok := find(events, session.EventResult)
	if !ok {
		t.Fatalf("no result in %+v", events)
	}
	if h, _ := e.Data["text/html"].(string); !strings.Contains(h, "<th>GPUDirect RDMA</th>") || !strings.Contains(h, "<td>NIC7 mlx5_8</td>") {
		t.Errorf("NICPaths html: %.300s", h)
	}
	if p, _ := e.Data["text/plain"].(string); !strings.Contains(p, "GPU0  NIC0 mlx5_1  PIX   50 GB/s  yes") {
		t.Errorf("NICPaths text: %s", p)
	}
	events = run(t, "import (\n\t\"strings\"\n\t\"github.com/commlab/commlab/parse/nvbandwidth\"\n)\nrep, _ := nvbandwidth.Parse(strings.NewReader(\"Running host_to_device_bidirectional_memcpy_ce.\\nmemcpy CE CPU(row) <-> GPU(column) bandwidth (GB/s)\\n           0\\n 0     51.67\\n\\nSUM host_to_device_bidirectional_memcpy_ce 51.67\\n\"))\nrep.Testcases[0].DirectionNote == nvbandwidth.OneWay")
	if e, ok := find(events, session.EventResult); !ok || e.Data["text/plain"] != "true" {
		t.Errorf("nvbandwidth note: %+v", events)
	}
}
