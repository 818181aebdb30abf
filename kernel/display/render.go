package display

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/commlab/commlab/units"
)

// A Renderer turns a value of one type into a bundle. Packages below the
// kernel cannot import display, so renderings that join two of them (a
// topology drawn by probes/topograph, a parsed nccl-tests run drawn by
// lab/chart) are registered from above (kernel/symbols).
type Renderer func(v any) (Bundle, error)

var (
	renderMu  sync.RWMutex
	renderers = map[reflect.Type]Renderer{}
)

// RegisterRenderer makes values of t render through r as cell results.
func RegisterRenderer(t reflect.Type, r Renderer) {
	renderMu.Lock()
	defer renderMu.Unlock()
	renderers[t] = r
}

func registered(v any) (Renderer, bool) {
	renderMu.RLock()
	defer renderMu.RUnlock()
	r, ok := renderers[reflect.TypeOf(v)]
	return r, ok
}

// maxTableRows bounds the rows a result table shows; a million-point sweep
// shows its head and says how many rows it has.
const maxTableRows = 200

// structTable renders a struct as a field/value table and a slice of
// structs as one row per element; other values give ok false.
func structTable(v any) (Bundle, bool) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.Struct:
		if rv.NumField() == 0 || !hasExported(rv.Type()) {
			return Bundle{}, false
		}
		var rows [][]string
		for _, i := range tableFields(rv.Type()) {
			rows = append(rows, []string{rv.Type().Field(i).Name, fieldText(rv.Type().Field(i), rv.Field(i))})
		}
		b := TableBundle([]string{"field", "value"}, rows)
		b.Data[MIMEPlain] = Text(v)
		return b, true
	case reflect.Slice, reflect.Array:
		et := rv.Type().Elem()
		if et.Kind() == reflect.Pointer {
			et = et.Elem()
		}
		if et.Kind() != reflect.Struct || !hasExported(et) || rv.Len() == 0 {
			return Bundle{}, false
		}
		shown := rv
		if rv.Len() > maxTableRows {
			shown = rv.Slice(0, maxTableRows)
		}
		b, err := TableBundleOf(shown.Interface())
		if err != nil {
			return Bundle{}, false
		}
		if rv.Len() > maxTableRows {
			note := fmt.Sprintf("(first %d of %d rows)", maxTableRows, rv.Len())
			b.Data[MIMEHTML] = b.Data[MIMEHTML].(string) + "<p>" + note + "</p>"
			b.Data[MIMEPlain] = b.Data[MIMEPlain].(string) + "\n" + note
		}
		return b, true
	}
	return Bundle{}, false
}

// Struct tags that shape a table: `unit:"s"` (or "us", "B", "B/s",
// "GB/s", ... as units.Readable takes them) prints a number field with its
// unit at readable precision; `table:"-"` leaves a field out of tables (it
// stays in JSON and in the value).
const (
	unitTag  = "unit"
	tableTag = "table"
)

// tableFields are the indices of the exported fields a table shows.
func tableFields(t reflect.Type) []int {
	var out []int
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.IsExported() && f.Tag.Get(tableTag) != "-" {
			out = append(out, i)
		}
	}
	return out
}

// hasUnits reports whether a struct type, or the element type of a slice
// of structs, tags a field with its unit (or has a field of a struct type
// that does): such types show as tables even
// when they have a String method, which then gives the text/plain form.
func hasUnits(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	if hasUnitField(t) {
		return true
	}
	for i := 0; i < t.NumField(); i++ {
		// A node's links: a field whose struct type carries units.
		if f := t.Field(i).Type; f.Kind() == reflect.Struct && hasUnitField(f) {
			return true
		}
	}
	return false
}

func hasUnitField(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		if _, ok := t.Field(i).Tag.Lookup(unitTag); ok {
			return true
		}
	}
	return false
}

// fieldText is a struct field's value as a table cell, with its unit when
// the field's tag names one.
func fieldText(f reflect.StructField, v reflect.Value) string {
	if unit, ok := f.Tag.Lookup(unitTag); ok {
		switch {
		case v.CanFloat():
			return units.Readable(v.Float(), unit)
		case v.CanInt():
			return units.Readable(float64(v.Int()), unit)
		}
	}
	return cellText(v)
}

// maxCellItems bounds the values of a slice one table cell lists.
const maxCellItems = 32

func isScalar(k reflect.Kind) bool {
	return k >= reflect.Bool && k <= reflect.Complex128 || k == reflect.String
}

func hasExported(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).IsExported() {
			return true
		}
	}
	return false
}

// cellText is a field's value as a table cell: maps in key order, long
// slices summarised.
func cellText(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		s := ""
		for i, k := range keys {
			if i > 0 {
				s += " "
			}
			s += fmt.Sprintf("%v=%v", k, v.MapIndex(k))
		}
		return s
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			break
		}
		if isScalar(v.Type().Elem().Kind()) {
			// A ring's ranks, a list of notes: the values themselves.
			parts := make([]string, 0, min(v.Len(), maxCellItems)+1)
			for i := 0; i < v.Len() && i < maxCellItems; i++ {
				parts = append(parts, cellText(v.Index(i)))
			}
			if v.Len() > maxCellItems {
				parts = append(parts, fmt.Sprintf("... (%d items)", v.Len()))
			}
			return strings.Join(parts, " ")
		}
		if v.Len() > 8 {
			return fmt.Sprintf("[%d items]", v.Len())
		}
	}
	if !v.CanInterface() {
		return ""
	}
	return Text(v.Interface())
}
