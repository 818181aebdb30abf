package main

import (
	"encoding/json"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/commlab/commlab/ci/pythons"
	"github.com/commlab/commlab/notebook"
	"github.com/commlab/commlab/notebook/runner"
)

// papermillModules are what the papermill tests need from the venv.
var papermillModules = []string{"papermill", "commlab_papermill.translator"}

// translatorSource puts the translator's source first on the Python path,
// so the venv's papermill loads this tree's translator even where the
// package was installed from an older copy (the installed entry point
// names the same modules).
func translatorSource(t *testing.T, env []string) []string {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("python", "commlab-papermill", "src"))
	if err != nil {
		t.Fatal(err)
	}
	return append(env, "PYTHONPATH="+src)
}

// testKernelspec writes a commlab kernelspec that starts this test binary
// as the kernel, and returns the JUPYTER_PATH folder holding it.
func testKernelspec(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "jupyter")
	spec := filepath.Join(dir, "kernels", "commlab")
	if err := os.MkdirAll(spec, 0o755); err != nil {
		t.Fatal(err)
	}
	kernelJSON, _ := json.Marshal(map[string]any{
		"argv": []string{self, "kernel", "{connection_file}"}, "display_name": "Go (commlab)", "language": "go",
		"interrupt_mode": "message", "env": map[string]string{asMainEnv: "1"},
	})
	if err := os.WriteFile(filepath.Join(spec, "kernel.json"), kernelJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPapermillTranslatorUnitTests runs the Go translator's own Python
// tests (python/commlab-papermill/tests) with the venv's papermill.
func TestPapermillTranslatorUnitTests(t *testing.T) {
	py := pythons.RequireVenv(t, papermillModules...)
	cmd := exec.Command(py.Path, "-m", "unittest", "discover", "-v", "-s", filepath.Join("python", "commlab-papermill", "tests"))
	cmd.Env = translatorSource(t, os.Environ())
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("commlab-papermill's tests failed: %v", err)
	}
	if strings.Contains(string(out), "skipped") {
		t.Fatal("a translator test was skipped")
	}
}

// paramsCell is a parameters cell declaring one parameter of each type
// papermill's command line produces.
const paramsCell = "i := 0\nf := 0.0\ns := \"\"\nb := false"

// papermillNames maps papermill's resolved Python type to the parameter
// of that type in paramsCell.
var papermillNames = map[string]string{"int": "i", "float": "f", "str": "s", "bool": "b"}

