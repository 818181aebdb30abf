package literate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/notebook"
)

// The chapter is canonical: markdown -> notebook -> markdown is byte-exact,
// and the notebook matches its golden file.
func TestChapterRoundTrip(t *testing.T) {
	src, err := os.ReadFile("testdata/chapter.md")
	if err != nil {
		t.Fatal(err)
	}
	nb, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	data, err := nb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := notebook.Validate(data); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/chapter.ipynb.golden", data)
	out, err := Format(nb)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(src) {
		t.Errorf("Format(Parse(chapter.md)) differs:\n%s", out)
	}
	kinds := ""
	for _, c := range nb.Cells {
		kinds += c.Type[:1]
	}
	if want := "mcmccmmmmrc"; kinds != want {
		t.Errorf("cell types = %s, want %s", kinds, want)
	}
	if !nb.Cells[1].HasTag("parameters") {
		t.Errorf("parameters tag lost: %v", nb.Cells[1].Metadata)
	}
	if got := nb.Cells[4].Source; got != "" {
		t.Errorf("empty code cell = %q", got)
	}
}

// Notebooks with awkward cells survive notebook -> markdown -> notebook.
func TestNotebookRoundTrip(t *testing.T) {
	cells := []*notebook.Cell{
		{Type: notebook.Markdown, Source: "leading\n\n\ntwo blank lines inside"},
		{Type: notebook.Markdown, Source: "\nstarts blank"},
		{Type: notebook.Markdown, Source: ""},
		{Type: notebook.Markdown, Source: "plain"},
		{Type: notebook.Markdown, Source: "plain after plain"},
		{Type: notebook.Markdown, Source: "<!-- a comment -->"},
		{Type: notebook.Code, Source: "x := 1\n"},
		{Type: notebook.Code, Source: "\n\n"},
		{Type: notebook.Code, Source: "y := 2", Metadata: map[string]any{"tags": []any{"a b", "c"}, "odd key!": "-->", "n": 1.5}},
		{Type: notebook.Code, Source: "s := \"```go\"\n````\n```"},
		{Type: notebook.Raw, Source: "", Metadata: map[string]any{"format": "text/latex"}},
		{Type: notebook.Markdown, Source: "crlf\r\nline", Metadata: map[string]any{"jupyter": map[string]any{"source_hidden": true}}},
	}
	nb := notebook.New()
	nb.Metadata = map[string]any{
		"kernelspec": map[string]any{"name": "commlab", "display_name": "Go (commlab)", "language": "go"},
		"title":      "yes",
		"version":    "1.0",
		"jupytext":   map[string]any{"root_level_metadata": map[string]any{"title": "front matter"}},
	}
	nb.Cells = cells
	nb.EnsureIDs()
	md, err := Format(nb)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(md)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, md)
	}
	if d := notebook.Diff(nb, back, false); d != "" {
		t.Errorf("round trip: %s\n%s", d, md)
	}
	again, err := Format(back)
	if err != nil || string(again) != string(md) {
		t.Errorf("second Format differs (%v)", err)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      error
		line      string
		cells     int
	}{
		{"unclosed code", "prose\n\n```go\nx := 1\n", ErrUnclosed, "line 3", 2},
		{"unclosed region", "<!-- #region -->\ntext\n", ErrUnclosed, "line 1", 1},
		{"unclosed raw", "a\n\n<!-- #raw -->\n", ErrUnclosed, "line 3", 2},
		{"bad options", "```go tags=[oops\n```\n", ErrMetadata, "line 1", 1},
		{"bad header", "---\njupyter: [\n---\n", ErrMetadata, "line 1", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nb, err := Parse([]byte(tt.src))
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.line) {
				t.Errorf("err = %v, want %v at %s", err, tt.want, tt.line)
			}
			if nb == nil || len(nb.Cells) != tt.cells {
				t.Errorf("partial result: %+v, want %d cells", nb, tt.cells)
			}
		})
	}
}

