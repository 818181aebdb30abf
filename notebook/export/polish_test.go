package export

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/commlab/commlab/notebook"
)

var numCell = regexp.MustCompile(`<t[dh][^>]*class="[^"]*\bnum\b`)

// Columns align by what their body cells hold, whichever made the table.
func TestColumnAlignment(t *testing.T) {
	for _, c := range []struct {
		name string
		in   string
		want []bool // per cell in document order: has class num
	}{
		{"text and numbers",
			`<table><tr><th>op</th><th>time</th></tr><tr><td>all_reduce</td><td>74.59 µs</td></tr><tr><td>broadcast</td><td>1,024</td></tr></table>`,
			[]bool{false, true, false, true, false, true}},
		{"display.Table's thead and tbody",
			`<table><thead><tr><th>Bytes</th><th>Bound</th><th>BusBW</th></tr></thead><tbody><tr><td>1 KiB</td><td>latency</td><td>37.64 MB/s</td></tr><tr><td>1 GiB</td><td>bandwidth</td><td>444.9 GB/s</td></tr></tbody></table>`,
			[]bool{true, false, true, true, false, true, true, false, true}},
		{"a text cell makes a column text",
			`<table><tr><td>8</td></tr><tr><td>eight</td></tr></table>`, []bool{false, false}},
		{"placeholders do not count",
			`<table><tr><td>N/A</td><td>x</td></tr><tr><td>26.3</td><td>y</td></tr><tr><td></td><td>z</td></tr></table>`,
			[]bool{true, false, true, false, true, false}},
		{"ratios, percentages, signs, exponents",
			`<table><tr><td>1.5x</td><td>-0.4%</td><td>1e+06</td><td>~20 µs</td><td>10/10</td></tr></table>`,
			[]bool{true, true, true, true, true}},
		{"dates, versions, ranges and names stay text",
			`<table><tr><td>2026-12-01 10:00</td><td>2.28.3</td><td>8 B to 8 GiB</td><td>GPU0</td><td>NV18</td></tr></table>`,
			[]bool{false, false, false, false, false}},
		{"colspan moves columns and is left alone",
			`<table><tr><td colspan="2">both</td><td>3</td></tr><tr><td>a</td><td>1</td><td>4</td></tr></table>`,
			[]bool{false, true, false, true, true}},
		{"content wins over a markdown colon or a style",
			`<table><tr><th style="text-align:right">name</th><th align="left">n</th></tr><tr><td style="text-align:right">ring</td><td style="color:red; text-align:left">5</td></tr></table>`,
			[]bool{false, true, false, true}},
		{"a number with a note",
			`<table><tr><td>22.15 µs (+184%)</td><td>1 GiB (2^30)</td></tr></table>`, []bool{true, true}},
		{"nested tables keep their own columns",
			`<table><tr><td><table><tr><td>7</td></tr></table></td><td>word</td></tr></table>`, []bool{false, true, false}},
	} {
		got := string(polish([]byte(c.in), Chapters{}, -1))
		cells := regexp.MustCompile(`<t[dh](\s[^>]*)?>`).FindAllString(got, -1)
		if len(cells) != len(c.want) {
			t.Fatalf("%s: %d cells in %s", c.name, len(cells), got)
		}
		for i, cell := range cells {
			if numCell.MatchString(cell) != c.want[i] {
				t.Errorf("%s: cell %d %s: num %v, want %v\n%s", c.name, i, cell, !c.want[i], c.want[i], got)
			}
		}
	}
}

// A number and its unit stay on one line; code and output are left as
// printed.
func TestKeepUnits(t *testing.T) {
	in := `<p>64 KiB in 74.59 us, 14.27 GB/s, 92 %, 8 GPUs, 2 x 8, not 5 seconds</p><pre>64 KiB 4.5 us</pre><code>1 GiB</code><script>var s = "1 GB";</script>`
	got := string(polish([]byte(in), Chapters{}, -1))
	for _, want := range []string{"64\u00a0KiB", "74.59\u00a0µs", "14.27\u00a0GB/s", "92\u00a0%", "8\u00a0GPUs", "2\u00a0x", "5 seconds",
		"<pre>64 KiB 4.5 us</pre>", "<code>1 GiB</code>", `var s = "1 GB";`} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
}

func TestChapterLinks(t *testing.T) {
	ch := ChapterPages("", []string{"00-tour", "01-collectives", "02-interconnect", "04-nccl", "05-pytorch", "06-nccl-tests"})
	for _, c := range []struct{ in, want string }{
		{"see chapter 4", `see <a class="chapter" href="04-nccl.html">chapter 4</a>`},
		{"Chapter 2's table", `<a class="chapter" href="02-interconnect.html">Chapter 2</a>'s table`},
		{"chapters 5 and 6", `<a class="chapter" href="05-pytorch.html">chapters 5</a> and <a class="chapter" href="06-nccl-tests.html">6</a>`},
		{"chapters 1, 2 and 4", `chapters 1, <a class="chapter" href="02-interconnect.html">2</a> and <a class="chapter" href="04-nccl.html">4</a>`}, // 1 is the page's own
		{"chapters 0 to 2", `<a class="chapter" href="00-tour.html">chapters 0</a> to <a class="chapter" href="02-interconnect.html">2</a>`},
		{"chapter 3 has no page", "chapter 3 has no page"},
		{"chapters 3 and 4", `chapters 3 and <a class="chapter" href="04-nccl.html">4</a>`},
		{"chapter 1, here", "chapter 1, here"}, // the page's own
		{"check 06-nccl-tests", `check <a class="chapter" href="06-nccl-tests.html">06-nccl-tests</a>`},
		{"08-unknown stays", "08-unknown stays"},
		{"4 chapters", "4 chapters"},
	} {
		if got := ch.link(c.in, 1); got != c.want {
			t.Errorf("link(%q) =\n %s\nwant\n %s", c.in, got, c.want)
		}
	}
	if got := (Chapters{}).LinkText("chapter 4"); got != "chapter 4" {
		t.Errorf("zero Chapters linked: %s", got)
	}
	page := string(polish([]byte(`<p>as chapter 4 shows</p><a class="chapter" href="x">chapter 4</a><pre>chapter 4</pre>`), ch, -1))
	if strings.Count(page, `href="04-nccl.html"`) != 1 {
		t.Errorf("links in prose only, once: %s", page)
	}
}

