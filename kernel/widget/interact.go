package widget

import (
	"fmt"
	"reflect"

	"github.com/commlab/commlab/kernel/display"
)

// Interact shows controls above an output area and calls f with the
// controls' values, now and again whenever one of them changes; each call's
// output replaces the previous one. f takes one parameter per control, in
// order, of the control's type (int for IntSlider, float64 for the float
// sliders, string for Dropdown and Text, bool for Checkbox); other numeric
// parameter types are converted.
//
//	widget.Interact(func(n int, beta float64) { ... },
//		widget.IntSlider("n", 8, 2, 64, 1), widget.FloatSlider("GB/s", 25, 1, 900, 1))
//
// Interact shows the controls once; the Interaction it returns, as a
// cell's result, shows nothing more.
func Interact(f any, controls ...*Widget) (*Interaction, error) {
	fv := reflect.ValueOf(f)
	if fv.Kind() != reflect.Func {
		return nil, fmt.Errorf("widget: Interact needs a function, got %T", f)
	}
	ft := fv.Type()
	if ft.NumIn() != len(controls) && !(ft.IsVariadic() && len(controls) >= ft.NumIn()-1) {
		return nil, fmt.Errorf("widget: Interact: the function takes %d parameters but %d controls were given", ft.NumIn(), len(controls))
	}
	out := Output()
	call := func() {
		args := make([]reflect.Value, len(controls))
		for i, c := range controls {
			pt := paramType(ft, i)
			v := reflect.ValueOf(c.Value())
			if !v.IsValid() {
				v = reflect.Zero(pt)
			}
			if !v.Type().AssignableTo(pt) {
				if !v.Type().ConvertibleTo(pt) {
					fmt.Fprintf(stderrWriter{}, "widget: Interact: control %d gives %s, the function wants %s\n", i, v.Type(), pt)
					return
				}
				v = v.Convert(pt)
			}
			args[i] = v
		}
		results := fv.Call(args)
		// A function that returns a value shows it, like a cell result.
		for _, r := range results {
			if r.IsValid() && r.CanInterface() {
				if b := display.BundleOf(r.Interface()); !b.Empty() {
					display.Show(b)
				}
			}
		}
	}
	run := func() {
		t := currentTransport()
		if t == nil {
			call()
			return
		}
		outputs := t.Capture(call)
		list := make([]any, len(outputs))
		for i, o := range outputs {
			list[i] = o
		}
		out.set(map[string]any{"outputs": list}, true)
	}
	for _, c := range controls {
		c.OnChange(func(any) { run() })
	}
	ui := &Interaction{Box: VBox(append(append([]*Widget{}, controls...), out)...), Output: out}
	if currentTransport() == nil {
		// Headless: the output at the controls' current values, as a
		// reader first sees it, below a text form of the controls.
		box := VBox(controls...)
		display.Show(display.Bundle{Data: map[string]any{display.MIMEPlain: box.String(), display.MIMEHTML: box.HTML()}})
	} else {
		ui.Box.Show()
	}
	run()
	return ui, nil
}

// Interaction is what Interact shows: its controls above their Output, in
// Box.
type Interaction struct {
	Box    *Widget
	Output *Widget
}

// MIMEBundle is empty: Interact has shown the controls already, and a
// cell's result must not show them twice (Box.Show shows them again).
func (*Interaction) MIMEBundle() map[string]any { return map[string]any{} }

func paramType(ft reflect.Type, i int) reflect.Type {
	if ft.IsVariadic() && i >= ft.NumIn()-1 {
		return ft.In(ft.NumIn() - 1).Elem()
	}
	return ft.In(i)
}

// stderrWriter writes through display so the message lands in order with
// the cell's other output.
type stderrWriter struct{}

func (stderrWriter) Write(p []byte) (int, error) {
	display.Plain(string(p))
	return len(p), nil
}
