package literate_test

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/commlab/commlab/ci/pythons"
	"github.com/commlab/commlab/notebook"
	"github.com/commlab/commlab/notebook/literate"
)

// jupytextCell is a cell as jupytext's reader gives it.
type jupytextCell struct {
	Type     string         `json:"cell_type"`
	Source   string         `json:"source"`
	Metadata map[string]any `json:"metadata"`
}

type jupytextNotebook struct {
	Metadata map[string]any `json:"metadata"`
	Cells    []jupytextCell `json:"cells"`
	Error    string         `json:"error"`
}

type jupytextAnswer struct {
	Read     []jupytextNotebook `json:"read"`
	Write    []string           `json:"write"`
	Warnings [][]string         `json:"warnings"`
	Version  string             `json:"version"`
}

// jupytextIO has jupytext itself (the venv's) read every markdown text and
// write every notebook as markdown.
func jupytextIO(t *testing.T, read []string, write []*notebook.Notebook) jupytextAnswer {
	t.Helper()
	py := pythons.RequireVenv(t, "jupytext", "nbformat")
	docs := make([]json.RawMessage, len(write))
	for i, nb := range write {
		b, err := nb.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		docs[i] = b
	}
	req, _ := json.Marshal(map[string]any{"read": read, "write": docs})
	cmd := exec.Command(py.Path, filepath.Join("testdata", "jupytext_io.py"))
	cmd.Stdin = strings.NewReader(string(req))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("jupytext: %v\n%s", err, stderr.String())
	}
	var ans jupytextAnswer
	if err := json.Unmarshal(out, &ans); err != nil {
		t.Fatal(err)
	}
	if len(ans.Read) != len(read) || len(ans.Write) != len(write) {
		t.Fatalf("jupytext answered %d reads and %d writes for %d and %d", len(ans.Read), len(ans.Write), len(read), len(write))
	}
	return ans
}

