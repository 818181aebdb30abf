package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/commlab/commlab/notebook"
	"github.com/commlab/commlab/notebook/runner"
)

// asMainEnv makes the test binary act as the commlab command, so Jupyter
// can start it as the kernel without a separate build.
const asMainEnv = "COMMLAB_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// coalesced returns a cell's outputs as comparable JSON values, with
// consecutive stream outputs of one name joined (frontends show them so).
func coalesced(c *notebook.Cell) []any {
	var out []any
	var last *notebook.Output
	for _, o := range c.Outputs {
		if o.Type == notebook.Stream && last != nil && last.Type == notebook.Stream && last.Name == o.Name {
			last.Text += o.Text
			continue
		}
		cp := *o
		last = &cp
		out = append(out, last)
	}
	var vals []any
	for _, o := range out {
		b, _ := json.Marshal(o)
		var v any
		json.Unmarshal(b, &v)
		vals = append(vals, v)
	}
	return vals
}

// The same notebook through `commlab run` and through `jupyter nbconvert
// --execute` with the commlab kernel gives the same outputs cell by cell.
func TestRunCLIMatchesNbconvert(t *testing.T) {
	jupyter, err := exec.LookPath("jupyter")
	if err != nil {
		t.Skip("jupyter is not installed: cannot compare with nbconvert")
	}
	if out, err := exec.Command(jupyter, "nbconvert", "--version").CombinedOutput(); err != nil {
		t.Skipf("jupyter nbconvert is not available: %v %s", err, out)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "jupyter", "kernels", "commlab")
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
	// The test chapters are copied into a folder of their own; the tour
	// runs where it is, since its cells read files beside it.
	for _, src := range []string{"notebook/runner/testdata/params.md", "notebook/runner/testdata/fails.md", "notebooks/00-tour.ipynb"} {
		name := strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
		t.Run(name, func(t *testing.T) {
			work := filepath.Join(dir, name)
			os.MkdirAll(work, 0o755)
			in := src
			if filepath.Ext(src) == ".md" {
				nb, err := runner.Load(src)
				if err != nil {
					t.Fatal(err)
				}
				in = filepath.Join(work, name+".ipynb")
				if err := notebook.WriteFile(in, nb); err != nil {
					t.Fatal(err)
				}
			}
			if code, _, stderr := labCLI(t, "run", "--allow-errors", "--out", filepath.Join(work, "run"), in); code != 0 {
				t.Fatalf("commlab run: %d %s", code, stderr)
			}
			cmd := exec.Command(jupyter, "nbconvert", "--to", "notebook", "--execute", "--allow-errors",
				"--ExecutePreprocessor.kernel_name=commlab", "--ExecutePreprocessor.timeout=120",
				"--output-dir", filepath.Join(work, "nbconvert"), in)
			cmd.Env = append(os.Environ(), "JUPYTER_PATH="+filepath.Join(dir, "jupyter"))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("nbconvert: %v\n%s", err, out)
			}
			ours, err := notebook.ReadFile(filepath.Join(work, "run", name+".ipynb"))
			if err != nil {
				t.Fatal(err)
			}
			theirs, err := notebook.ReadFile(filepath.Join(work, "nbconvert", name+".ipynb"))
			if err != nil {
				t.Fatal(err)
			}
			if len(ours.Cells) != len(theirs.Cells) {
				t.Fatalf("%d cells against nbconvert's %d", len(ours.Cells), len(theirs.Cells))
			}
			compared := 0
			for i, c := range ours.Cells {
				if c.Type != notebook.Code {
					continue
				}
				compared++
				a, b := coalesced(c), coalesced(theirs.Cells[i])
				if !reflect.DeepEqual(a, b) {
					ja, _ := json.Marshal(a)
					jb, _ := json.Marshal(b)
					t.Errorf("cell %d outputs differ:\ncommlab run: %s\nnbconvert:   %s", i+1, ja, jb)
				}
				if !reflect.DeepEqual(c.ExecutionCount, theirs.Cells[i].ExecutionCount) {
					t.Errorf("cell %d execution count %v against %v", i+1, c.ExecutionCount, theirs.Cells[i].ExecutionCount)
				}
			}
			if compared == 0 {
				t.Error("nothing compared")
			}
		})
	}
}
