package display

import (
	"bytes"
	"fmt"
	"html"
	"image"
	"image/png"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Table displays rows under a header as an HTML table with an aligned
// text fallback.
func Table(header []string, rows [][]string) *Handle { return Show(TableBundle(header, rows)) }

// TableBundle renders a table: HTML for notebooks, aligned columns as
// text/plain for consoles and logs.
func TableBundle(header []string, rows [][]string) Bundle {
	var h strings.Builder
	h.WriteString("<table>")
	if len(header) > 0 {
		h.WriteString("<thead><tr>")
		for _, c := range header {
			h.WriteString("<th>" + html.EscapeString(c) + "</th>")
		}
		h.WriteString("</tr></thead>")
	}
	h.WriteString("<tbody>")
	for _, r := range rows {
		h.WriteString("<tr>")
		for _, c := range r {
			h.WriteString("<td>" + html.EscapeString(c) + "</td>")
		}
		h.WriteString("</tr>")
	}
	h.WriteString("</tbody></table>")
	return Bundle{Data: map[string]any{MIMEHTML: h.String(), MIMEPlain: textTable(header, rows)}}
}

func textTable(header []string, rows [][]string) string {
	all := append([][]string{header}, rows...)
	var widths []int
	for _, r := range all {
		for i, c := range r {
			for len(widths) <= i {
				widths = append(widths, 0)
			}
			if n := utf8.RuneCountInString(c); n > widths[i] {
				widths[i] = n
			}
		}
	}
	var b strings.Builder
	line := func(r []string) {
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)))
			}
		}
		b.WriteString("\n")
	}
	if len(header) > 0 {
		line(header)
		seps := make([]string, len(header))
		for i := range header {
			seps[i] = strings.Repeat("-", widths[i])
		}
		line(seps)
	}
	for _, r := range rows {
		line(r)
	}
	return strings.TrimRight(b.String(), "\n")
}

// TableOf displays a slice of structs as a table, one column per exported
// field, which is how sweeps and parsed runs are usually held.
func TableOf(rows any) (*Handle, error) {
	b, err := TableBundleOf(rows)
	if err != nil {
		return nil, err
	}
	return Show(b), nil
}

// TableBundleOf renders a slice of structs (or pointers to structs).
func TableBundleOf(rows any) (Bundle, error) {
	v := reflect.ValueOf(rows)
	if v.Kind() != reflect.Slice {
		return Bundle{}, fmt.Errorf("display: TableOf needs a slice of structs, got %T", rows)
	}
	et := v.Type().Elem()
	if et.Kind() == reflect.Pointer {
		et = et.Elem()
	}
	if et.Kind() != reflect.Struct {
		return Bundle{}, fmt.Errorf("display: TableOf needs a slice of structs, got %T", rows)
	}
	fields := tableFields(et)
	header := make([]string, len(fields))
	for i, f := range fields {
		header[i] = et.Field(f).Name
	}
	out := make([][]string, v.Len())
	for r := 0; r < v.Len(); r++ {
		row := v.Index(r)
		if row.Kind() == reflect.Pointer {
			row = row.Elem()
		}
		cells := make([]string, len(fields))
		for i, f := range fields {
			if row.IsValid() {
				cells[i] = fieldText(et.Field(f), row.Field(f))
			}
		}
		out[r] = cells
	}
	header, out = dropEmptyOptional(et, fields, header, out)
	return TableBundle(header, out), nil
}

// dropEmptyOptional leaves out the columns of fields tagged
// `table:"omitempty"` that are empty in every row: a field only some
// inputs carry (RCCL's communicator on a ring line) adds an empty column
// to every other table.
func dropEmptyOptional(et reflect.Type, fields []int, header []string, rows [][]string) ([]string, [][]string) {
	keep := make([]bool, len(fields))
	for i, f := range fields {
		keep[i] = et.Field(f).Tag.Get(tableTag) != "omitempty"
		for _, row := range rows {
			if row[i] != "" {
				keep[i] = true
				break
			}
		}
	}
	pick := func(cells []string) []string {
		var out []string
		for i, c := range cells {
			if keep[i] {
				out = append(out, c)
			}
		}
		return out
	}
	for r := range rows {
		rows[r] = pick(rows[r])
	}
	return pick(header), rows
}

// Image displays an image as PNG.
func Image(img image.Image) (*Handle, error) {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("display: encode image: %w", err)
	}
	return PNG(b.Bytes()), nil
}

// Plot displays anything that renders itself (a chart chart, a
// topology drawing): its MIMEBundle, PNG, SVG or HTML, with text.
func Plot(v any) *Handle { return Show(BundleOf(v)) }