// jsonValue is v as encoding/json reads it back, so Go and Python values
// compare.
func jsonValue(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

// sameCells reports the first difference between our cells and
// jupytext's: type, source and metadata.
func sameCells(ours []*notebook.Cell, theirs []jupytextCell) string {
	if len(ours) != len(theirs) {
		var a, b []string
		for _, c := range ours {
			a = append(a, c.Type)
		}
		for _, c := range theirs {
			b = append(b, c.Type)
		}
		return "cell count: ours " + strings.Join(a, ",") + " jupytext's " + strings.Join(b, ",")
	}
	for i, c := range ours {
		j := theirs[i]
		switch {
		case c.Type != j.Type:
			return "cell " + itoa(i+1) + ": type " + c.Type + " against " + j.Type
		case c.Source != j.Source:
			return "cell " + itoa(i+1) + ": source " + quote(c.Source) + " against " + quote(j.Source)
		case !reflect.DeepEqual(jsonValue(orEmpty(c.Metadata)), jsonValue(orEmpty(j.Metadata))):
			a, _ := json.Marshal(c.Metadata)
			b, _ := json.Marshal(j.Metadata)
			return "cell " + itoa(i+1) + ": metadata " + string(a) + " against " + string(b)
		}
	}
	return ""
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// body is a chapter without its YAML header, which jupytext writes with
// its own version in it.
func body(md string) string {
	if strings.HasPrefix(md, "---\n") {
		if i := strings.Index(md[4:], "\n---\n"); i >= 0 {
			return md[4+i+5:]
		}
	}
	return md
}

// TestJupytextReadsChaptersAsNotebooks: jupytext's own reader reads every
// chapter into the cells of its notebook (types, sources, tags and all
// cell metadata) and the same kernelspec; jupytext writes the chapter back
// with the same body (its header adds its version); and what jupytext
// writes from the .ipynb is the chapter's body too, so a chapter saved from
// JupyterLab with jupytext and one written by commlab sync are the same
// text below the header.
func TestJupytextReadsChaptersAsNotebooks(t *testing.T) {
	chapters, _ := filepath.Glob(filepath.Join("..", "..", "chapters", "*.md"))
	if len(chapters) == 0 {
		t.Fatal("no chapters")
	}
	var texts []string
	var nbs []*notebook.Notebook
	for _, p := range chapters {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
		nb, err := notebook.ReadFile(filepath.Join("..", "..", "notebooks", strings.TrimSuffix(filepath.Base(p), ".md")+".ipynb"))
		if err != nil {
			t.Fatal(err)
		}
		nbs = append(nbs, nb)
	}
	ans := jupytextIO(t, texts, nbs)
	// The round trip through jupytext's writer is read again, by both.
	var again []string
	for i, p := range chapters {
		name := filepath.Base(p)
		got := ans.Read[i]
		if got.Error != "" {
			t.Errorf("%s: jupytext cannot read it: %s", name, got.Error)
			continue
		}
		if d := sameCells(nbs[i].Cells, got.Cells); d != "" {
			t.Errorf("%s: jupytext reads it differently from its notebook: %s", name, d)
		}
		ours, err := literate.Parse([]byte(texts[i]))
		if err != nil {
			t.Fatal(err)
		}
		if d := sameCells(ours.Cells, got.Cells); d != "" {
			t.Errorf("%s: jupytext and notebook/literate read it differently: %s", name, d)
		}
		if !reflect.DeepEqual(jsonValue(got.Metadata["kernelspec"]), jsonValue(nbs[i].Metadata["kernelspec"])) {
			t.Errorf("%s: kernelspec %v against the notebook's %v", name, got.Metadata["kernelspec"], nbs[i].Metadata["kernelspec"])
		}
		if w := ans.Write[i]; body(w) != body(texts[i]) {
			t.Errorf("%s: jupytext writes the notebook as a different chapter:\n%s", name, lineDiff(body(texts[i]), body(w)))
		}
		again = append(again, ans.Write[i])
	}
	back := jupytextIO(t, again, nil)
	for i, p := range chapters {
		ours, err := literate.Parse([]byte(again[i]))
		if err != nil {
			t.Errorf("%s as jupytext writes it: notebook/literate: %v", filepath.Base(p), err)
			continue
		}
		if d := sameCells(ours.Cells, back.Read[i].Cells); d != "" {
			t.Errorf("%s as jupytext writes it: %s", filepath.Base(p), d)
		}
		if d := notebook.Diff(ours, nbs[i], false); d != "" && !strings.Contains(d, "metadata") {
			t.Errorf("%s as jupytext writes it reads back as another notebook: %s", filepath.Base(p), d)
		}
	}
}

// lineDiff shows the first differing line of two texts.
func lineDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return "line " + itoa(i+1) + ":\n  ours:     " + quote(x) + "\n  jupytext: " + quote(y)
		}
	}
	return ""
}

