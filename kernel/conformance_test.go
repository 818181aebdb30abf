package kernel_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// jupyterPython is Debian's Python, which has the Jupyter packages; the
// pyenv one on PATH does not.
const jupyterPython = "/usr/bin/python3"

// requireJupyter skips when the Jupyter client packages are absent, unless
// COMMLAB_REQUIRE_JUPYTER is set (CI sets it: there a skip is a failure).
func requireJupyter(t *testing.T, modules ...string) {
	t.Helper()
	args := []string{"-c", "import " + strings.Join(modules, ", ")}
	if out, err := exec.Command(jupyterPython, args...).CombinedOutput(); err != nil {
		msg := "Jupyter client packages missing (" + strings.TrimSpace(string(out)) + "); apt-get install python3-jupyter-kernel-test python3-nbclient"
		if os.Getenv("COMMLAB_REQUIRE_JUPYTER") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

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
// behaviour tests against the installed kernel through jupyter_client.
func TestJupyterConformance(t *testing.T) {
	requireJupyter(t, "jupyter_kernel_test", "jupyter_client")
	env := installKernel(t)
	cmd := exec.Command(jupyterPython, "-m", "unittest", "-v", "test_commlab_kernel")
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
}

// TestNbclientExecutesNotebook runs a small notebook through nbclient, as
// `jupyter nbconvert --execute` does.
func TestNbclientExecutesNotebook(t *testing.T) {
	requireJupyter(t, "nbclient", "nbformat")
	env := installKernel(t)
	cmd := exec.Command(jupyterPython, "run_notebook.py", "smoke.ipynb")
	cmd.Dir = filepath.Join("testdata", "conformance")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nbclient run failed: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
