package export

import (
	"bytes"
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/lab/notebook"
)

var update = flag.Bool("update", false, "rewrite golden files")

var styleBlock = regexp.MustCompile(`(?s)<style>.*?</style>`)

// golden compares structure: the CSS is left out of the comparison.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	got = styleBlock.ReplaceAll(got, []byte("<style>…</style>"))
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update to accept):\n%s", path, got)
	}
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
		"<table>", "<th style=\"text-align:right\">size</th>", // GFM table
		`<img src="data:image/png;base64,iVBOR`,                           // output and attachment inlined
		`alt="local"`,                                                     // local image inlined
		`<span class="nx">fmt</span>`,                                     // chroma highlighting
		"a &lt; b", "<pre class=\"output stream stderr\">warning\n</pre>", // escaped, ANSI removed
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
	golden(t, "testdata/executed.html.golden", b.Bytes())
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
	golden(t, "testdata/index.html.golden", b.Bytes())
}
