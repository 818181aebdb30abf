package cells_test

import (
	"context"
	"html"
	"strings"
	"testing"

	"github.com/commlab/commlab/cells"
	"github.com/commlab/commlab/kernel/session"
	"github.com/commlab/commlab/probes/measure"
)

// TestMeasureCell is a chapter's Measure cell: the live-or-recorded call
// through the interpreter, its result shown as the banner box (text/html)
// with the banner as text/plain.
func TestMeasureCell(t *testing.T) {
	s, err := session.New(cells.View().Session())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	want, err := measure.Recorded("nccl-h200x2-proto-auto")
	if err != nil {
		t.Fatal(err)
	}
	cells := []string{
		`import "github.com/commlab/commlab/probes/measure"`,
		`m, err := measure.Recorded("nccl-h200x2-proto-auto")`,
		`m`,
		// As a parameters cell and a Measure cell write it: the mode is a string.
		"mode := \"recorded\"\nm2, err := measure.NCCL(display.Context(), measure.Mode(mode), nccl.Config{}, \"nccl-h200x2-proto-auto\")\nm2.Live",
	}
	var result session.Event
	for i, c := range cells {
		var got []session.Event
		if err := s.Execute(context.Background(), c, func(e session.Event) { got = append(got, e) }); err != nil {
			t.Fatalf("cell %d %q: %v (%+v)", i, c, err, got)
		}
		for _, e := range got {
			if e.Kind == session.EventError {
				t.Fatalf("cell %d %q: %s: %s", i, c, e.EName, e.EValue)
			}
			if e.Kind == session.EventResult && i == 2 {
				result = e
			}
			if e.Kind == session.EventResult && i == 3 && e.Data["text/plain"] != "false" {
				t.Errorf("recorded mode through a string: Live = %v", e.Data["text/plain"])
			}
		}
	}
	h, _ := result.Data["text/html"].(string)
	plain, _ := result.Data["text/plain"].(string)
	if !strings.Contains(h, "RECORDED") || !strings.Contains(h, html.EscapeString(want.Banner())) || !strings.HasPrefix(h, "<div") {
		t.Errorf("the cell's result is not the banner box:\n%s", h)
	}
	if !strings.HasPrefix(plain, want.Banner()) {
		t.Errorf("text/plain %q does not start with the banner", plain)
	}
}
