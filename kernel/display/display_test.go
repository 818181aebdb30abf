package display

import (
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"reflect"
	"strings"
	"testing"
)

type svgValue struct{}

func (svgValue) SVG() string    { return "<svg/>" }
func (svgValue) String() string { return "a drawing" }

type sizedImage struct{}

func (sizedImage) PNG() ([]byte, error) { return []byte{1}, nil }
func (sizedImage) MIMEMetadata() map[string]any {
	return map[string]any{MIMEPNG: map[string]any{"width": 720, "height": 450}}
}

func TestBundleOfKeepsMetadata(t *testing.T) {
	b := BundleOf(sizedImage{})
	if b.Metadata[MIMEPNG].(map[string]any)["width"] != 720 {
		t.Errorf("metadata = %v", b.Metadata)
	}
}

type tableValue struct{}

func (tableValue) HTML() string { return "<table></table>" }

func record(t *testing.T) *[]Message {
	t.Helper()
	var got []Message
	prev := SetPublisher(func(m Message) { got = append(got, m) })
	t.Cleanup(func() { SetPublisher(prev) })
	return &got
}

func TestShowFunctions(t *testing.T) {
	got := record(t)
	png := []byte{0x89, 'P', 'N', 'G'}
	HTML("<b>x</b>")
	Markdown("# t")
	Latex(`$\alpha$`)
	SVG("<svg/>")
	PNG(png)
	JPEG([]byte{0xff, 0xd8})
	JSON(map[string]int{"n": 8})
	Plain("text")
	wantMIME := []string{MIMEHTML, MIMEMarkdown, MIMELatex, MIMESVG, MIMEPNG, MIMEJPEG, MIMEJSON, MIMEPlain}
	if len(*got) != len(wantMIME) {
		t.Fatalf("%d messages, want %d", len(*got), len(wantMIME))
	}
	for i, m := range *got {
		if m.Kind != KindDisplay || m.DisplayID == "" {
			t.Errorf("message %d: kind %q id %q", i, m.Kind, m.DisplayID)
		}
		if _, ok := m.Bundle.Data[wantMIME[i]]; !ok {
			t.Errorf("message %d lacks %s: %v", i, wantMIME[i], m.Bundle.Data)
		}
		if _, ok := m.Bundle.Data[MIMEPlain]; !ok {
			t.Errorf("message %d lacks the text/plain fallback", i)
		}
	}
	if (*got)[4].Bundle.Data[MIMEPNG] != base64.StdEncoding.EncodeToString(png) {
		t.Error("PNG not base64 encoded")
	}
	if !reflect.DeepEqual((*got)[6].Bundle.Data[MIMEJSON], map[string]any{"n": float64(8)}) {
		t.Errorf("JSON data = %#v", (*got)[6].Bundle.Data[MIMEJSON])
	}
}

func TestUpdateAndClear(t *testing.T) {
	got := record(t)
	h := Markdown("0%")
	h.Update(MarkdownBundle("100%"))
	Clear()
	ClearWait()
	m := *got
	if m[1].Kind != KindUpdate || m[1].DisplayID != h.ID || m[1].Bundle.Data[MIMEMarkdown] != "100%" {
		t.Errorf("update = %+v", m[1])
	}
	if m[2].Kind != KindClear || m[2].Wait || m[3].Kind != KindClear || !m[3].Wait {
		t.Errorf("clear = %+v %+v", m[2], m[3])
	}
}

