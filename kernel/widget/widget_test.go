package widget

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/commlab/commlab/kernel/display"
)

// recorder is a front end that keeps what the kernel sent.
type recorder struct {
	mu   sync.Mutex
	msgs []CommMessage
}

func (r *recorder) Send(m CommMessage) { r.mu.Lock(); r.msgs = append(r.msgs, m); r.mu.Unlock() }
func (r *recorder) Capture(fn func()) []map[string]any {
	var outs []map[string]any
	prev := display.SetPublisher(func(m display.Message) {
		outs = append(outs, map[string]any{"output_type": "display_data", "data": m.Bundle.Data})
	})
	defer display.SetPublisher(prev)
	fn()
	return outs
}

func (r *recorder) methods() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, m := range r.msgs {
		if m.Open {
			out = append(out, "open:"+m.Data["state"].(map[string]any)["_model_name"].(string))
		} else {
			out = append(out, m.Data["method"].(string))
		}
	}
	return out
}

func live(t *testing.T) *recorder {
	r := &recorder{}
	prev := SetTransport(r)
	t.Cleanup(func() { SetTransport(prev) })
	return r
}

func TestShowOpensModelsReferencesFirst(t *testing.T) {
	r := live(t)
	s := IntSlider("n", 8, 2, 64, 1)
	b := s.MIMEBundle()
	view := b[ViewMIME].(map[string]any)
	if view["model_id"] != s.ID || view["version_major"] != 2 {
		t.Fatalf("view = %v", view)
	}
	got := strings.Join(r.methods(), " ")
	if got != "open:LayoutModel open:SliderStyleModel open:IntSliderModel" {
		t.Fatalf("messages = %s", got)
	}
	open := r.msgs[2]
	st := open.Data["state"].(map[string]any)
	if open.Target != CommTarget || open.Metadata["version"] != ProtocolVersion || st["_model_module_version"] != ControlsVersion ||
		st["layout"] != "IPY_MODEL_"+r.msgs[0].CommID || st["value"] != 8 {
		t.Fatalf("comm_open = %+v", open)
	}
	s.MIMEBundle() // shown again: no second comm_open
	if len(r.msgs) != 3 {
		t.Fatalf("reopened: %v", r.methods())
	}
}

func TestFrontEndUpdateIsEchoedAndRunsOnChange(t *testing.T) {
	r := live(t)
	s := FloatSlider("GB/s", 25, 1, 900, 1)
	s.MIMEBundle()
	var seen []any
	s.OnChange(func(v any) { seen = append(seen, v) })
	if err := Deliver(s.ID, map[string]any{"method": "update", "state": map[string]any{"value": float64(50)}, "buffer_paths": []any{}}); err != nil {
		t.Fatal(err)
	}
	if s.Float() != 50 || len(seen) != 1 || seen[0] != 50.0 {
		t.Fatalf("value %v, OnChange saw %v", s.Value(), seen)
	}
	last := r.msgs[len(r.msgs)-1]
	if last.Data["method"] != "echo_update" || last.Data["state"].(map[string]any)["value"] != 50.0 {
		t.Fatalf("last message %+v, want echo_update", last)
	}
	if err := Deliver("nope", map[string]any{"method": "update"}); err == nil {
		t.Fatal("unknown comm accepted")
	}
}

func TestSetValueFromGoSendsUpdate(t *testing.T) {
	r := live(t)
	d := Dropdown("algo", []string{"ring", "tree"}, "ring")
	d.MIMEBundle()
	if err := d.SetValue("tree"); err != nil {
		t.Fatal(err)
	}
	if d.Str() != "tree" || r.msgs[len(r.msgs)-1].Data["state"].(map[string]any)["index"] != 1 {
		t.Fatalf("dropdown = %v, last %+v", d.Value(), r.msgs[len(r.msgs)-1])
	}
	if err := d.SetValue("nvls"); err == nil {
		t.Fatal("unknown option accepted")
	}
}

func TestButtonClickAndRequestState(t *testing.T) {
	r := live(t)
	b := Button("run")
	b.MIMEBundle()
	clicks := 0
	b.OnClick(func() { clicks++ })
	_ = Deliver(b.ID, map[string]any{"method": "custom", "content": map[string]any{"event": "click"}})
	_ = Deliver(b.ID, map[string]any{"method": "request_state"})
	if clicks != 1 || r.msgs[len(r.msgs)-1].Data["method"] != "update" {
		t.Fatalf("clicks %d, last %v", clicks, r.methods())
	}
	if _, ok := AllStates()[b.ID]; !ok {
		t.Fatal("AllStates misses an open widget")
	}
}

func TestInteractLiveRerunsIntoOutput(t *testing.T) {
	r := live(t)
	var shown []string
	prev := display.SetPublisher(func(m display.Message) {
		if m.Kind == display.KindDisplay {
			shown = append(shown, m.Bundle.Data[display.MIMEPlain].(string))
		}
	})
	defer display.SetPublisher(prev)
	n := IntSlider("n", 2, 2, 16, 1)
	calls := []int{}
	ui, err := Interact(func(n int) int { calls = append(calls, n); return 2 * (n - 1) }, n)
	if err != nil {
		t.Fatal(err)
	}
	_ = Deliver(n.ID, map[string]any{"method": "update", "state": map[string]any{"value": float64(8)}})
	if len(calls) != 2 || calls[1] != 8 {
		t.Fatalf("calls = %v", calls)
	}
	if !strings.HasPrefix(ui.Box.String(), "VBox(IntSlider") {
		t.Fatalf("ui %s shown %v", ui, shown)
	}
	// Each run's outputs replace the Output widget's "outputs" state.
	var texts []any
	for _, m := range r.msgs {
		if st, ok := m.Data["state"].(map[string]any); ok && !m.Open {
			if outs, ok := st["outputs"].([]any); ok {
				texts = append(texts, outs[0].(map[string]any)["data"].(map[string]any)[display.MIMEPlain])
			}
		}
	}
	if len(texts) != 2 || texts[0] != "2" || texts[1] != "14" {
		t.Fatalf("outputs updates = %v", texts)
	}
}