// A page links to the index and its neighbours, at the top and the bottom,
// and folds cells whose source is hidden.
func TestPageNavAndFolding(t *testing.T) {
	nb := notebook.New()
	nb.Cells = []*notebook.Cell{
		{Type: notebook.Markdown, Source: "# Chapter two\n\nAs chapter 4 says, 64 KiB."},
		{Type: notebook.Code, Source: "import \"fmt\"", Metadata: map[string]any{"jupyter": map[string]any{"source_hidden": true}}},
		{Type: notebook.Markdown, Source: "## Compute"},
		{Type: notebook.Code, Source: "x := 1", Metadata: map[string]any{"jupyter": map[string]any{"source_hidden": true}}},
		{Type: notebook.Code, Source: "fmt.Println(x)"},
		{Type: notebook.Code, Source: "exercise.Number(\"x\", answer, 1, 0, \"x is one\")", Metadata: map[string]any{"jupyter": map[string]any{"source_hidden": true}}},
	}
	nav := &Nav{Index: Link{"index.html", "all chapters"}, Prev: Link{"01-a.html", "1. A"}, Next: Link{"03-c.html", "3. C"}}
	var b bytes.Buffer
	isCheck := func(src string) bool { return strings.HasPrefix(src, "exercise.") } // the program's classifier
	if err := Page(&b, nb, Options{Nav: nav, Chapters: ChapterPages("", []string{"04-nccl"}), Chapter: 2, IsCheck: isCheck}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`<a class="prev" href="01-a.html">← 1. A</a>`, `<a class="index" href="index.html">all chapters</a>`,
		`<a class="next" href="03-c.html">3. C →</a>`, `<summary>setup code (click to show)</summary>`, `<summary>code (click to show)</summary>`,
		`<summary>the check's code, with its hints: open it after you answer (click to show)</summary>`,
		`<a class="chapter" href="04-nccl.html">chapter 4</a>`, "64\u00a0KiB"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page, `<nav class="pages`); n != 2 {
		t.Errorf("%d nav bars, want top and bottom", n)
	}
	if n := strings.Count(page, "<details"); n != 3 || strings.Count(page, `<div class="input">`) != 4 {
		t.Errorf("%d folded cells, want 3 of 4", n)
	}
	if !regexp.MustCompile(`pre\{[^}]*white-space:pre;[^}]*overflow-x:auto`).MatchString(page) {
		t.Error("pre does not scroll sideways")
	}
	if !regexp.MustCompile(`th,td\{[^}]*text-align:left`).MatchString(page) {
		t.Error("cells do not default to the left")
	}
}

func TestDropAlignment(t *testing.T) {
	for in, want := range map[string]string{
		`<td style="text-align:right">`:              `<td>`,
		`<th style="color:red; text-align: left;">`:  `<th style="color:red;">`,
		`<td align="right" class="x">`:               `<td class="x">`,
		`<td style='text-align:center;padding:1px'>`: `<td style='padding:1px'>`,
		`<td data-note="text-align">`:                `<td data-note="text-align">`,
		`<td colspan="2" style="text-align:right">`:  `<td colspan="2">`,
	} {
		if got := string(dropAlignment([]byte(in))); got != want {
			t.Errorf("dropAlignment(%s) = %s, want %s", in, got, want)
		}
	}
}

// polish changes nothing a second time, and never fails on any input.
func FuzzPolish(f *testing.F) {
	for _, s := range []string{
		`<table><tr><td>1 GiB</td><td>chapter 4</td></tr></table>`,
		`<p>chapters 5 and 6, 74.59 us</p><pre>raw</pre>`,
		`<svg><text>64 KiB</text></svg><table><tr><td colspan=99999999999>x`,
		`<table><table><td>`, `</table></td>`, `<td class="num num">5</td>`,
	} {
		f.Add(s)
	}
	ch := ChapterPages("", []string{"04-nccl", "05-pytorch", "06-nccl-tests"})
	f.Fuzz(func(t *testing.T, s string) {
		once := polish([]byte(s), ch, -1)
		if twice := polish(once, ch, -1); !bytes.Equal(once, twice) {
			t.Errorf("not stable:\n%q\n%q", once, twice)
		}
	})
}

// Printed sentences may wrap at the page's edge; columns never do.
func TestProseClass(t *testing.T) {
	for text, want := range map[string]string{
		"the sweep ends at 8 GiB, where the model is bandwidth-bound\n": " prose",
		"size    time\n8 B     20 µs\n":                                 "",
		"  Algorithm   |   Tree   |   Ring\n":                           "",
		"a\tb\n":                                                        "",
		"┌──┐\n":                                                        "",
		"  indented sentence only at the start\n":                       " prose",
	} {
		if got := proseClass(text); got != want {
			t.Errorf("proseClass(%q) = %q, want %q", text, got, want)
		}
	}
}