func TestBundleOf(t *testing.T) {
	var nilErr error
	tests := []struct {
		name string
		v    any
		want map[string]any
	}{
		{"int", 42, map[string]any{MIMEPlain: "42"}},
		{"string as is", "ring", map[string]any{MIMEPlain: "ring"}},
		{"error message", errors.New("bad"), map[string]any{MIMEPlain: "bad"}},
		{"svg method", svgValue{}, map[string]any{MIMESVG: "<svg/>", MIMEPlain: "a drawing"}},
		{"html method", tableValue{}, map[string]any{MIMEHTML: "<table></table>", MIMEPlain: "{}"}},
		{"nil", nil, nil},
		{"nil error", nilErr, nil},
		{"handle shows nothing", &Handle{ID: "x"}, nil},
		{"nil pointer", (*Handle)(nil), map[string]any{MIMEPlain: "nil"}},
	}
	for _, tt := range tests {
		got := BundleOf(tt.v).Data
		if len(got) == 0 && len(tt.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: BundleOf = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func ExampleHTML() {
	// Outside a notebook there is no publisher: the text form is printed.
	HTML("<b>ring</b>")
	Plain("8 GPUs, 25 GB/s")
	// Output:
	// <HTML>
	// 8 GPUs, 25 GB/s
}

func ExampleBundleOf() {
	b := BundleOf(3.5)
	fmt.Println(b.Data[MIMEPlain])
	// Output: 3.5
}

func TestTable(t *testing.T) {
	b := TableBundle([]string{"size", "busbw"}, [][]string{{"8 B", "0.01"}, {"1 GiB", "<370>"}})
	html := b.Data[MIMEHTML].(string)
	if !strings.Contains(html, "<th>busbw</th>") || !strings.Contains(html, "<td>&lt;370&gt;</td>") {
		t.Errorf("html = %s", html)
	}
	want := "size   busbw\n-----  -----\n8 B    0.01\n1 GiB  <370>"
	if b.Data[MIMEPlain] != want {
		t.Errorf("text =\n%s\nwant\n%s", b.Data[MIMEPlain], want)
	}
	type row struct {
		Algo string
		Time float64
		note string
	}
	tb, err := TableBundleOf([]row{{"ring", 1.5, "x"}})
	if err != nil || !strings.Contains(tb.Data[MIMEPlain].(string), "Algo  Time\n----  ----\nring  1.5") {
		t.Errorf("TableBundleOf = %v %v", tb.Data[MIMEPlain], err)
	}
	if _, err := TableBundleOf(3); err == nil {
		t.Error("TableBundleOf(3) accepted")
	}
}

func TestImage(t *testing.T) {
	got := record(t)
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	if _, err := Image(img); err != nil {
		t.Fatal(err)
	}
	if _, ok := (*got)[0].Bundle.Data[MIMEPNG].(string); !ok {
		t.Errorf("no PNG: %v", (*got)[0].Bundle.Data)
	}
	Plot(svgValue{})
	if (*got)[1].Bundle.Data[MIMESVG] != "<svg/>" {
		t.Errorf("Plot bundle = %v", (*got)[1].Bundle.Data)
	}
}

func TestProgressFillsInPlace(t *testing.T) {
	got := record(t)
	p := NewProgress("sweep", 1000)
	for i := 1; i <= 1000; i++ {
		p.Set(i)
	}
	p.Done()
	m := *got
	if m[0].Kind != KindDisplay {
		t.Fatalf("first message %q", m[0].Kind)
	}
	// 0% shown, then one update per whole percent, then Done.
	if len(m) != 1+100+1 {
		t.Fatalf("%d messages, want 102", len(m))
	}
	for _, u := range m[1:] {
		if u.Kind != KindUpdate || u.DisplayID != m[0].DisplayID {
			t.Fatalf("update %+v", u)
		}
	}
	last := m[len(m)-1].Bundle.Data[MIMEPlain].(string)
	if !strings.HasPrefix(last, "sweep: 1000/1000 (100%)") {
		t.Errorf("last = %q", last)
	}
}

type sweepRow struct {
	Bytes float64
	Time  float64
}

type costLike struct {
	Algo  string
	Terms map[string]float64
	hid   int
}

func TestBundleOfTables(t *testing.T) {
	b := BundleOf([]sweepRow{{8, 1e-6}, {1024, 2e-6}})
	if !strings.Contains(b.Data[MIMEHTML].(string), "<th>Bytes</th><th>Time</th>") || !strings.Contains(b.Data[MIMEPlain].(string), "1,024") || !strings.Contains(b.Data[MIMEPlain].(string), "0.000002") {
		t.Errorf("slice of structs = %v", b.Data)
	}
	b = BundleOf(costLike{Algo: "ring", Terms: map[string]float64{"latency": 2, "bandwidth": 1}})
	if !strings.Contains(b.Data[MIMEHTML].(string), "<td>bandwidth=1, latency=2</td>") {
		t.Errorf("struct = %v", b.Data[MIMEHTML])
	}
	many := make([]sweepRow, 1000)
	b = BundleOf(many)
	if !strings.Contains(b.Data[MIMEPlain].(string), "(first 200 of 1000 rows)") {
		t.Error("long slice not cut")
	}
	RegisterRenderer(reflect.TypeOf(sizedImage{}), func(any) (Bundle, error) { return HTMLBundle("<i>registered</i>"), nil })
	defer RegisterRenderer(reflect.TypeOf(sizedImage{}), func(any) (Bundle, error) { return Bundle{}, nil })
	if BundleOf(sizedImage{}).Data[MIMEHTML] != "<i>registered</i>" {
		t.Error("registered renderer not used")
	}
}

type unitRow struct {
	Op      string
	Bytes   int64     `unit:"B"`
	Time    float64   `unit:"s"`
	BusBW   float64   `unit:"GB/s"`
	Ranks   []int     // listed, not counted
	TimesUS []float64 `table:"-"`
}

func (r unitRow) String() string { return "row " + r.Op }

func TestBundleOfUnits(t *testing.T) {
	row := unitRow{Op: "all_reduce", Bytes: 1 << 30, Time: 7.000000000000001e-05, BusBW: 142.71442842871412,
		Ranks: []int{0, 5, 4, 7, 6, 1, 2, 3, 8, 9}, TimesUS: []float64{1, 2}}
	for _, c := range []struct {
		name     string
		v        any
		html     []string
		plain    []string
		notInAny []string
	}{
		{"struct with a String method", row,
			[]string{"<td>1 GiB</td>", "<td>70 µs</td>", "<td>142.7 GB/s</td>", "<td>0 5 4 7 6 1 2 3 8 9</td>"},
			[]string{"row all_reduce"}, []string{"TimesUS", "e-05", "items"}},
		{"slice", []unitRow{row, row},
			[]string{"<th>BusBW</th>", "<td>70 µs</td>"},
			[]string{"1 GiB", "142.7 GB/s"}, []string{"TimesUS", "e-05", "1073741824"}},
	} {
		b := BundleOf(c.v)
		h, _ := b.Data[MIMEHTML].(string)
		p, _ := b.Data[MIMEPlain].(string)
		for _, w := range c.html {
			if !strings.Contains(h, w) {
				t.Errorf("%s: text/html lacks %q: %s", c.name, w, h)
			}
		}
		for _, w := range c.plain {
			if !strings.Contains(p, w) {
				t.Errorf("%s: text/plain lacks %q: %s", c.name, w, p)
			}
		}
		for _, w := range c.notInAny {
			if strings.Contains(h, w) || strings.Contains(p, w) {
				t.Errorf("%s: rendering shows %q:\n%s\n%s", c.name, w, h, p)
			}
		}
	}
}

type algoName string

func (a algoName) String() string { return "algo " + string(a) }

// Values a cell returns read as a person writes them on a page: a list
// of names as words, a map as a key/value table (HTML, which pages and
// Jupyter show); text/plain keeps Go's form for consoles.
func TestBundleOfLists(t *testing.T) {
	for _, c := range []struct {
		name  string
		v     any
		plain string
		html  string
	}{
		{"strings", []string{"NIC0"}, "[NIC0]", "NIC0"},
		{"several strings", []string{"ring", "tree", "dbtree", "rhd"}, "[ring tree dbtree rhd]", "ring, tree, dbtree, rhd"},
		{"stringers", []algoName{"ring", "tree"}, "[algo ring algo tree]", "algo ring, algo tree"},
		{"array", [2]string{"a", "b"}, "[a b]", "a, b"},
		{"empty", []string{}, "[]", "(none)"},
		{"errors", []error{errors.New("one"), errors.New("<two>")}, "[one <two>]", "one, &lt;two&gt;"},
		{"ints keep Go's form", []int{0, 1, 2}, "[0 1 2]", ""},
		{"map", map[string]int{"b": 2, "a": 1}, "map[a:1 b:2]", "<tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr>"},
		{"map of floats", map[int]float64{10: 1.23456, 2: 0.5}, "map[2:0.5 10:1.23456]", "<tr><td>2</td><td>0.5</td></tr><tr><td>10</td><td>1.235</td></tr>"},
		{"bytes stay bytes", []byte("hi"), "[104 105]", ""},
	} {
		b := BundleOf(c.v)
		if p, _ := b.Data[MIMEPlain].(string); p != c.plain {
			t.Errorf("%s: text/plain %q, want %q", c.name, p, c.plain)
		}
		h, _ := b.Data[MIMEHTML].(string)
		if c.html == "" && h != "" || !strings.Contains(h, c.html) {
			t.Errorf("%s: text/html %q, want %q", c.name, h, c.html)
		}
	}
	if h := BundleOf(map[string][]string{"nics": {"NIC0", "NIC1"}}).Data[MIMEHTML]; !strings.Contains(h.(string), "<td>nics</td><td>NIC0, NIC1</td>") {
		t.Errorf("map of lists: %v", h)
	}
}