func TestInteractHeadlessRunsOnceWithDefaults(t *testing.T) {
	var shown []string
	prev := display.SetPublisher(func(m display.Message) { shown = append(shown, m.Bundle.Data[display.MIMEPlain].(string)) })
	defer display.SetPublisher(prev)
	_, err := Interact(func(alpha float64, algo string) string { return algo + " " + display.Text(alpha) },
		FloatLogSlider("alpha", 5e-6, -7, -3, 0.1), Dropdown("algo", []string{"ring", "tree"}, "tree"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`VBox(FloatLogSlider(description="alpha", value=5e-06, min=-7, max=-3, step=0.1), Dropdown(description="algo", value="tree", options=[ring tree]))`, "tree 5e-06"}
	if strings.Join(shown, "|") != strings.Join(want, "|") {
		t.Fatalf("shown %q\nwant  %q", shown, want)
	}
	if _, err := Interact(func(int) {}, IntSlider("", 1, 0, 2, 1), IntSlider("", 1, 0, 2, 1)); err == nil {
		t.Fatal("arity mismatch accepted")
	}
}

func ExampleIntSlider() {
	n := IntSlider("GPUs", 8, 2, 64, 1)
	fmt.Println(n, n.Int())
	// Output: IntSlider(description="GPUs", value=8, min=2, max=64, step=1) 8
}

// TestHTMLShowsValuesWhereNoWidgetManagerRuns: an exported page or a
// headless run shows the controls' values as a table, not a Go-like dump.
func TestHTMLShowsValuesWhereNoWidgetManagerRuns(t *testing.T) {
	box := VBox(IntSlider("GPUs", 8, 2, 64, 1), FloatLogSlider("alpha <s>", 5e-6, -7, -3, 0.1),
		Dropdown("algo", []string{"ring", "tree"}, "tree"), Output())
	got := box.HTML()
	for _, want := range []string{"interactive in Jupyter", ">GPUs<", ">8<", "2 to 64, step 1", "alpha &lt;s&gt;", "0.0000001 to 0.001", ">tree<", "one of ring, tree"} {
		if !strings.Contains(got, want) {
			t.Errorf("HTML lacks %q:\n%s", want, got)
		}
	}
	if b := box.MIMEBundle(); b[display.MIMEHTML] != got || b[display.MIMEPlain] != box.String() {
		t.Errorf("bundle without a front end: %v", b)
	}
}

// A slider starts at the cell's exact value: its model's min puts the
// value on the step grid the front end snaps the handle to, so what the
// front end sends back on drawing is the value itself (1 GiB, not the
// 10^9 of the nearest step from 10^3).
func TestSlidersStartOnTheirGrid(t *testing.T) {
	snap := func(v, min, step float64) float64 { return min + math.Round((v-min)/step)*step }
	gib := float64(1 << 30)
	for _, c := range []struct {
		name        string
		w           *Widget
		pos         float64 // the handle's position: the value, or its log10
		declaredMin float64
	}{
		{"log slider at 1 GiB", FloatLogSlider("bytes", gib, 3, 11, 0.1), math.Log10(gib), 3},
		{"slider over log10 bytes", FloatSlider("log10 bytes", math.Log10(gib), 3, 11, 0.1), math.Log10(gib), 3},
		{"alpha 5 us", FloatLogSlider("alpha", 5e-6, -7, -3, 0.1), math.Log10(5e-6), -7},
		{"already on the grid", FloatSlider("GB/s", 25, 1, 900, 0.5), 25, 1},
		{"outside the range", FloatSlider("x", 50, 0, 10, 1), 50, 0},
		{"int", IntSlider("GPUs", 8, 3, 64, 2), 8, 3},
	} {
		min := toFloat64(c.w.state["min"])
		step := toFloat64(c.w.state["step"])
		if min < c.declaredMin || min >= c.declaredMin+step {
			t.Errorf("%s: min %v moved out of [%v, %v)", c.name, min, c.declaredMin, c.declaredMin+step)
		}
		if c.pos <= toFloat64(c.w.state["max"]) && math.Abs(snap(c.pos, min, step)-c.pos) > 1e-9 {
			t.Errorf("%s: the front end would snap %v to %v", c.name, c.pos, snap(c.pos, min, step))
		}
		if !strings.Contains(c.w.String(), fmt.Sprintf("min=%v", c.declaredMin)) {
			t.Errorf("%s: text form %s does not show the declared min", c.name, c.w.String())
		}
	}
	if v := FloatLogSlider("bytes", gib, 3, 11, 0.1).state["value"]; v != gib {
		t.Errorf("value %v, want 1 GiB exactly", v)
	}
	if h := FloatLogSlider("bytes", gib, 3, 11, 0.1).HTML(); !strings.Contains(h, "1,073,741,824") || !strings.Contains(h, "1,000 to 100,000,000,000") {
		t.Errorf("page rendering: %s", h)
	}
}