// jupytext's own conventions that hand-written chapters use.
func TestParseJupytextForms(t *testing.T) {
	src := "---\ntitle: Front matter only\n---\n\n<!-- #md key=\"v\" -->\ntext\n<!-- #endmd -->\n\n```go {\"a b\": 1}\nx\n```\n\n```python\nnot go\n```\n"
	nb, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(nb.Cells) != 4 {
		t.Fatalf("cells = %d, want 4", len(nb.Cells))
	}
	if nb.Cells[0].Type != notebook.Raw || !strings.Contains(nb.Cells[0].Source, "Front matter") {
		t.Errorf("front matter = %+v", nb.Cells[0])
	}
	if nb.Cells[1].Metadata["key"] != "v" || nb.Cells[2].Metadata["a b"] != 1.0 {
		t.Errorf("metadata = %v %v", nb.Cells[1].Metadata, nb.Cells[2].Metadata)
	}
	if nb.Cells[3].Type != notebook.Markdown {
		t.Errorf("a python fence is prose, got %s", nb.Cells[3].Type)
	}
}

// A header as jupytext itself writes it: single quotes, its version, a
// formats entry. text_representation is regenerated, the rest is kept.
func TestParseJupytextHeader(t *testing.T) {
	src := "---\njupyter:\n  jupytext:\n    formats: ipynb,md\n    text_representation:\n      extension: .md\n      format_name: markdown\n      format_version: '1.3'\n      jupytext_version: 1.16.4\n  kernelspec:\n    display_name: Go (commlab)\n    language: go\n    name: commlab\n---\n\n```go\nx := 1\n```\n"
	nb, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	jt, _ := nb.Metadata["jupytext"].(map[string]any)
	ks, _ := nb.Metadata["kernelspec"].(map[string]any)
	if jt["formats"] != "ipynb,md" || jt["text_representation"] != nil || ks["name"] != "commlab" {
		t.Errorf("metadata = %v", nb.Metadata)
	}
	out, err := Format(nb)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "    formats: ipynb,md\n    text_representation:\n") {
		t.Errorf("formatted header:\n%s", out)
	}
}

func TestFormatUnrepresentable(t *testing.T) {
	nb := notebook.New()
	nb.Cells = []*notebook.Cell{{Type: notebook.Raw, Source: "a\n<!-- #endraw -->"}}
	if _, err := Format(nb); !errors.Is(err, ErrUnrepresentable) {
		t.Errorf("err = %v", err)
	}
}