// awkward are notebooks whose cells stress the markdown form: hidden
// setup cells (jupyter.source_hidden, as chapters fold them), tags, keys
// jupytext accepts, a None value, prose with fences, comments and runs of
// blank lines, code holding fences, empty cells, raw cells, non-ASCII.
func awkward() []*notebook.Notebook {
	cell := func(typ, src string, meta map[string]any) *notebook.Cell {
		if meta == nil {
			meta = map[string]any{}
		}
		return &notebook.Cell{Type: typ, Source: src, Metadata: meta}
	}
	hidden := map[string]any{"source_hidden": true}
	sets := [][]*notebook.Cell{
		{
			cell(notebook.Markdown, "# Title\n\nprose", nil),
			cell(notebook.Code, "import \"fmt\"", map[string]any{"jupyter": hidden}),
			cell(notebook.Code, "n := 8", map[string]any{"tags": []any{"parameters"}, "jupyter": hidden}),
			cell(notebook.Code, "fmt.Println(n)", map[string]any{"tags": []any{"core-question", "answer"}}),
			cell(notebook.Markdown, "folded prose", map[string]any{"jupyter": hidden}),
			cell(notebook.Code, "x := 1", map[string]any{"jupyter": map[string]any{"source_hidden": true, "outputs_hidden": true}}),
		},
		{
			cell(notebook.Markdown, "leading\n\n\ntwo blank lines inside", nil),
			cell(notebook.Markdown, "plain", nil),
			cell(notebook.Markdown, "plain after plain", nil),
			cell(notebook.Markdown, "<!-- a comment -->", nil),
			cell(notebook.Code, "x := 1\n", nil),
			cell(notebook.Code, "", nil),
			cell(notebook.Code, "s := \"```go\"\n````\n```", nil),
			cell(notebook.Markdown, "a shell block\n\n```sh\nmake lab\n\n\nmake test\n```\n\nafter it", nil),
			cell(notebook.Raw, "raw text", map[string]any{"format": "text/latex"}),
			cell(notebook.Raw, "", nil),
		},
		{
			cell(notebook.Code, "y := 2", map[string]any{"tags": []any{"a b", "c"}, "n": 1.5, "slideshow": map[string]any{"slide_type": "slide"}}),
			cell(notebook.Code, "z := 3", map[string]any{"editable": false, "deletable": false}),
			cell(notebook.Code, "w := 4", map[string]any{"name": "héllo ✓ 😀", "k.dotted": "v", "with-dash": 2.0, "k@at": "a", "k/slash": "b", "0digit": 0.25}),
			cell(notebook.Code, "v := 5", map[string]any{"nothing": nil, "tags": []any{}}),
			cell(notebook.Markdown, "## Section (章节)\n\n- a\n- b", map[string]any{"tags": []any{"toc"}}),
			cell(notebook.Code, "u := 6", map[string]any{"quote": "say \"hi\" \\ <b>&</b>\n\t\x01"}),
		},
	}
	var out []*notebook.Notebook
	for _, cells := range sets {
		nb := notebook.New()
		nb.Metadata = map[string]any{"kernelspec": map[string]any{"name": "commlab", "display_name": "Go (commlab)", "language": "go"}}
		nb.Cells = cells
		nb.EnsureIDs()
		out = append(out, nb)
	}
	return out
}

// TestJupytextAgreesOnAwkwardNotebooks: for each awkward notebook,
// jupytext reads what notebook/literate writes into the same cells, notebook/literate
// reads what jupytext writes into the same cells, and the two write the
// same markdown below the header.
func TestJupytextAgreesOnAwkwardNotebooks(t *testing.T) {
	nbs := awkward()
	var ours []string
	for _, nb := range nbs {
		md, err := literate.Format(nb)
		if err != nil {
			t.Fatal(err)
		}
		ours = append(ours, string(md))
	}
	ans := jupytextIO(t, ours, nbs)
	for i, nb := range nbs {
		// What a chapter keeps: an empty tags list is not written, by
		// jupytext or by notebook/literate.
		literate.StripVolatile(nb)
		if got := ans.Read[i]; got.Error != "" {
			t.Errorf("notebook %d: jupytext cannot read notebook/literate's markdown: %s", i+1, got.Error)
		} else if d := sameCells(nb.Cells, got.Cells); d != "" {
			t.Errorf("notebook %d: jupytext reads notebook/literate's markdown differently: %s\n%s", i+1, d, ours[i])
		}
		if len(ans.Warnings[i]) > 0 {
			t.Errorf("notebook %d: jupytext cannot write it whole: %v", i+1, ans.Warnings[i])
		}
		back, err := literate.Parse([]byte(ans.Write[i]))
		if err != nil {
			t.Errorf("notebook %d: notebook/literate cannot read jupytext's markdown: %v\n%s", i+1, err, ans.Write[i])
			continue
		}
		if d := notebook.Diff(nb, back, false); d != "" {
			t.Errorf("notebook %d: notebook/literate reads jupytext's markdown differently: %s\n%s", i+1, d, ans.Write[i])
		}
		if body(ours[i]) != body(ans.Write[i]) {
			t.Errorf("notebook %d: notebook/literate and jupytext %s write different markdown: %s", i+1, ans.Version, lineDiff(body(ours[i]), body(ans.Write[i])))
		}
	}
}

