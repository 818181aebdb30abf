package display

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/commlab/commlab/units"
)

// A Renderer turns a value of one type into a bundle. display knows no
// program's types: a program hands its renderers to each session
// (session.Options.Renderers; commlab's come from package cells), which
// registers them here.
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
// stays in JSON and in the value); `table:"omitempty"` leaves it out of a
// table in which every row has it empty.
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

// cellText is a field's value as a table cell: numbers at about four
// significant digits (units.Number), maps in key order, lists of names
// joined by commas, long slices summarised.
func cellText(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return units.Number(v.Float())
	case reflect.Map:
		keys := sortedKeys(v)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = cellText(k) + "=" + cellText(v.MapIndex(k))
		}
		return strings.Join(parts, ", ")
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			break
		}
		if isListable(v.Type().Elem()) {
			// A ring's ranks ("0 5 4 7") by spaces; names ("NIC0, NIC1") by commas.
			sep := ", "
			if k := v.Type().Elem().Kind(); k >= reflect.Int && k <= reflect.Float64 && !v.Type().Elem().Implements(stringerType) {
				sep = " "
			}
			parts := make([]string, 0, min(v.Len(), maxCellItems)+1)
			for i := 0; i < v.Len() && i < maxCellItems; i++ {
				parts = append(parts, cellText(v.Index(i)))
			}
			if v.Len() > maxCellItems {
				parts = append(parts, fmt.Sprintf("... (%d items)", v.Len()))
			}
			return strings.Join(parts, sep)
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

var (
	stringerType = reflect.TypeFor[fmt.Stringer]()
	errorType    = reflect.TypeFor[error]()
)

// isListable says whether values of t read well one after another: plain
// scalars, and anything with a String or Error method (algorithm names,
// link kinds).
func isListable(t reflect.Type) bool {
	return isScalar(t.Kind()) || t.Implements(stringerType) || t.Implements(errorType)
}

func sortedKeys(v reflect.Value) []reflect.Value {
	keys := v.MapKeys()
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		switch {
		case a.CanInt() && b.CanInt():
			return a.Int() < b.Int()
		case a.CanUint() && b.CanUint():
			return a.Uint() < b.Uint()
		case a.CanFloat() && b.CanFloat():
			return a.Float() < b.Float()
		}
		return fmt.Sprint(a) < fmt.Sprint(b)
	})
	return keys
}

// listText is the plain text of a slice of names (strings, or values with
// a String or Error method), "ring, tree, dbtree", instead of fmt's
// "[ring tree dbtree]"; ok is false for other values. Numbers keep Go's
// form, "[0 1 4 9]", which a Go reader expects and which keeps a
// one-element slice from reading as a scalar.
func listText(v any) (string, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return "", false
	}
	et := rv.Type().Elem()
	if et.Kind() != reflect.String && !et.Implements(stringerType) && !et.Implements(errorType) {
		return "", false
	}
	if rv.Len() == 0 {
		return "(none)", true
	}
	parts := make([]string, rv.Len())
	for i := range parts {
		parts[i] = Text(rv.Index(i).Interface())
	}
	return strings.Join(parts, ", "), true
}

// mapTable renders a map with listable keys as a key/value table in HTML;
// its text/plain stays fmt's, map[k:v], as Go prints it.
func mapTable(v any) (Bundle, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map || rv.Len() == 0 || !isListable(rv.Type().Key()) {
		return Bundle{}, false
	}
	keys := sortedKeys(rv)
	rows := make([][]string, 0, min(len(keys), maxTableRows))
	for _, k := range keys[:min(len(keys), maxTableRows)] {
		rows = append(rows, []string{cellText(k), cellText(rv.MapIndex(k))})
	}
	b := TableBundle([]string{"key", "value"}, rows)
	if len(keys) > maxTableRows {
		b.Data[MIMEHTML] = b.Data[MIMEHTML].(string) + fmt.Sprintf("<p>(first %d of %d keys)</p>", maxTableRows, len(keys))
	}
	b.Data[MIMEPlain] = fmt.Sprintf("%v", v)
	return b, true
}
