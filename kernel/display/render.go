package display

import (
	"fmt"
	"reflect"
	"sort"
	"sync"
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
		for i := 0; i < rv.NumField(); i++ {
			f := rv.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			rows = append(rows, []string{f.Name, cellText(rv.Field(i))})
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
		if v.Len() > 8 && v.Type().Elem().Kind() != reflect.Uint8 {
			return fmt.Sprintf("[%d items]", v.Len())
		}
	}
	if !v.CanInterface() {
		return ""
	}
	return Text(v.Interface())
}
