package export

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/notebook"
)

var styleBlock = regexp.MustCompile(`(?s)<style>.*?</style>`)

// checkPage compares structure: the CSS is left out of the comparison.
func checkPage(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.Check(t, path, styleBlock.ReplaceAll(got, []byte("<style>…</style>")))
}

func TestPage(t *testing.T) {
	nb, err := notebook.ReadFile("testdata/executed.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Page(&b, nb, Options{BaseDir: "testdata"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<title>Export test</title>",
		"<table>", "<th class=\"num\">size</th>", // GFM table, aligned by content
		`<img src="data:image/png;base64,iVBOR`,                                 // output and attachment inlined
		`alt="local"`,                                                           // local image inlined
		`<span class="nx">fmt</span>`,                                           // chroma highlighting
		"a &lt; b", "<pre class=\"output stream stderr prose\">warning\n</pre>", // escaped, ANSI removed, a sentence may wrap
		"<strong>bold</strong> result", // markdown result
		"<p class=\"ename\">panic: assignment to entry in nil map</p>",
		"status", "failed: 3 of 3 code cells",
		"<pre class=\"raw\">raw &lt;text&gt;</pre>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, external := range []string{"http://", "https://", `src="dot.png"`, "attachment:"} {
		if strings.Contains(page, external) {
			t.Errorf("page is not self-contained: it has %q", external)
		}
	}
	checkPage(t, "testdata/executed.html.golden", b.Bytes())
}

func TestIndex(t *testing.T) {
	nb, err := notebook.ReadFile("testdata/executed.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	entries := []Entry{
		{Title: Title(nb, "x"), Href: "executed.html", Run: RunOf(nb)},
		{Title: "Not run yet", Href: "b.html"},
	}
	if r := entries[0].Run; r.Status != "failed" || r.Duration != 1250*time.Millisecond || r.Executed != 3 {
		t.Errorf("RunOf = %+v", r)
	}
	var b bytes.Buffer
	if err := Index(&b, "commlab chapters", entries); err != nil {
		t.Fatal(err)
	}
	checkPage(t, "testdata/index.html.golden", b.Bytes())
}

// TestIndexReadingPaths holds the reading paths with no chapter run, one,
// and several: a chapter that exists is linked, in the path's order, and
// one not written yet is named as plain text.
func TestIndexReadingPaths(t *testing.T) {
	run := Run{Status: "ok", Started: "2026-12-01T10:00:00Z", Duration: 2 * time.Second, Executed: 12, Cells: 12}
	entry := func(name, title string) Entry { return Entry{Title: title, Href: name + ".html", Run: run} }
	tour := entry("00-tour", "A tour of commlab (commlab 导览)")
	ch1 := entry("01-collectives", "Collectives and the cost model (集合通信原语与代价模型)")
	ch4 := entry("04-nccl", "NCCL architecture (NCCL 架构)")
	ch6 := entry("06-tuning", "nccl-tests, tuning and troubleshooting (nccl-tests、调优与排障)")
	tests := []struct {
		name    string
		entries []Entry
		links   []string // hrefs linked by the paths, in page order
	}{
		{name: "none", entries: nil},
		{name: "one", entries: []Entry{ch1}, links: []string{"01-collectives.html", "01-collectives.html", "01-collectives.html", "01-collectives.html"}},
		{name: "several", entries: []Entry{tour, ch1, ch4, ch6, entry("scratch", "Not a chapter")}, links: []string{
			"01-collectives.html", "04-nccl.html", "06-tuning.html", // full
			"01-collectives.html", "04-nccl.html", "06-tuning.html", // training
			"01-collectives.html", "04-nccl.html", "06-tuning.html", // inference
			"06-tuning.html", "01-collectives.html", "04-nccl.html", // platform
			"06-tuning.html", "04-nccl.html", // debug
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Index(&b, "commlab chapters", tt.entries); err != nil {
				t.Fatal(err)
			}
			page := b.String()
			paths := page[strings.Index(page, "<h2>Reading paths</h2>"):]
			var links []string
			for _, m := range regexp.MustCompile(`<a href="([^"]+)"`).FindAllStringSubmatch(paths, -1) {
				links = append(links, m[1])
			}
			if strings.Join(links, " ") != strings.Join(tt.links, " ") {
				t.Errorf("paths link\n %v\nwant\n %v", links, tt.links)
			}
			if n := strings.Count(paths, "<dt>"); n != len(ReadingPaths) {
				t.Errorf("%d paths shown, want %d", n, len(ReadingPaths))
			}
			// Every step is shown, linked or not: 7+6+6+5+3 and training's optional 7.
			if n := strings.Count(paths, `<a href=`) + strings.Count(paths, `class="unwritten"`); n != 28 {
				t.Errorf("%d steps shown, want 28", n)
			}
			checkPage(t, "testdata/index-"+tt.name+".html.golden", b.Bytes())
		})
	}
}

func TestChapterNumber(t *testing.T) {
	tests := []struct {
		name string
		n    int
		ok   bool
	}{
		{"01-collectives.html", 1, true},
		{"chapters/07-inference.md", 7, true},
		{"00-tour", 0, true},
		{`out\12-x.ipynb`, 12, true},
		{"executed.html", 0, false},
		{"1-short.md", 0, false},
		{"+1-plus.md", 0, false},
		{"012-long.md", 0, false},
		{"01", 0, false},
	}
	for _, tt := range tests {
		if n, ok := ChapterNumber(tt.name); n != tt.n || ok != tt.ok {
			t.Errorf("ChapterNumber(%q) = %d, %v; want %d, %v", tt.name, n, ok, tt.n, tt.ok)
		}
	}
}

// TestReadingPathsName holds the table to the series: every path names
// only chapters the series has, none twice.
func TestReadingPathsName(t *testing.T) {
	for _, p := range ReadingPaths {
		seen := map[int]bool{}
		for _, n := range append(append([]int(nil), p.Chapters...), p.Optional...) {
			if _, ok := SeriesChapters[n]; !ok || seen[n] {
				t.Errorf("path %q: chapter %d unknown or repeated", p.Name, n)
			}
			seen[n] = true
		}
		if p.Purpose == "" || strings.Contains(p.Purpose, "\n") {
			t.Errorf("path %q: purpose must be one line", p.Name)
		}
		if (len(p.Optional) > 0) != (p.Note != "") {
			t.Errorf("path %q: optional chapters need a note saying why, and only they", p.Name)
		}
	}
}

// TestIndexAllChapters: with every chapter's page present, the paths link
// all of them and say nothing of missing ones.
func TestIndexAllChapters(t *testing.T) {
	var entries []Entry
	for n, name := range SeriesChapters {
		entries = append(entries, Entry{Title: name, Href: fmt.Sprintf("%02d-x.html", n), Run: Run{Status: "ok"}})
	}
	var b bytes.Buffer
	if err := Index(&b, "commlab chapters", entries); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, `class="unwritten"`) || strings.Contains(page, "without a page") {
		t.Errorf("every chapter is here, but the index names some as missing:\n%s", page[strings.Index(page, "<h2>Reading paths</h2>"):])
	}
}