// TestJupyterServerOpensChapterAsNotebook starts a Jupyter server from the
// venv, with jupytext installed there as pip installs it (its server
// extension jupyterlab_jupytext replaces the contents manager), and asks
// for a chapter as a notebook the way JupyterLab's "Open With > Notebook"
// (or "Jupytext Notebook") does: GET /api/contents/<chapter>.md?type=notebook.
// The cells are the notebook's. Then it saves the notebook back as
// JupyterLab does (PUT) with a folded setup cell, and notebook/literate reads
// the file jupytext wrote into the same cells.
func TestJupyterServerOpensChapterAsNotebook(t *testing.T) {
	py := pythons.RequireVenv(t, "jupyter_server", "jupytext")
	root := t.TempDir()
	const chapter = "01-collectives.md"
	src, err := os.ReadFile(filepath.Join("..", "..", "chapters", chapter))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, chapter), src, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := notebook.ReadFile(filepath.Join("..", "..", "notebooks", strings.TrimSuffix(chapter, ".md")+".ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	server := startJupyterServer(t, py, root)

	var model struct {
		Type    string `json:"type"`
		Content struct {
			Metadata map[string]any `json:"metadata"`
			Cells    []struct {
				jupytextCell
				Source json.RawMessage `json:"source"`
			} `json:"cells"`
		} `json:"content"`
	}
	server.do(t, "GET", "/api/contents/"+chapter+"?type=notebook&content=1", nil, &model)
	if model.Type != "notebook" {
		t.Fatalf("the server gives the chapter as %q, not a notebook", model.Type)
	}
	var cells []jupytextCell
	for _, c := range model.Content.Cells {
		jc := c.jupytextCell
		jc.Source = multiline(t, c.Source)
		cells = append(cells, jc)
	}
	if d := sameCells(want.Cells, cells); d != "" {
		t.Errorf("JupyterLab would open %s as another notebook: %s", chapter, d)
	}
	if ks, _ := model.Content.Metadata["kernelspec"].(map[string]any); ks["name"] != "commlab" {
		t.Errorf("kernelspec %v", model.Content.Metadata["kernelspec"])
	}

	// Saved from JupyterLab: the setup cell (the first code cell after the
	// parameters) folded.
	edited := *want
	edited.Cells = nil
	for _, c := range want.Cells {
		cp := *c
		cp.Metadata = maps.Clone(c.Metadata)
		edited.Cells = append(edited.Cells, &cp)
	}
	folded := -1
	for i, c := range edited.Cells {
		if c.Type == notebook.Code && !c.HasTag("parameters") {
			c.Metadata["jupyter"] = map[string]any{"source_hidden": true}
			folded = i
			break
		}
	}
	content, err := edited.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// The contents API carries sources as strings (JupyterLab sends them
	// so), not the file's lists of lines.
	var doc map[string]any
	if err := json.Unmarshal(content, &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc["cells"].([]any) {
		cell := c.(map[string]any)
		if lines, ok := cell["source"].([]any); ok {
			var b strings.Builder
			for _, l := range lines {
				b.WriteString(l.(string))
			}
			cell["source"] = b.String()
		}
	}
	server.do(t, "PUT", "/api/contents/"+chapter, map[string]any{"type": "notebook", "format": "json", "content": doc}, nil)
	saved, err := os.ReadFile(filepath.Join(root, chapter))
	if err != nil {
		t.Fatal(err)
	}
	back, err := literate.Parse(saved)
	if err != nil {
		t.Fatalf("notebook/literate cannot read the chapter jupytext saved: %v", err)
	}
	literate.StripVolatile(back)
	if d := notebook.Diff(&edited, back, false); d != "" && !strings.Contains(d, "notebook metadata") {
		t.Errorf("the saved chapter reads back differently: %s", d)
	}
	if hidden, _ := back.Cells[folded].Metadata["jupyter"].(map[string]any); hidden["source_hidden"] != true {
		t.Errorf("the folded cell lost source_hidden: %v", back.Cells[folded].Metadata)
	}
	if !strings.Contains(string(saved), "```go jupyter={\"source_hidden\": true}\n") {
		t.Errorf("jupytext wrote the folded cell's fence otherwise than notebook/literate does:\n%.2000s", saved)
	}
	formatted, err := literate.Format(back)
	if err != nil {
		t.Fatal(err)
	}
	if body(string(formatted)) != body(string(saved)) {
		t.Errorf("commlab sync would write another chapter than jupytext saved: %s", lineDiff(body(string(formatted)), body(string(saved))))
	}
}

// multiline is an nbformat source: a string or a list of lines.
func multiline(t *testing.T, raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		t.Fatalf("source %s: %v", raw, err)
	}
	return strings.Join(lines, "")
}
