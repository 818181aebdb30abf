// Package widget gives notebook cells live controls: sliders (int, float,
// log-float), dropdown, checkbox, text, button, output, HBox/VBox, and
// Interact, which re-runs a Go function and replaces its output whenever a
// control moves.
//
// Widgets speak the ipywidgets comm protocol 2.1 with the
// @jupyter-widgets/controls 2.0, base 2.0 and output 1.0 models, each
// state exactly as ipywidgets 8 defines it (the tests hold every model to
// @jupyter-widgets/schema): comm target "jupyter.widget", comm_open with
// the full state and buffer_paths, "update" both ways, "echo_update" for
// changes a front end made, "request_state" and "custom" messages (button
// clicks), and request_states on "jupyter.widget.control" (Control), as
// JupyterLab's widget manager and commlab's classic Notebook extension
// (package install) send them.
//
// widget knows no sockets: the kernel installs a Transport (SetTransport)
// and delivers front-end messages with Deliver. Without a transport, in a
// headless run, a widget shows as text of its state and Interact runs its
// function once with the controls' current values, so the output is the
// same a reader would first see.
package widget

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"maps"
	"math"

	"github.com/commlab/commlab/units"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/commlab/commlab/kernel/display"
)

// Protocol and model versions this package speaks.
const (
	ProtocolVersion   = "2.1.0"
	ControlsModule    = "@jupyter-widgets/controls"
	ControlsVersion   = "2.0.0"
	BaseModule        = "@jupyter-widgets/base"
	BaseVersion       = "2.0.0"
	OutputModule      = "@jupyter-widgets/output"
	OutputVersion     = "1.0.0"
	CommTarget        = "jupyter.widget"
	ControlCommTarget = "jupyter.widget.control"
	ViewMIME          = "application/vnd.jupyter.widget-view+json"
)

// CommMessage is a message for the front end: a comm_open (Open true) or
// a comm_msg on an open comm.
type CommMessage struct {
	Open     bool
	Close    bool
	CommID   string
	Target   string
	Data     map[string]any
	Metadata map[string]any
}

// Transport carries comm messages to the front end.
type Transport interface {
	Send(m CommMessage)
	// Capture runs fn and returns the outputs it produced, as nbformat
	// output dicts, instead of showing them: Interact puts them into its
	// Output widget's "outputs" state, which every front end renders.
	Capture(fn func()) []map[string]any
}

var (
	mu        sync.Mutex
	transport Transport
	registry  = map[string]*Widget{}
)

// SetTransport installs the transport and returns the previous one; nil
// means no live front end (headless).
func SetTransport(t Transport) Transport {
	mu.Lock()
	defer mu.Unlock()
	prev := transport
	transport = t
	return prev
}

func currentTransport() Transport {
	mu.Lock()
	defer mu.Unlock()
	return transport
}

