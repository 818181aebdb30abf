package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/kernel/display"
	"github.com/commlab/commlab/kernel/session"
	"github.com/commlab/commlab/notebook"
)

func codeCells(nb *notebook.Notebook) []*notebook.Cell {
	var out []*notebook.Cell
	for _, c := range nb.Cells {
		if c.Type == notebook.Code {
			out = append(out, c)
		}
	}
	return out
}

// displayCells is what a program hands the runner for cells that import
// kernel/display: the part of its table (yaegi extract's form) these tests
// use.
var displayCells = Cells{Packages: map[string]map[string]reflect.Value{
	"github.com/commlab/commlab/kernel/display/display": {
		"HTML":       reflect.ValueOf(display.HTML),
		"HTMLBundle": reflect.ValueOf(display.HTMLBundle),
		"Bundle":     reflect.ValueOf((*display.Bundle)(nil)),
		"Handle":     reflect.ValueOf((*display.Handle)(nil)),
	},
}}

func TestRunnerRunsRealNotebook(t *testing.T) {
	dir := t.TempDir()
	res, nb, out, err := RunFile(context.Background(), mustJob(t, "testdata/params.md", map[string]string{"n": "16"}), FileOptions{
		Options: Options{CellTimeout: time.Minute},
		OutDir:  dir,
		Cells:   displayCells,
	})
	if err != nil {
		t.Fatalf("RunFile: %v", err)
	}
	if out != filepath.Join(dir, "params.ipynb") || res.Executed != 5 || res.Cells != 5 {
		t.Errorf("out %s, executed %d of %d", out, res.Executed, res.Cells)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := notebook.Validate(data); err != nil {
		t.Fatal(err)
	}
	cells := codeCells(nb)
	if !cells[1].HasTag(TagInjectedParameters) || !strings.Contains(cells[1].Source, "n = 16") {
		t.Errorf("injected cell = %+v", cells[1])
	}
	for i, c := range cells {
		if c.ExecutionCount == nil || *c.ExecutionCount != i+1 {
			t.Errorf("cell %d execution count = %v", i+1, c.ExecutionCount)
		}
	}
	if o := cells[2].Outputs; len(o) != 1 || o[0].Type != notebook.Stream || o[0].Text != "ring of 16\nsecond line\n" {
		t.Errorf("stream outputs = %+v", o)
	}
	if o := cells[3].Outputs; len(o) != 1 || o[0].Type != notebook.DisplayData || o[0].Data["text/html"] != "<b>done</b>" {
		t.Errorf("display outputs (the update should replace the first) = %+v", o)
	}
	if o := cells[4].Outputs; len(o) != 1 || o[0].Type != notebook.ExecuteResult || o[0].Data["text/plain"] != "32" || *o[0].ExecutionCount != 5 {
		t.Errorf("result = %+v", o)
	}
	run := nb.Metadata[MetadataKey].(map[string]any)["run"].(map[string]any)
	if run["status"] != "ok" {
		t.Errorf("run metadata = %v", run)
	}
}

func TestRunnerStopsAtFailedCell(t *testing.T) {
	for _, allow := range []bool{false, true} {
		dir := t.TempDir()
		res, nb, out, err := RunFile(context.Background(), mustJob(t, "testdata/fails.md", nil), FileOptions{Options: Options{AllowErrors: allow}, OutDir: dir})
		var ce *CellError
		if allow {
			if err != nil {
				t.Fatalf("allowed errors: %v", err)
			}
		} else if !errors.Is(err, ErrCellFailed) || !errors.As(err, &ce) || !errors.Is(err, session.ErrCellFailed) {
			t.Fatalf("err = %v, want a CellError wrapping ErrCellFailed", err)
		}
		if out == "" {
			t.Fatal("the failed notebook was not written")
		}
		if len(res.Failures) != 1 {
			t.Fatalf("failures = %v", res.Failures)
		}
		f := res.Failures[0]
		if f.Cell != 4 || f.Line != 2 || f.EName != "panic" || !strings.Contains(f.EValue, "nil map") {
			t.Errorf("failure = %+v (%v)", f, f)
		}
		last := codeCells(nb)[3]
		if allow != (last.ExecutionCount != nil) {
			t.Errorf("allow=%v: last cell count %v, outputs %+v", allow, last.ExecutionCount, last.Outputs)
		}
		errOut := codeCells(nb)[2].Outputs
		if len(errOut) == 0 || errOut[len(errOut)-1].Type != notebook.Error {
			t.Errorf("failed cell outputs = %+v", errOut)
		}
	}
}

func TestRunnerCellTimeout(t *testing.T) {
	nb := notebook.New()
	nb.Cells = []*notebook.Cell{{Type: notebook.Code, Source: "import \"time\"\ntime.Sleep(20 * time.Second)"}}
	nb.EnsureIDs()
	s, err := session.New(session.Options{AbandonInterrupted: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	_, err = Run(context.Background(), s, nb, Options{CellTimeout: 300 * time.Millisecond, Name: "sleepy"})
	if !errors.Is(err, ErrCellTimeout) || !errors.Is(err, ErrCellFailed) {
		t.Errorf("err = %v, want ErrCellTimeout", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the timeout took %v", d)
	}
}

func TestRunnerRefusesToOverwriteSource(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "a.ipynb")
	if err := os.WriteFile(src, []byte(`{"cells":[],"metadata":{},"nbformat":4,"nbformat_minor":5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := RunFile(context.Background(), mustJob(t, src, nil), FileOptions{OutDir: dir}); !errors.Is(err, ErrOverSource) {
		t.Errorf("err = %v, want ErrOverSource", err)
	}
}

func TestRunnerBadParameterRunsNothing(t *testing.T) {
	dir := t.TempDir()
	_, err := NewJob("testdata/params.md", map[string]string{"n": "eight"})
	if !errors.Is(err, ErrParameter) {
		t.Fatalf("err = %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("wrote %v although nothing should run", entries)
	}
}

// scripted is an executor that replays events, for the output routing.
type scripted map[string][]session.Event

func (s scripted) Execute(ctx context.Context, code string, emit func(session.Event)) error {
	for _, ev := range s[code] {
		emit(ev)
		if ev.Kind == session.EventError {
			return session.ErrCellFailed
		}
	}
	return nil
}

func TestOutputRouting(t *testing.T) {
	html := func(s string) map[string]any { return map[string]any{"text/html": s, "text/plain": s} }
	exec := scripted{
		"a": {
			{Kind: session.EventStream, Name: "stdout", Text: "1\n"},
			{Kind: session.EventStream, Name: "stdout", Text: "2\n"},
			{Kind: session.EventStream, Name: "stderr", Text: "warn\n"},
			{Kind: session.EventDisplay, Data: html("50%"), DisplayID: "bar"},
		},
		"b": {
			{Kind: session.EventUpdateDisplay, Data: html("100%"), DisplayID: "bar"},
			{Kind: session.EventDisplay, Data: html("old")},
			{Kind: session.EventClearOutput, Wait: true},
			{Kind: session.EventDisplay, Data: html("new")},
			{Kind: session.EventResult, Data: map[string]any{"text/plain": "7"}},
		},
		"c": {{Kind: session.EventClearOutput}},
	}
	nb := notebook.New()
	for _, src := range []string{"a", "b", " ", "c"} {
		nb.Cells = append(nb.Cells, &notebook.Cell{Type: notebook.Code, Source: src, Outputs: []*notebook.Output{{Type: notebook.Stream, Name: "stdout", Text: "stale"}}})
	}
	var buf bytes.Buffer
	p := NewProgress(&buf, false)
	if _, err := Run(context.Background(), exec, nb, Options{Progress: p}); err != nil {
		t.Fatal(err)
	}
	a, b, empty := nb.Cells[0].Outputs, nb.Cells[1].Outputs, nb.Cells[2]
	if len(a) != 3 || a[0].Text != "1\n2\n" || a[1].Name != "stderr" || a[2].Data["text/html"] != "100%" {
		t.Errorf("cell a = %+v", a)
	}
	if len(b) != 2 || b[0].Data["text/html"] != "new" || b[1].Type != notebook.ExecuteResult || *b[1].ExecutionCount != 2 {
		t.Errorf("cell b = %+v", b)
	}
	if empty.ExecutionCount != nil || len(empty.Outputs) != 0 {
		t.Errorf("blank cell = %+v", empty)
	}
	if len(nb.Cells[3].Outputs) != 0 || *nb.Cells[3].ExecutionCount != 3 {
		t.Errorf("cleared cell = %+v", nb.Cells[3])
	}
	if buf.Len() != 0 {
		t.Errorf("a quiet progress wrote %q", buf.String())
	}
	nb2 := notebook.New()
	nb2.Cells = []*notebook.Cell{{Type: notebook.Code, Source: "a"}, {Type: notebook.Code, Source: "b"}}
	if _, err := Run(context.Background(), exec, nb2, Options{Progress: p}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Line(), "cell 2/2") || !strings.Contains(p.Line(), "100%") {
		t.Errorf("progress line %q does not show the display update", p.Line())
	}
}

func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, true)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }
	p.Begin("00-tour.md", 12)
	now = now.Add(2 * time.Second)
	p.Cell(3)
	now = now.Add(1500 * time.Millisecond)
	p.Note("sweep 4/10\nmore")
	if got, want := p.Line(), "00-tour.md  cell 3/12  3.5s (this cell 1.5s)  sweep 4/10"; got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
	p.End()
	if s := buf.String(); !strings.Contains(s, "\r\x1b[K00-tour.md  cell 3/12") || !strings.HasSuffix(s, "\r\x1b[K") {
		t.Errorf("terminal output = %q", s)
	}
}

// BenchmarkRunnerOverhead measures what the runner adds per cell beyond the
// cell's own work: an executor that does nothing but emit one stream event.
func BenchmarkRunnerOverhead(b *testing.B) {
	const cells = 100
	exec := scripted{"x": {{Kind: session.EventStream, Name: "stdout", Text: "ok\n"}}}
	for b.Loop() {
		nb := notebook.New()
		for range cells {
			nb.Cells = append(nb.Cells, &notebook.Cell{Type: notebook.Code, Source: "x"})
		}
		if _, err := Run(context.Background(), exec, nb, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*cells), "ns/cell")
}

type panicky struct{}

func (panicky) Execute(ctx context.Context, code string, emit func(session.Event)) error {
	panic("index out of range")
}

func TestRunnerSurvivesExecutorPanic(t *testing.T) {
	nb := notebook.New()
	nb.Cells = []*notebook.Cell{{Type: notebook.Code, Source: "x"}}
	res, err := Run(context.Background(), panicky{}, nb, Options{})
	if !errors.Is(err, ErrExecutorPanic) || len(res.Failures) != 1 || res.Failures[0].EName != "ExecutorPanic" {
		t.Errorf("err = %v, failures %+v", err, res.Failures)
	}
	if o := nb.Cells[0].Outputs; len(o) != 1 || o[0].Type != notebook.Error {
		t.Errorf("outputs = %+v", o)
	}
}

// BenchmarkRunnerOverheadSession runs the same small cells through the
// kernel's session directly and through the runner; the difference per cell
// is the runner's overhead with the real executor.
func BenchmarkRunnerOverheadSession(b *testing.B) {
	const cells = 50
	src := "x := 1\nx++"
	fresh := func(b *testing.B) *session.Session {
		s, err := session.New(session.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	b.Run("direct", func(b *testing.B) {
		s := fresh(b)
		for b.Loop() {
			for range cells {
				if err := s.Execute(context.Background(), src, func(session.Event) {}); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*cells), "ns/cell")
	})
	b.Run("runner", func(b *testing.B) {
		s := fresh(b)
		for b.Loop() {
			nb := notebook.New()
			for range cells {
				nb.Cells = append(nb.Cells, &notebook.Cell{Type: notebook.Code, Source: src})
			}
			if _, err := Run(context.Background(), s, nb, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*cells), "ns/cell")
	})
}

// mustJob loads a notebook with its -p values injected.
func mustJob(t *testing.T, path string, params map[string]string) *Job {
	t.Helper()
	job, err := NewJob(path, params)
	if err != nil {
		t.Fatal(err)
	}
	return job
}