// TestPapermillLiteralsMatchGo holds that for every -p value both command
// lines read alike, papermill with commlab-papermill writes the very cell
// `commlab run -p` writes: ints, floats (Go's shortest form, always with a
// point or an exponent), strings (strconv.Quote) and bools, over fixed
// edge cases and seeded random values.
func TestPapermillLiteralsMatchGo(t *testing.T) {
	py := pythons.RequireVenv(t, papermillModules...)
	values := []string{"0", "16", "-3", "9223372036854775807", "-9223372036854775808", "1_000", "007",
		"0.0", "-0.0", "1.0", "1e6", "1E6", "1e-5", "0.1", ".5", "5.", "25", "25.5", "123456789.0", "1e21", "1e22",
		"5e-324", "1.7976931348623157e308", "2.5e-07", "0.000123", "100000.5",
		"True", "False", "true", "", "ring", "1GiB", `a"b\c`, "tab\there", "line\nbreak", "\x00\x07\x1b\x7f",
		"é中文😀", "\u00a0\u00ad\u200b\u2028\ufeff", "\U000e0001", "0x10", "1_0.5", "inf-ish"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 400 {
		f := math.Float64frombits(rng.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		values = append(values, strconv.FormatFloat(f, 'g', -1, 64), strconv.FormatFloat(rng.NormFloat64()*math.Pow(10, float64(rng.IntN(30)-15)), 'g', rng.IntN(17)+1, 64))
	}
	for range 100 {
		r := make([]rune, rng.IntN(8))
		for i := range r {
			r[i] = rune(rng.IntN(0x3000))
			if rng.IntN(4) == 0 {
				r[i] = rune(rng.IntN(0x80))
			}
			if r[i] >= 0xD800 && r[i] <= 0xDFFF {
				r[i] = 'x'
			}
		}
		values = append(values, string(r))
	}
	// Python reads each value as papermill's command line does and writes
	// the cell; one JSON object a line: the resolved type and the cell.
	script := `
import json, sys
from papermill.cli import _resolve_type
from papermill.translators import translate_parameters
for text in json.load(sys.stdin):
    v = _resolve_type(text)
    t = type(v).__name__
    try:
        cell = translate_parameters("commlab", "go", {"x": v})
    except Exception as e:
        cell = "error: " + str(e)
    print(json.dumps({"type": t, "cell": cell}))
`
	in, _ := json.Marshal(values)
	cmd := exec.Command(py.Path, "-c", script)
	cmd.Env = translatorSource(t, os.Environ())
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(values) {
		t.Fatalf("%d answers for %d values", len(lines), len(values))
	}
	compared := 0
	for i, line := range lines {
		var got struct{ Type, Cell string }
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatal(err)
		}
		name := papermillNames[got.Type]
		if name == "" {
			t.Errorf("%q: papermill made a %s", values[i], got.Type)
			continue
		}
		if got.Type == "int" && (strings.HasPrefix(strings.TrimLeft(values[i], "+-"), "0") && len(strings.TrimLeft(values[i], "+-")) > 1) {
			continue // a leading zero: Go reads 007 as octal, Python as decimal (see papermillReadsDifferently)
		}
		nb := notebook.New()
		nb.Cells = []*notebook.Cell{{Type: notebook.Code, Source: paramsCell, Metadata: map[string]any{"tags": []any{"parameters"}}}}
		if err := runner.InjectParameters(nb, map[string]string{name: values[i]}); err != nil {
			if strings.HasPrefix(got.Cell, "error: ") {
				continue // both refuse it
			}
			t.Errorf("%q: commlab run refuses it (%v), papermill writes %q", values[i], err, got.Cell)
			continue
		}
		want := strings.Replace(nb.Cells[1].Source, "\n"+name+" = ", "\nx = ", 1)
		if got.Cell != want {
			t.Errorf("%q (%s):\npapermill:   %q\ncommlab run: %q", values[i], got.Type, got.Cell, want)
		}
		compared++
	}
	if compared < len(values)*9/10 {
		t.Errorf("only %d of %d values compared", compared, len(values))
	}
}

// papermillReadsDifferently are -p texts the two command lines read as
// different values. That is not the translator's doing: papermill resolves
// a -p value with Python's int() and float() before any translator sees
// it, commlab run reads it in the declared type's Go syntax. The test
// keeps the list true; the README repeats it.
var papermillReadsDifferently = []struct {
	text      string
	papermill string // the value papermill resolves: Python type and repr
	decl      string // the parameters cell commlab run reads it against
	commlab   string // commlab run's injected line, or "error"
}{
	{"010", "int 10", "x := 0", "x = 8"}, // Go: a leading 0 is octal
	{"0x10", "str '0x10'", "x := 0", "x = 16"},
	{" 5", "int 5", "x := 0", "error"},               // int() strips spaces
	{"true", "str 'true'", "x := false", "x = true"}, // papermill: only True and False are bools
}

func TestPapermillReadsDifferently(t *testing.T) {
	py := pythons.RequireVenv(t, "papermill")
	for _, d := range papermillReadsDifferently {
		out, err := exec.Command(py.Path, "-c", "import sys; from papermill.cli import _resolve_type; v = _resolve_type(sys.argv[1]); print(type(v).__name__, repr(v))", d.text).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(out)); got != d.papermill {
			t.Errorf("papermill reads %q as %s, the list says %s", d.text, got, d.papermill)
		}
		nb := notebook.New()
		nb.Cells = []*notebook.Cell{{Type: notebook.Code, Source: d.decl, Metadata: map[string]any{"tags": []any{"parameters"}}}}
		got := "error"
		if err := runner.InjectParameters(nb, map[string]string{"x": d.text}); err == nil {
			got = strings.TrimPrefix(nb.Cells[1].Source, "// Parameters\n")
		}
		if got != d.commlab {
			t.Errorf("commlab run reads %q as %q, the list says %q", d.text, got, d.commlab)
		}
	}
}

