package notebook

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseMarshalIsByteExact(t *testing.T) {
	data, err := os.ReadFile("testdata/mixed.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	nb, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(nb.Cells); got != 3 {
		t.Fatalf("cells = %d, want 3", got)
	}
	c := nb.Cells[1]
	if !c.HasTag("parameters") || c.Source != "n := 8\nfmt.Println(\"hello\")" || *c.ExecutionCount != 1 {
		t.Errorf("code cell = %+v", c)
	}
	if got := c.Outputs[0].Text; got != "hello\nworld\n" {
		t.Errorf("stream text = %q", got)
	}
	if got := c.Outputs[1].Data["text/html"]; got != "<p>x</p>" {
		t.Errorf("html = %#v", got)
	}
	out, err := nb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(data) {
		t.Errorf("re-encoded notebook differs from the file:\n%s", out)
	}
	if err := Validate(out); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestValidateRejects(t *testing.T) {
	tests := []struct{ name, doc string }{
		{"no cells", `{"metadata":{},"nbformat":4,"nbformat_minor":5}`},
		{"old minor", `{"cells":[],"metadata":{},"nbformat":4,"nbformat_minor":4}`},
		{"cell without id", `{"cells":[{"cell_type":"markdown","metadata":{},"source":""}],"metadata":{},"nbformat":4,"nbformat_minor":5}`},
		{"bad id", `{"cells":[{"cell_type":"markdown","id":"a b","metadata":{},"source":""}],"metadata":{},"nbformat":4,"nbformat_minor":5}`},
		{"code without outputs", `{"cells":[{"cell_type":"code","id":"a","metadata":{},"source":"","execution_count":null}],"metadata":{},"nbformat":4,"nbformat_minor":5}`},
		{"bad stream", `{"cells":[{"cell_type":"code","id":"a","metadata":{},"source":"","execution_count":null,"outputs":[{"output_type":"stream","name":"stdout"}]}],"metadata":{},"nbformat":4,"nbformat_minor":5}`},
		{"duplicate tags", `{"cells":[{"cell_type":"raw","id":"a","metadata":{"tags":["x","x"]},"source":""}],"metadata":{},"nbformat":4,"nbformat_minor":5}`},
		{"not json", `{"cells":`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Validate([]byte(tt.doc)); !errors.Is(err, ErrInvalid) {
				t.Errorf("Validate = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, doc := range []string{`[]`, `{"nbformat":3,"cells":[]}`, `nope`} {
		if _, err := Parse([]byte(doc)); !errors.Is(err, ErrFormat) {
			t.Errorf("Parse(%s) = %v, want ErrFormat", doc, err)
		}
	}
}

func TestEnsureIDs(t *testing.T) {
	nb := New()
	for _, id := range []string{"", "cell-2", "cell-2", "bad id!"} {
		nb.Cells = append(nb.Cells, &Cell{Type: Markdown, ID: id})
	}
	nb.EnsureIDs()
	var ids []string
	for _, c := range nb.Cells {
		ids = append(ids, c.ID)
	}
	want := []string{"cell-1", "cell-2", "cell-3", "cell-4"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("ids = %v, want %v", ids, want)
	}
}

func TestWriteFileIsValidAndAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.ipynb")
	nb := New()
	one := 1
	nb.Cells = []*Cell{{Type: Code, Source: "1", ExecutionCount: &one, Outputs: []*Output{{Type: ExecuteResult, ExecutionCount: &one, Data: map[string]any{"text/plain": "1"}}}}}
	nb.EnsureIDs()
	if err := WriteFile(path, nb); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left temporary files: %v", entries)
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(nb, back, true); d != "" {
		t.Errorf("after write and read: %s", d)
	}
	nb.Cells[0].Type = "bogus"
	if err := WriteFile(path, nb); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("WriteFile of a bad cell = %v", err)
	}
}

func TestSplitLines(t *testing.T) {
	tests := map[string][]string{
		"":       {},
		"a":      {"a"},
		"a\n":    {"a\n"},
		"a\nb":   {"a\n", "b"},
		"\n\n":   {"\n", "\n"},
		"a\n\nb": {"a\n", "\n", "b"},
	}
	for in, want := range tests {
		if got := SplitLines(in); !reflect.DeepEqual(got, want) {
			t.Errorf("SplitLines(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.ipynb")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"cells":[{"cell_type":"code","source":["a\n","b"],"outputs":[{"output_type":"stream","text":"x"}]}],"nbformat":4}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		nb, err := Parse(data)
		if err != nil {
			return
		}
		out, err := nb.Marshal()
		if err != nil {
			return // a cell or output type nbformat 4 does not know
		}
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(Marshal): %v\n%s", err, out)
		}
		if d := Diff(nb, back, true); d != "" {
			t.Fatalf("Parse(Marshal) differs: %s", d)
		}
		again, err := back.Marshal()
		if err != nil || string(again) != string(out) {
			t.Fatalf("second Marshal differs: %v", err)
		}
	})
}
