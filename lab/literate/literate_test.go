package literate

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/lab/notebook"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
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
	if string(got) != string(want) {
		t.Errorf("%s differs from the output (run with -update to accept):\n%s", path, got)
	}
}

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
	golden(t, "testdata/chapter.ipynb.golden", data)
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