// Widget is one model on the front end, with its view when it has one.
type Widget struct {
	ID    string
	mu    sync.Mutex
	state map[string]any
	kind  string // "IntSlider", ... for text

	children  []*Widget
	onChange  []func(value any)
	onClick   []func()
	opened    bool
	refs      []*Widget // layout and style models
	valueConv func(any) (any, error)
	// rangeText is a slider's range as the cell declared it, for the
	// page's controls table (the model's min may sit on the value's grid).
	rangeText string
	// declaredMin is the min the cell gave, for the text form.
	declaredMin any
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func newModel(kind string, state map[string]any) *Widget {
	w := &Widget{ID: newID(), state: state, kind: kind}
	mu.Lock()
	registry[w.ID] = w
	mu.Unlock()
	return w
}

func baseState(model, view, module, version string) map[string]any {
	return map[string]any{
		"_model_module": module, "_model_module_version": version, "_model_name": model,
		"_view_module": module, "_view_module_version": version, "_view_name": view,
		"_view_count": nil,
	}
}

// styleState is each style model's state beyond the model and view names,
// as ipywidgets 8 defines it (@jupyter-widgets/schema).
var styleState = map[string]map[string]any{
	"SliderStyleModel":      {"description_width": "", "handle_color": nil},
	"DescriptionStyleModel": {"description_width": ""},
	"CheckboxStyleModel":    {"background": nil, "description_width": ""},
	"TextStyleModel":        {"background": nil, "description_width": "", "font_size": nil, "text_color": nil},
	"ButtonStyleModel": {"button_color": nil, "font_family": nil, "font_size": nil, "font_style": nil,
		"font_variant": nil, "font_weight": nil, "text_color": nil, "text_decoration": nil},
}

// domWidget makes a DOM widget model of kind with its layout model and,
// when styleModel is not empty, its style model; st is the widget's own
// state beyond names, layout and style.
func domWidget(kind, module, version, styleModel string, st map[string]any) *Widget {
	layout := newModel("Layout", baseState("LayoutModel", "LayoutView", BaseModule, BaseVersion))
	for _, k := range layoutKeys {
		layout.state[k] = nil
	}
	state := baseState(kind+"Model", kind+"View", module, version)
	state["_dom_classes"], state["tabbable"], state["tooltip"] = []any{}, nil, nil
	state["layout"] = "IPY_MODEL_" + layout.ID
	refs := []*Widget{layout}
	if styleModel != "" {
		style := newModel("Style", baseState(styleModel, "StyleView", BaseModule, BaseVersion))
		style.state["_model_module"], style.state["_model_module_version"] = ControlsModule, ControlsVersion
		maps.Copy(style.state, styleState[styleModel])
		state["style"] = "IPY_MODEL_" + style.ID
		refs = append(refs, style)
	}
	maps.Copy(state, st)
	w := newModel(kind, state)
	w.refs = refs
	return w
}

// layoutKeys are the LayoutModel's CSS properties, all unset.
var layoutKeys = []string{"align_content", "align_items", "align_self", "border_bottom", "border_left", "border_right",
	"border_top", "bottom", "display", "flex", "flex_flow", "grid_area", "grid_auto_columns", "grid_auto_flow",
	"grid_auto_rows", "grid_column", "grid_gap", "grid_row", "grid_template_areas", "grid_template_columns",
	"grid_template_rows", "height", "justify_content", "justify_items", "left", "margin", "max_height", "max_width",
	"min_height", "min_width", "object_fit", "object_position", "order", "overflow", "padding", "right", "top",
	"visibility", "width"}

// control makes a described control (slider, dropdown, ...) with its style.
func control(kind, styleModel string, extra map[string]any) *Widget {
	st := map[string]any{"description": "", "description_allow_html": false, "disabled": false}
	maps.Copy(st, extra)
	return domWidget(kind, ControlsModule, ControlsVersion, styleModel, st)
}

// IntSlider is a slider over integers.
func IntSlider(description string, value, min, max, step int) *Widget {
	gridded := min
	if step > 0 && value >= min && value <= max {
		gridded = value - (value-min)/step*step
	}
	w := slider("IntSlider", description, value, gridded, max, step, "d", toInt, nil)
	w.declaredMin = min
	w.rangeText = fmt.Sprintf("%s to %s, step %s", units.Count(int64(min)), units.Count(int64(max)), units.Count(int64(step)))
	return w
}

// FloatSlider is a slider over floats.
func FloatSlider(description string, value, min, max, step float64) *Widget {
	w := slider("FloatSlider", description, value, gridMin(value, min, max, step), max, step, ".4g", toFloat, nil)
	w.declaredMin = min
	w.rangeText = fmt.Sprintf("%s to %s, step %s", units.Number(min), units.Number(max), units.Number(step))
	return w
}

// FloatLogSlider is a slider over floats spaced evenly in log10: value
// goes from 10^minExp to 10^maxExp in steps of 10^stepExp, so one slider
// spans bytes to gigabytes. It starts at value exactly (1 GiB stays 1 GiB,
// not the 10^9 of the nearest step).
func FloatLogSlider(description string, value, minExp, maxExp, stepExp float64) *Widget {
	minGrid := minExp
	if value > 0 {
		minGrid = gridMin(math.Log10(value), minExp, maxExp, stepExp)
	}
	w := slider("FloatLogSlider", description, value, minGrid, maxExp, stepExp, ".4g", toFloat, map[string]any{"base": 10.0})
	w.declaredMin = minExp
	w.rangeText = fmt.Sprintf("%s to %s", units.Number(math.Pow(10, minExp)), units.Number(math.Pow(10, maxExp)))
	return w
}

// gridMin is the slider minimum to send the front end: min moved up by
// less than one step so that value sits on the grid min + k*step. The
// front end's slider snaps its handle to that grid when it draws, and
// sends the snapped value back: a value off the grid would change (log10
// of 1 GiB, 9.0309, to 9.0) before anyone touched the control, and the
// live cell would disagree with the page that ran at the exact value.
func gridMin(value, min, max, step float64) float64 {
	if !(step > 0) || math.IsNaN(value) || math.IsInf(value, 0) || value < min || value > max {
		return min
	}
	k := math.Floor((value-min)/step + 1e-9)
	m := value - k*step
	if math.Abs(m-min) <= 1e-12*math.Max(1, math.Abs(min)) {
		return min
	}
	return m
}

// slider is a horizontal slider model of kind over [min, max] in steps of
// step, its readout in format; extra adds model-specific state.
func slider(kind, description string, value, min, max, step any, format string, conv func(any) (any, error), extra map[string]any) *Widget {
	st := map[string]any{
		"description": description, "value": value, "min": min, "max": max, "step": step,
		"behavior": "drag-tap", "continuous_update": true, "orientation": "horizontal", "readout": true, "readout_format": format,
	}
	for k, v := range extra {
		st[k] = v
	}
	w := control(kind, "SliderStyleModel", st)
	w.valueConv = conv
	return w
}

// Dropdown picks one of options.
func Dropdown(description string, options []string, value string) *Widget {
	index := -1
	labels := make([]any, len(options))
	for i, o := range options {
		labels[i] = o
		if o == value {
			index = i
		}
	}
	// The front end knows the choice by index (nil: no options).
	var idx any
	if index >= 0 {
		idx = index
	} else if len(options) > 0 {
		idx = 0
	}
	w := control("Dropdown", "DescriptionStyleModel", map[string]any{
		"description": description, "_options_labels": labels, "index": idx,
	})
	w.valueConv = func(v any) (any, error) { return v, nil }
	return w
}

// Checkbox is a boolean.
func Checkbox(description string, value bool) *Widget {
	w := control("Checkbox", "CheckboxStyleModel", map[string]any{"description": description, "value": value, "indent": true})
	w.valueConv = toBool
	return w
}

// Text is a one-line text field.
func Text(description, value string) *Widget {
	w := control("Text", "TextStyleModel", map[string]any{"description": description, "value": value, "placeholder": "", "continuous_update": true})
	w.valueConv = toString
	return w
}

// Button calls its OnClick functions when pressed.
func Button(description string) *Widget {
	w := control("Button", "ButtonStyleModel", map[string]any{"description": description, "button_style": "", "icon": ""})
	delete(w.state, "description_allow_html") // a button's description is never HTML
	return w
}

// Output is an area that shows the outputs produced while it captures.
func Output() *Widget {
	return domWidget("Output", OutputModule, OutputVersion, "", map[string]any{"msg_id": "", "outputs": []any{}})
}

// HBox lays children out in a row.
func HBox(children ...*Widget) *Widget { return box("HBox", children) }

// VBox lays children out in a column.
func VBox(children ...*Widget) *Widget { return box("VBox", children) }

// box lays children out; ipywidgets 8 boxes have a layout and no style.
func box(kind string, children []*Widget) *Widget {
	ids := make([]any, len(children))
	for i, c := range children {
		ids[i] = "IPY_MODEL_" + c.ID
	}
	w := domWidget(kind, ControlsModule, ControlsVersion, "", map[string]any{"children": ids, "box_style": ""})
	w.children = children
	return w
}

// Value is the control's current value: int, float64, string or bool.
func (w *Widget) Value() any {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.valueLocked()
}

// Int is the value as an int (0 if it is not a number).
func (w *Widget) Int() int { v, _ := toInt(w.Value()); n, _ := v.(int); return n }

// Float is the value as a float64 (0 if it is not a number).
func (w *Widget) Float() float64 { v, _ := toFloat(w.Value()); f, _ := v.(float64); return f }

// Str is the value as a string.
func (w *Widget) Str() string { return fmt.Sprint(w.Value()) }

// Bool is the value as a bool.
func (w *Widget) Bool() bool { b, _ := w.Value().(bool); return b }

// SetValue changes the value from Go and tells the front end.
func (w *Widget) SetValue(v any) error {
	if w.kind == "Dropdown" {
		s := fmt.Sprint(v)
		idx := w.optionIndex(s)
		if idx < 0 {
			return fmt.Errorf("widget: %q is not an option of this dropdown", s)
		}
		w.set(map[string]any{"index": idx}, true)
		return nil
	}
	if w.valueConv != nil {
		c, err := w.valueConv(v)
		if err != nil {
			return err
		}
		v = c
	}
	w.set(map[string]any{"value": v}, true)
	return nil
}

// Set changes any state key (description, min, max, disabled, ...) and
// tells the front end.
func (w *Widget) Set(key string, v any) { w.set(map[string]any{key: v}, true) }

// OnChange registers f to run with the new value when the value changes.
func (w *Widget) OnChange(f func(value any)) {
	w.mu.Lock()
	w.onChange = append(w.onChange, f)
	w.mu.Unlock()
}

// OnClick registers f to run when a button is pressed.
func (w *Widget) OnClick(f func()) { w.mu.Lock(); w.onClick = append(w.onClick, f); w.mu.Unlock() }

// Click runs the OnClick functions, as a press on the front end does.
func (w *Widget) Click() {
	w.mu.Lock()
	fs := append([]func(){}, w.onClick...)
	w.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

func (w *Widget) optionIndex(s string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	labels, _ := w.state["_options_labels"].([]any)
	for i, l := range labels {
		if l == s {
			return i
		}
	}
	return -1
}

// set applies a change; send tells the front end (changes from Go), while
// changes from the front end are echoed instead (see Deliver).
func (w *Widget) set(change map[string]any, send bool) {
	w.mu.Lock()
	old := w.valueLocked()
	for k, v := range change {
		w.state[k] = v
	}
	now := w.valueLocked()
	fs := append([]func(any){}, w.onChange...)
	opened := w.opened
	w.mu.Unlock()
	if send && opened {
		if t := currentTransport(); t != nil {
			t.Send(CommMessage{CommID: w.ID, Data: map[string]any{"method": "update", "state": change, "buffer_paths": []any{}}})
		}
	}
	if !equalValues(old, now) {
		for _, f := range fs {
			f(now)
		}
	}
}

// valueLocked is the value; a dropdown's is the label its index picks
// (nil without one).
func (w *Widget) valueLocked() any {
	if w.kind != "Dropdown" {
		return w.state["value"]
	}
	labels, _ := w.state["_options_labels"].([]any)
	if i, ok := asInt(w.state["index"]); ok && i >= 0 && i < len(labels) {
		return labels[i]
	}
	return nil
}

func equalValues(a, b any) bool { return reflect.DeepEqual(a, b) }

// open sends comm_open for the widget and every model it refers to,
// references first, once.
func (w *Widget) open(t Transport) {
	for _, r := range w.refs {
		r.open(t)
	}
	for _, c := range w.children {
		c.open(t)
	}
	w.mu.Lock()
	if w.opened {
		w.mu.Unlock()
		return
	}
	w.opened = true
	state := copyState(w.state)
	w.mu.Unlock()
	t.Send(CommMessage{Open: true, CommID: w.ID, Target: CommTarget,
		Data:     map[string]any{"state": state, "buffer_paths": []any{}},
		Metadata: map[string]any{"version": ProtocolVersion}})
}

func copyState(s map[string]any) map[string]any {
	c := make(map[string]any, len(s))
	for k, v := range s {
		c[k] = v
	}
	return c
}

// MIMEBundle shows the widget: a view of its model on a live front end,
// and in any case a text form of its state.
func (w *Widget) MIMEBundle() map[string]any {
	b := map[string]any{display.MIMEPlain: w.String(), display.MIMEHTML: w.HTML()}
	if t := currentTransport(); t != nil {
		w.open(t)
		b[ViewMIME] = map[string]any{"model_id": w.ID, "version_major": 2, "version_minor": 0}
	}
	return b
}

// Show displays the widget now.
func (w *Widget) Show() { display.Show(display.Bundle{Data: w.MIMEBundle()}) }

// String is the text form of the widget: its kind and main state.
func (w *Widget) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch w.kind {
	case "HBox", "VBox":
		parts := make([]string, len(w.children))
		for i, c := range w.children {
			parts[i] = c.String()
		}
		return w.kind + "(" + strings.Join(parts, ", ") + ")"
	case "Output":
		return "Output()"
	case "Button":
		return fmt.Sprintf("Button(description=%q)", w.state["description"])
	case "Dropdown":
		return fmt.Sprintf("Dropdown(description=%q, value=%q, options=%v)", w.state["description"], fmt.Sprint(w.valueLocked()), w.state["_options_labels"])
	}
	keys := []string{"value", "min", "max", "step"}
	var parts []string
	if d, _ := w.state["description"].(string); d != "" {
		parts = append(parts, fmt.Sprintf("description=%q", d))
	}
	for _, k := range keys {
		if v, ok := w.state[k]; ok {
			if k == "min" && w.declaredMin != nil {
				v = w.declaredMin
			}
			parts = append(parts, fmt.Sprintf("%s=%v", k, v))
		}
	}
	return w.kind + "(" + strings.Join(parts, ", ") + ")"
}

// HTML is the widget as a page without a widget manager shows it (an
// exported notebook, a headless run): the controls' values as a static
// table, saying that they move only in Jupyter. Front ends with a widget
// manager rank the widget view above it.
func (w *Widget) HTML() string {
	var rows strings.Builder
	w.writeHTMLRows(&rows)
	return `<div class="commlab-controls" style="display:inline-block;border:1px solid #d0d7de;border-radius:4px;padding:4px 10px;background:#f6f8fa;font-size:90%">` +
		`<div style="color:#57606a">controls (interactive in Jupyter; this page shows the values it ran with)</div>` +
		`<table style="border-collapse:collapse">` + rows.String() + `</table></div>`
}

func (w *Widget) writeHTMLRows(b *strings.Builder) {
	w.mu.Lock()
	kind, children := w.kind, w.children
	desc, _ := w.state["description"].(string)
	value := fmt.Sprint(w.valueLocked())
	var detail string
	switch kind {
	case "HBox", "VBox", "Output":
	case "Dropdown":
		detail = "one of " + optionsText(w.state["_options_labels"])
	case "Button":
		value = ""
	default:
		detail = w.rangeText
	}
	if f, ok := w.valueLocked().(float64); ok {
		value = units.Number(f)
	}
	w.mu.Unlock()
	switch kind {
	case "HBox", "VBox":
		for _, c := range children {
			c.writeHTMLRows(b)
		}
		return
	case "Output":
		return
	}
	fmt.Fprintf(b, `<tr><td style="padding:1px 8px 1px 0">%s</td><td style="padding:1px 8px;font-weight:600">%s</td><td style="padding:1px 0;color:#57606a">%s</td></tr>`,
		html.EscapeString(desc), html.EscapeString(value), html.EscapeString(detail))
}

func toFloat64(v any) float64 {
	f, _ := toFloat(v)
	x, _ := f.(float64)
	return x
}

// ErrUnknownComm reports a message for a comm this kernel did not open.
var ErrUnknownComm = errors.New("widget: unknown comm")

// Deliver handles a comm_msg from the front end. Updates change the state,
// are echoed back (echo_update, protocol 2.1) and run OnChange; "custom"
// click events run OnClick; request_state answers with the full state.
func Deliver(commID string, data map[string]any) error {
	mu.Lock()
	w, ok := registry[commID]
	t := transport
	mu.Unlock()
	if !ok {
		return fmt.Errorf("%w %s", ErrUnknownComm, commID)
	}
	method, _ := data["method"].(string)
	switch method {
	case "update":
		state, _ := data["state"].(map[string]any)
		if t != nil {
			t.Send(CommMessage{CommID: w.ID, Data: map[string]any{"method": "echo_update", "state": state, "buffer_paths": []any{}}})
		}
		change := map[string]any{}
		for k, v := range state {
			if k == "value" && w.valueConv != nil {
				if c, err := w.valueConv(v); err == nil {
					v = c
				}
			}
			if k == "index" {
				if i, ok := asInt(v); ok {
					v = i
				}
			}
			change[k] = v
		}
		w.set(change, false)
	case "request_state":
		w.mu.Lock()
		state := copyState(w.state)
		w.mu.Unlock()
		if t != nil {
			t.Send(CommMessage{CommID: w.ID, Data: map[string]any{"method": "update", "state": state, "buffer_paths": []any{}}})
		}
	case "custom":
		content, _ := data["content"].(map[string]any)
		if content["event"] == "click" {
			w.Click()
		}
	default:
		return fmt.Errorf("widget: comm %s: unknown method %q", commID, method)
	}
	return nil
}

// Closed forgets a comm the front end closed.
func Closed(commID string) {
	mu.Lock()
	if w, ok := registry[commID]; ok {
		w.mu.Lock()
		w.opened = false
		w.mu.Unlock()
	}
	mu.Unlock()
}

// Control answers a message on a jupyter.widget.control comm (control
// protocol 1.0, which JupyterLab's widget manager uses to restore widgets
// after a reload): request_states gets update_states with every open
// model's state, and buffer_paths a list, as ipywidgets 8 sends it.
func Control(data map[string]any) (map[string]any, error) {
	if method, _ := data["method"].(string); method != "request_states" {
		return nil, fmt.Errorf("widget: control comm: unknown method %q", method)
	}
	return map[string]any{"method": "update_states", "states": AllStates(), "buffer_paths": []any{}}, nil
}

// AllStates is every open model's state by id, with its model name,
// module and version, as update_states carries them.
func AllStates() map[string]any {
	mu.Lock()
	defer mu.Unlock()
	out := map[string]any{}
	for _, id := range slices.Sorted(maps.Keys(registry)) {
		w := registry[id]
		w.mu.Lock()
		if w.opened {
			out[id] = map[string]any{"model_name": w.state["_model_name"], "model_module": w.state["_model_module"],
				"model_module_version": w.state["_model_module_version"], "state": copyState(w.state)}
		}
		w.mu.Unlock()
	}
	return out
}

func asInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case float64:
		if n == math.Trunc(n) {
			return int(n), true
		}
	}
	return 0, false
}

func toInt(v any) (any, error) {
	if n, ok := asInt(v); ok {
		return n, nil
	}
	return nil, fmt.Errorf("widget: %v is not an integer", v)
}

func toFloat(v any) (any, error) {
	switch n := v.(type) {
	case float64:
		return n, nil
	case float32:
		return float64(n), nil
	case int:
		return float64(n), nil
	case int64:
		return float64(n), nil
	}
	return nil, fmt.Errorf("widget: %v is not a number", v)
}

func toBool(v any) (any, error) {
	if b, ok := v.(bool); ok {
		return b, nil
	}
	return nil, fmt.Errorf("widget: %v is not a bool", v)
}

func toString(v any) (any, error) { return fmt.Sprint(v), nil }

// optionsText lists a dropdown's labels as a person writes them
// ("ring, tree, dbtree"), not as Go prints a slice.
func optionsText(v any) string {
	switch labels := v.(type) {
	case []string:
		return strings.Join(labels, ", ")
	case []any:
		parts := make([]string, len(labels))
		for i, l := range labels {
			parts[i] = fmt.Sprint(l)
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(v)
}
