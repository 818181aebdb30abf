package widget

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/commlab/commlab/kernel/display"
)

// The ipywidgets 8 model schema (controls 2.0.0, base 2.0.0, output 1.0.0),
// the models commlab makes, from @jupyter-widgets/schema 0.5.6
// jupyterwidgetmodels.latest.json (BSD-3-Clause, Jupyter Development Team).
type schemaModel struct {
	Model, View struct{ Module, Name, Version string }
	Attributes  []struct {
		Name      string
		Type      string
		AllowNone bool `json:"allow_none"`
	}
}

func loadSchema(t *testing.T) map[string]schemaModel {
	t.Helper()
	raw, err := os.ReadFile("testdata/jupyterwidgetmodels.json")
	if err != nil {
		t.Fatal(err)
	}
	var list []schemaModel
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]schemaModel{}
	for _, m := range list {
		out[m.Model.Module+"@"+m.Model.Version+" "+m.Model.Name] = m
	}
	return out
}

// checkState holds a model's state to the schema: the class exists in
// the module and version named (the front end loads it from there), the
// view too, the keys are exactly the schema's, each value has its type,
// and references name models opened before.
func checkState(t *testing.T, schema map[string]schemaModel, state map[string]any, opened map[string]bool) {
	t.Helper()
	key := fmt.Sprint(state["_model_module"], "@", state["_model_module_version"], " ", state["_model_name"])
	m, ok := schema[key]
	if !ok {
		t.Errorf("model %s is not an ipywidgets 8 class", key)
		return
	}
	if state["_view_module"] != m.View.Module || state["_view_name"] != m.View.Name || state["_view_module_version"] != m.View.Version {
		t.Errorf("%s: view %v %v %v, want %+v", key, state["_view_module"], state["_view_module_version"], state["_view_name"], m.View)
	}
	var want, got []string
	for _, a := range m.Attributes {
		want = append(want, a.Name)
		v, present := state[a.Name]
		if !present {
			continue
		}
		if v == nil {
			if !a.AllowNone {
				t.Errorf("%s.%s is null, the schema does not allow it", key, a.Name)
			}
			continue
		}
		if err := checkType(a.Type, v, opened); err != nil {
			t.Errorf("%s.%s: %v", key, a.Name, err)
		}
	}
	for k, v := range state {
		// ipywidgets syncs _view_count (null) too; the schema leaves it
		// out as experimental.
		if k == "_view_count" && v == nil {
			continue
		}
		got = append(got, k)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("%s state keys\n got %v\nwant %v", key, got, want)
	}
}

func checkType(typ string, v any, opened map[string]bool) error {
	// State goes out as JSON: compare what the front end will read.
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var j any
	_ = json.Unmarshal(raw, &j)
	ok := false
	switch typ {
	case "string":
		_, ok = j.(string)
	case "bool":
		_, ok = j.(bool)
	case "float":
		_, ok = j.(float64)
	case "int":
		f, isNum := j.(float64)
		ok = isNum && f == math.Trunc(f)
	case "array":
		_, ok = j.([]any)
	case "reference":
		s, _ := j.(string)
		if id, found := strings.CutPrefix(s, "IPY_MODEL_"); found && !opened[id] {
			return fmt.Errorf("refers to %s, not opened before", s)
		}
		ok = strings.HasPrefix(s, "IPY_MODEL_")
	default:
		return fmt.Errorf("type %s not checked", typ)
	}
	if !ok {
		return fmt.Errorf("%s is not of type %s", raw, typ)
	}
	return nil
}

// Every model commlab opens is one the ipywidgets 8 front end defines,
// with its state as the schema gives it (a box has no style model: the
// front end had no BoxStyleModel to build).
func TestModelsFollowIpywidgets8Schema(t *testing.T) {
	schema := loadSchema(t)
	makers := []struct {
		name string
		make func() *Widget
	}{
		{"IntSlider", func() *Widget { return IntSlider("n", 8, 2, 64, 1) }},
		{"FloatSlider", func() *Widget { return FloatSlider("GB/s", 25, 1, 900, 0.5) }},
		{"FloatLogSlider", func() *Widget { return FloatLogSlider("bytes", 1e6, 0, 9, 0.1) }},
		{"Dropdown", func() *Widget { return Dropdown("algo", []string{"ring", "tree"}, "tree") }},
		{"Dropdown without options", func() *Widget { return Dropdown("algo", nil, "") }},
		{"Checkbox", func() *Widget { return Checkbox("LL128", true) }},
		{"Text", func() *Widget { return Text("name", "x") }},
		{"Button", func() *Widget { return Button("run") }},
		{"Output", Output},
		{"HBox", func() *Widget { return HBox(IntSlider("a", 1, 0, 2, 1), Button("b")) }},
		{"VBox", func() *Widget { return VBox(FloatSlider("x", 1, 0, 2, 0.1), Output()) }},
	}
	for _, tc := range makers {
		t.Run(tc.name, func(t *testing.T) {
			r := live(t)
			prev := display.SetPublisher(func(display.Message) {})
			defer display.SetPublisher(prev)
			w := tc.make()
			w.Show()
			opened := map[string]bool{}
			for _, m := range r.msgs {
				if !m.Open {
					t.Fatalf("unexpected message %+v", m)
				}
				if m.Target != CommTarget || m.Metadata["version"] != ProtocolVersion {
					t.Errorf("comm_open target %q metadata %v", m.Target, m.Metadata)
				}
				if bp, ok := m.Data["buffer_paths"].([]any); !ok || len(bp) != 0 {
					t.Errorf("buffer_paths %#v, want an empty list", m.Data["buffer_paths"])
				}
				checkState(t, schema, m.Data["state"].(map[string]any), opened)
				opened[m.CommID] = true
			}
			if !opened[w.ID] {
				t.Fatal("the widget itself was not opened")
			}
		})
	}
}