// TestPapermillMatchesRun runs chapter 1 through papermill and the commlab
// kernel with -p n 16, and through `commlab run -p n=16`: the parameter
// cells are the same text, and every code cell's outputs are the same,
// once a widget's kernel-side form is read back as commlab run writes it
// (widgetsAsRun) and streams are joined (normalizeOutputs).
func TestPapermillMatchesRun(t *testing.T) {
	py := pythons.RequireVenv(t, papermillModules...)
	jupyterPath := testKernelspec(t)
	dir := t.TempDir()
	const chapter = "notebooks/01-collectives.ipynb"
	pm := filepath.Join(dir, "papermill.ipynb")
	cmd := exec.Command(py.Path, "-m", "papermill", chapter, pm, "-k", "commlab", "-p", "n", "16", "--no-progress-bar")
	cmd.Env = translatorSource(t, append(os.Environ(), "JUPYTER_PATH="+jupyterPath))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("papermill: %v\n%s", err, out)
	}
	if code, _, stderr := labCLI(t, "run", "--out", filepath.Join(dir, "run"), chapter, "-p", "n=16"); code != 0 {
		t.Fatalf("commlab run: %d %s", code, stderr)
	}
	theirs, err := notebook.ReadFile(pm)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := notebook.ReadFile(filepath.Join(dir, "run", "01-collectives.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ours.Cells) != len(theirs.Cells) {
		t.Fatalf("commlab run has %d cells, papermill %d", len(ours.Cells), len(theirs.Cells))
	}
	injected := 0
	for i, c := range ours.Cells {
		p := theirs.Cells[i]
		if c.Type != p.Type || c.Source != p.Source {
			t.Errorf("cell %d: %s %q against papermill's %s %q", i+1, c.Type, c.Source, p.Type, p.Source)
			continue
		}
		if c.HasTag(runner.TagInjectedParameters) {
			injected++
			if c.Source != "// Parameters\nn = 16" || !p.HasTag(runner.TagInjectedParameters) {
				t.Errorf("injected cell %q, papermill's tags %v", c.Source, p.Tags())
			}
		}
		if c.Type != notebook.Code {
			continue
		}
		if errs := errorOutputs(c); errs != "" {
			t.Errorf("cell %d fails under commlab run: %s", i+1, errs)
		}
		a, b := normalizeOutputs(widgetsAsRun(t, ours, c)), normalizeOutputs(widgetsAsRun(t, theirs, p))
		if !reflect.DeepEqual(a, b) {
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			t.Errorf("cell %d outputs differ:\ncommlab run: %.600s\npapermill:   %.600s", i+1, ja, jb)
		}
	}
	if injected != 1 {
		t.Errorf("%d injected-parameters cells, want 1", injected)
	}
}

func errorOutputs(c *notebook.Cell) string {
	var errs []string
	for _, o := range c.Outputs {
		if o.Type == notebook.Error {
			errs = append(errs, o.EName+": "+o.EValue)
		}
	}
	return strings.Join(errs, "; ")
}

// normalizeOutputs is a cell's outputs as comparable values: stream
// outputs of one name joined (nbclient keeps each flush, commlab run joins
// them; a front end shows them alike). Execution counts and cell metadata
// (papermill's timings) are not outputs.
func normalizeOutputs(c *notebook.Cell) []any {
	vals := coalesced(c)
	for _, v := range vals {
		if o, ok := v.(map[string]any); ok {
			delete(o, "ExecutionCount")
		}
	}
	return vals
}

// widgetsAsRun turns what a widget display becomes through a kernel into
// what commlab run writes, so that the two compare. Through a kernel the
// controls are a widget view (a model id the kernel made up, resolved in
// the notebook's widget state) whose text/plain lists the box's children,
// the Output widget among them, and what the function printed lives in
// that Output widget's state. commlab run has no client for widgets: it
// shows the same static HTML of the controls and then the function's
// outputs as the cell's own. So the view reference goes, the Output
// widget's outputs follow the display, and the controls' text/plain (the
// widget tree, which differs by the Output child) is left out on both
// sides.
func widgetsAsRun(t *testing.T, nb *notebook.Notebook, c *notebook.Cell) *notebook.Cell {
	t.Helper()
	state := map[string]any{}
	if w, ok := nb.Metadata["widgets"].(map[string]any); ok {
		if s, ok := w["application/vnd.jupyter.widget-state+json"].(map[string]any); ok {
			state, _ = s["state"].(map[string]any)
		}
	}
	out := &notebook.Cell{Type: c.Type, Source: c.Source}
	for _, o := range c.Outputs {
		cp := *o
		if o.Data != nil {
			cp.Data = maps.Clone(o.Data)
		}
		if html, _ := cp.Data["text/html"].(string); strings.HasPrefix(html, `<div class="commlab-controls"`) {
			delete(cp.Data, "text/plain")
		}
		view, isView := cp.Data["application/vnd.jupyter.widget-view+json"].(map[string]any)
		delete(cp.Data, "application/vnd.jupyter.widget-view+json")
		out.Outputs = append(out.Outputs, &cp)
		if isView {
			id, _ := view["model_id"].(string)
			out.Outputs = append(out.Outputs, outputWidgetOutputs(t, state, id)...)
		}
	}
	return out
}

