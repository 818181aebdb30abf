package kernel_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/ci/pythons"
)

// installKernel builds commlab and installs its kernelspec into a fresh
// Jupyter data directory; it returns the environment for Jupyter clients.
func installKernel(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "commlab")
	build := exec.Command("go", "build", "-o", bin, "github.com/commlab/commlab")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build commlab: %v\n%s", err, out)
	}
	data := filepath.Join(dir, "jupyter")
	// A private HOME: jupyter would also find a commlab kernelspec that `make
	// lab` installed for the user, and could start that binary instead.
	env := append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "xdg"), "JUPYTER_DATA_DIR="+data, "JUPYTER_PATH=", "PYDEVD_DISABLE_FILE_VALIDATION=1")
	install := exec.Command(bin, "install", "--user")
	install.Env = env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("commlab install: %v\n%s", err, out)
	}
	return env
}

// TestJupyterConformance runs jupyter_kernel_test's whole suite and our
// behaviour tests against the installed kernel through jupyter_client, with
// Debian's clients (jupyter_client 7, jupyter_kernel_test 0.4) and with the
// venv's (the index's jupyter_client 8, jupyter_kernel_test 0.7).
func TestJupyterConformance(t *testing.T) {
	pythons.Each(t, []string{"jupyter_kernel_test", "jupyter_client"}, func(t *testing.T, py pythons.Python) {
		env := installKernel(t)
		cmd := exec.Command(py.Path, "-m", "unittest", "-v", "test_commlab_kernel")
		cmd.Dir = filepath.Join("testdata", "conformance")
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		t.Logf("%s", out)
		if err != nil {
			t.Fatalf("conformance suite failed: %v", err)
		}
		if strings.Contains(string(out), "skipped") {
			t.Fatalf("a conformance test was skipped: every test jupyter_kernel_test offers must run")
		}
	})
}

// TestNbclientExecutesNotebook runs a small notebook through nbclient, as
// `jupyter nbconvert --execute` does, with Debian's nbclient 0.7 and the
// venv's 0.11.
func TestNbclientExecutesNotebook(t *testing.T) {
	pythons.Each(t, []string{"nbclient", "nbformat"}, func(t *testing.T, py pythons.Python) {
		env := installKernel(t)
		cmd := exec.Command(py.Path, "-W", "error::UserWarning", "run_notebook.py", "smoke.ipynb")
		cmd.Dir = filepath.Join("testdata", "conformance")
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("nbclient run failed: %v\n%s", err, out)
		}
		t.Logf("%s", out)
	})
}

// secondRun is, per notebook, the parameter a reader changes before the
// second Run All, as Go source.
var secondRun = []struct{ notebook, name, value string }{
	{"00-tour.ipynb", "n", "4"},
	{"01-collectives.ipynb", "bigSize", `"4GB"`},
	{"02-interconnect.ipynb", "gdrLevel", `"PHB"`},
	{"03-rdma.ipynb", "nics", "4"},
	{"04-nccl.ipynb", "gpus", "4"},
	{"05-pytorch.ipynb", "fraction", "0.25"},
	{"06-nccl-tests.ipynb", "hangScenario", `"size"`},
	{"07-inference.ipynb", "batch", "16"},
}

// TestNbclientRunsNotebooksTwice runs every notebook twice in one kernel
// through nbclient (Run All, one parameter changed, Run All again) and
// fails on any error output: what a reader following the Parameters
// section does. notebook/runner's TestChaptersRunTwice does the same
// without Jupyter.
func TestNbclientRunsNotebooksTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every notebook twice")
	}
	notebooks, _ := filepath.Glob(filepath.Join("..", "notebooks", "*.ipynb"))
	if len(notebooks) != len(secondRun) {
		t.Fatalf("%d notebooks, %d entries in secondRun: give each notebook a parameter to change", len(notebooks), len(secondRun))
	}
	pythons.Each(t, []string{"nbclient", "nbformat"}, func(t *testing.T, py pythons.Python) {
		env := installKernel(t)
		args := []string{"run_twice.py"}
		for _, r := range secondRun {
			nb, err := filepath.Abs(filepath.Join("..", "notebooks", r.notebook))
			if err != nil {
				t.Fatal(err)
			}
			args = append(args, nb, r.name, r.value)
		}
		cmd := exec.Command(py.Path, args...)
		cmd.Dir = filepath.Join("testdata", "conformance")
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		t.Logf("%s", out)
		if err != nil {
			t.Fatalf("a notebook failed on its first or second run: %v", err)
		}
	})
}