// JupyterLab's widget manager (@jupyter-widgets/base-manager 1.x, which
// JupyterLab 4 and Notebook 7 use through jupyterlab_widgets) sends these
// sequences; each answer is checked as it reads it.
func TestJupyterLabManagerSequences(t *testing.T) {
	schema := loadSchema(t)
	r := live(t)
	n := IntSlider("n", 2, 2, 16, 1)
	ui, err := Interact(func(n int) int { return 2 * (n - 1) }, n)
	if err != nil {
		t.Fatal(err)
	}
	last := func() CommMessage { return r.msgs[len(r.msgs)-1] }

	// A reload: _loadFromKernel opens jupyter.widget.control with empty
	// data, asks request_states, and reads states[id].{model_name,
	// model_module, model_module_version, state} and buffer_paths.length.
	reply, err := Control(map[string]any{"method": "request_states"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(reply) // as it goes on the wire
	var states struct {
		Method string
		States map[string]struct {
			ModelName, ModelModule, ModelModuleVersion string
			State                                      map[string]any
		}
		BufferPaths []any `json:"buffer_paths"`
	}
	if err := json.Unmarshal(raw, &states); err != nil {
		t.Fatalf("update_states %s: %v", raw, err)
	}
	var st map[string]any
	_ = json.Unmarshal(raw, &st)
	if bp, ok := st["buffer_paths"].([]any); states.Method != "update_states" || !ok || len(bp) != 0 {
		t.Fatalf("update_states %s: want method update_states and buffer_paths an empty list", raw)
	}
	for _, id := range []string{n.ID, ui.Box.ID, ui.Output.ID} {
		s, ok := st["states"].(map[string]any)[id].(map[string]any)
		if !ok {
			t.Fatalf("update_states lacks %s", id)
		}
		state := s["state"].(map[string]any)
		if s["model_name"] != state["_model_name"] || s["model_module"] != state["_model_module"] || s["model_module_version"] != state["_model_module_version"] {
			t.Errorf("update_states[%s] names %v %v %v", id, s["model_name"], s["model_module"], s["model_module_version"])
		}
		all := map[string]bool{}
		for k := range st["states"].(map[string]any) {
			all[k] = true
		}
		checkState(t, schema, state, all)
	}
	if _, err := Control(map[string]any{"method": "nonsense"}); err == nil || !strings.HasPrefix(err.Error(), "widget: ") {
		t.Fatalf("unknown control method: %v", err)
	}

	// The fallback, _loadFromKernelModels: request_state on each comm is
	// answered by an update with the whole state.
	if err := Deliver(n.ID, map[string]any{"method": "request_state"}); err != nil {
		t.Fatal(err)
	}
	if m := last(); m.CommID != n.ID || m.Data["method"] != "update" || m.Data["state"].(map[string]any)["value"] != 2 ||
		len(m.Data["state"].(map[string]any)) < 20 {
		t.Fatalf("request_state answered %+v", m)
	}

	// A person moves the slider: update (state and buffer_paths) is echoed
	// first, then the re-run replaces the Output's outputs.
	before := len(r.msgs)
	if err := Deliver(n.ID, map[string]any{"method": "update", "state": map[string]any{"value": float64(5)}, "buffer_paths": []any{}}); err != nil {
		t.Fatal(err)
	}
	got := r.msgs[before:]
	if len(got) != 2 || got[0].CommID != n.ID || got[0].Data["method"] != "echo_update" ||
		got[0].Data["state"].(map[string]any)["value"] != float64(5) || got[1].CommID != ui.Output.ID || got[1].Data["method"] != "update" {
		t.Fatalf("after update: %+v", got)
	}
	if n.Int() != 5 {
		t.Fatalf("value %v", n.Value())
	}

	// The front end closes a comm: it is no longer among the states.
	Closed(n.ID)
	if _, ok := AllStates()[n.ID]; ok {
		t.Fatal("a closed comm is still in update_states")
	}
}

// Interact shows its controls once: the value it returns, as a cell's
// result, shows nothing more.
func TestInteractShowsOnce(t *testing.T) {
	for _, liveFront := range []bool{true, false} {
		t.Run(fmt.Sprint("live=", liveFront), func(t *testing.T) {
			if liveFront {
				live(t)
			}
			var views, texts int
			prev := display.SetPublisher(func(m display.Message) {
				if m.Kind != display.KindDisplay {
					return
				}
				if _, ok := m.Bundle.Data[ViewMIME]; ok {
					views++
				} else if s, _ := m.Bundle.Data[display.MIMEPlain].(string); strings.HasPrefix(s, "VBox(") {
					texts++
				}
			})
			defer display.SetPublisher(prev)
			ui, err := Interact(func(n int) {}, IntSlider("n", 2, 2, 16, 1))
			if err != nil {
				t.Fatal(err)
			}
			if !display.BundleOf(ui).Empty() {
				t.Fatalf("the result of Interact shows %v", display.BundleOf(ui).Data)
			}
			if liveFront && (views != 1 || texts != 0) || !liveFront && (views != 0 || texts != 1) {
				t.Fatalf("views %d, texts %d", views, texts)
			}
			ui.Box.Show() // asked for: shown again
			if liveFront && views != 2 {
				t.Fatalf("Box.Show: views %d", views)
			}
		})
	}
}