func FuzzRoundTrip(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.md")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("```go\n"))
	f.Add([]byte("a\n\n\n\nb\n<!-- #endregion -->\n~~~\n\n\n~~~"))
	f.Fuzz(func(t *testing.T, src []byte) {
		nb, err := Parse(src)
		if nb == nil {
			t.Fatal("Parse returned no notebook")
		}
		if err != nil {
			return
		}
		md, err := Format(nb)
		if err != nil {
			if errors.Is(err, ErrUnrepresentable) {
				return
			}
			t.Fatalf("Format: %v", err)
		}
		back, err := Parse(md)
		if err != nil {
			t.Fatalf("Parse(Format): %v\n%q", err, md)
		}
		if d := notebook.Diff(nb, back, false); d != "" {
			t.Fatalf("round trip: %s\nsource %q\nformatted %q", d, src, md)
		}
	})
}

func TestStripVolatile(t *testing.T) {
	one := 1
	nb := notebook.New()
	nb.Metadata = map[string]any{"kernelspec": map[string]any{"name": "commlab"}, "language_info": map[string]any{"name": "go"}, "commlab": map[string]any{}}
	nb.Cells = []*notebook.Cell{{Type: notebook.Code, Source: "x", ExecutionCount: &one,
		Metadata: map[string]any{"tags": []any{"parameters"}, "execution": map[string]any{}, "scrolled": true},
		Outputs:  []*notebook.Output{{Type: notebook.Stream, Name: "stdout", Text: "1"}}}}
	StripVolatile(nb)
	c := nb.Cells[0]
	if len(nb.Metadata) != 1 || len(c.Metadata) != 1 || !c.HasTag("parameters") || c.Outputs != nil || c.ExecutionCount != nil {
		t.Errorf("after StripVolatile: %v %+v", nb.Metadata, c)
	}
}

// Any notebook survives notebook -> markdown -> notebook, metadata included
// (YAML's readings of "yes", "1.0", "null", long and multi-line strings).
func FuzzNotebookRoundTrip(f *testing.F) {
	if b, err := os.ReadFile("testdata/chapter.ipynb.golden"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"cells":[{"cell_type":"markdown","metadata":{"a":"yes","b":"1.0","c":"null","d":"x\ny: z","e":"~"},"source":"t"}],"metadata":{"title":"no","n":1e300,"s":" lead","list":[null,true,"#"]},"nbformat":4,"nbformat_minor":5}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		nb, err := notebook.Parse(data)
		if err != nil {
			return
		}
		md, err := Format(nb)
		if err != nil {
			return // unrepresentable cells, or metadata JSON cannot hold
		}
		back, err := Parse(md)
		if err != nil {
			t.Fatalf("Parse(Format): %v\n%s", err, md)
		}
		if d := notebook.Diff(nb, back, false); d != "" {
			t.Fatalf("round trip: %s\nnotebook %s\nmarkdown %q", d, data, md)
		}
	})
}

// A folded setup cell as jupytext writes it (jupyter.source_hidden on the
// fence, beside tags) reaches the notebook's cell metadata, where
// JupyterLab and Notebook 7 fold it, and comes back on the fence.
func TestSourceHiddenRoundTrip(t *testing.T) {
	src := "```go tags=[\"setup\"] jupyter={\"source_hidden\": true}\nimport \"fmt\"\n```\n"
	nb, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	jup, ok := nb.Cells[0].Metadata["jupyter"].(map[string]any)
	if !ok || jup["source_hidden"] != true {
		t.Fatalf("metadata %v", nb.Cells[0].Metadata)
	}
	if tags, _ := nb.Cells[0].Metadata["tags"].([]any); len(tags) != 1 || tags[0] != "setup" {
		t.Errorf("tags %v", nb.Cells[0].Metadata["tags"])
	}
	out, err := Format(nb)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "```go jupyter={\"source_hidden\": true} tags=[\"setup\"]\n") {
		t.Errorf("written as %s", out)
	}
	again, err := Parse(out)
	if err != nil || again.Cells[0].Metadata["jupyter"].(map[string]any)["source_hidden"] != true {
		t.Errorf("second pass: %v %v", err, again.Cells[0].Metadata)
	}
}

// A markdown cell that quotes a closed block in another language is
// written plain, as jupytext writes it (its reader keeps such a block in
// the markdown); a Go fence, a bare fence, an unclosed one or a double
// blank line inside still needs region markers to read back as one cell.
func TestFormatQuotedBlocks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		source string
		region bool
	}{
		{"c block with a blank line", "The source:\n\n```c\nint a;\n\nint b;\n```\n\nThat is all.", false},
		{"go block", "Not a cell:\n\n```go\nx := 1\n```", true},
		{"bare block", "Output:\n\n```\n42\n```", true},
		{"unclosed c block", "The source:\n\n```c\nint a;", true},
		{"double blank inside", "The source:\n\n```c\nint a;\n\n\nint b;\n```", true},
	} {
		nb := notebook.New()
		nb.Cells = []*notebook.Cell{{Type: notebook.Markdown, Source: tc.source, Metadata: map[string]any{}}}
		out, err := Format(nb)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := strings.Contains(string(out), "<!-- #region -->"); got != tc.region {
			t.Errorf("%s: region markers %v, want %v:\n%s", tc.name, got, tc.region, out)
		}
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(back.Cells) != 1 || back.Cells[0].Source != tc.source {
			t.Errorf("%s: read back as %d cell(s), not the one written", tc.name, len(back.Cells))
		}
	}
}