// outputWidgetOutputs are the outputs of the Output widgets under the
// widget model id, depth first.
func outputWidgetOutputs(t *testing.T, state map[string]any, id string) []*notebook.Output {
	t.Helper()
	model, _ := state[id].(map[string]any)
	if model == nil {
		t.Errorf("widget model %s is not in the notebook's widget state", id)
		return nil
	}
	st, _ := model["state"].(map[string]any)
	if model["model_name"] == "OutputModel" {
		doc, _ := json.Marshal(map[string]any{"nbformat": 4, "nbformat_minor": 5, "metadata": map[string]any{},
			"cells": []any{map[string]any{"cell_type": "code", "id": "w", "metadata": map[string]any{}, "execution_count": nil, "source": "", "outputs": st["outputs"]}}})
		nb, err := notebook.Parse(doc)
		if err != nil {
			t.Errorf("the Output widget's outputs: %v", err)
			return nil
		}
		return nb.Cells[0].Outputs
	}
	var outs []*notebook.Output
	children, _ := st["children"].([]any)
	for _, ch := range children {
		if ref, ok := ch.(string); ok {
			outs = append(outs, outputWidgetOutputs(t, state, strings.TrimPrefix(ref, "IPY_MODEL_"))...)
		}
	}
	return outs
}

// Without commlab-papermill papermill cannot write Go. With a notebook
// whose language says go it stops with its own message, "No parameter
// translator functions specified for kernel 'commlab' or language 'go'"
// (the README names the fix beside it); told the language is python, it
// injects Python, and the kernel's error names the fix.
func TestPapermillWithoutTranslatorSaysTheFix(t *testing.T) {
	py := pythons.RequireVenv(t, "papermill")
	jupyterPath := testKernelspec(t)
	dir := t.TempDir()
	nb := notebook.New()
	nb.Metadata["kernelspec"] = map[string]any{"name": "commlab", "language": "go", "display_name": "Go (commlab)"}
	nb.Cells = []*notebook.Cell{{Type: notebook.Code, Source: "n := 8", Metadata: map[string]any{"tags": []any{"parameters"}}},
		{Type: notebook.Code, Source: "n * 2"}}
	nb.EnsureIDs()
	in := filepath.Join(dir, "in.ipynb")
	if err := notebook.WriteFile(in, nb); err != nil {
		t.Fatal(err)
	}
	// papermill as it is without the package: our registrations taken out.
	const withoutTranslator = `import sys
import papermill.translators as t
for key in ("commlab", "go"):
    if t.papermill_translators._translators.get(key).__module__.startswith("commlab_papermill"):
        del t.papermill_translators._translators[key]
from papermill.cli import papermill
sys.argv[0] = "papermill"
papermill()
`
	run := func(extra ...string) string {
		args := append([]string{"-c", withoutTranslator, in, filepath.Join(dir, "out.ipynb"), "-k", "commlab", "-p", "n", "16", "--no-progress-bar"}, extra...)
		cmd := exec.Command(py.Path, args...)
		cmd.Env = append(os.Environ(), "JUPYTER_PATH="+jupyterPath)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("papermill %v ran without a Go translator:\n%s", extra, out)
		}
		return string(out)
	}
	if out := run(); !strings.Contains(out, "No parameter translator functions specified for kernel 'commlab' or language 'go'") {
		t.Errorf("papermill's own message changed (the README quotes it):\n%s", out)
	}
	if out := run("--language", "python"); !strings.Contains(out, "this looks like a Python parameters cell: install commlab-papermill") {
		t.Errorf("the kernel's error does not name commlab-papermill:\n%s", out)
	}
}
