// Package pythons finds the Python interpreters that tests drive Jupyter's
// own clients with, and says plainly what is missing when one cannot:
// Debian's /usr/bin/python3 (jupyter_client, nbclient and
// jupyter_kernel_test as Debian 12 packages them) and the virtual
// environment made from ci/requirements.txt (the index's newer clients,
// papermill with commlab-papermill, jupytext, py-spy), found at
// $COMMLAB_VENV or else .venv at the module root.
//
// It owns finding them and the skip-or-fail rule: a test whose Python lacks
// a module skips with the reason and the fix, unless COMMLAB_REQUIRE_JUPYTER
// is set (CI sets it), where it fails. It runs nothing else.
package pythons

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// RequireEnv is the variable that turns a missing interpreter or module
// into a failure instead of a skip.
const RequireEnv = "COMMLAB_REQUIRE_JUPYTER"

// VenvEnv names the virtual environment's folder.
const VenvEnv = "COMMLAB_VENV"

// Python is one interpreter: Name says which ("debian", "venv") in test
// names and messages.
type Python struct {
	Name string
	Path string
	// Fix is what to run when a module is missing.
	Fix string
}

// Debian is Debian's Python with its Jupyter packages.
func Debian() Python {
	return Python{Name: "debian", Path: "/usr/bin/python3",
		Fix: "apt-get install python3-jupyter-client python3-jupyter-kernel-test python3-nbclient python3-nbformat"}
}

// Venv is the virtual environment's Python: $COMMLAB_VENV/bin/python, else
// .venv/bin/python at the module root. It fails when neither exists.
func Venv() (Python, error) {
	dir := os.Getenv(VenvEnv)
	if dir == "" {
		root, err := ModuleRoot()
		if err != nil {
			return Python{}, err
		}
		dir = filepath.Join(root, ".venv")
	}
	py := Python{Name: "venv", Path: filepath.Join(dir, "bin", "python"),
		Fix: "make venv (or python3 -m venv " + dir + " && " + filepath.Join(dir, "bin", "pip") + " install -r ci/requirements.txt && " + filepath.Join(dir, "bin", "pip") + " install -e ./python/commlab-papermill), or set " + VenvEnv}
	if _, err := os.Stat(py.Path); err != nil {
		return py, fmt.Errorf("pythons: no virtual environment at %s: %w; %s", dir, err, py.Fix)
	}
	return py, nil
}

// ModuleRoot is the folder of the go.mod above the working directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("pythons: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Missing says which of modules py cannot import ("" when it has them all).
func (py Python) Missing(modules ...string) string {
	var missing []string
	for _, m := range modules {
		if out, err := exec.Command(py.Path, "-c", "import "+m).CombinedOutput(); err != nil {
			last := strings.TrimSpace(string(out))
			if i := strings.LastIndexByte(last, '\n'); i >= 0 {
				last = last[i+1:]
			}
			if last == "" {
				last = err.Error()
			}
			missing = append(missing, m+" ("+last+")")
		}
	}
	return strings.Join(missing, ", ")
}

// Require skips t (fails it under COMMLAB_REQUIRE_JUPYTER) unless py
// imports every module.
func Require(t testing.TB, py Python, modules ...string) {
	t.Helper()
	if missing := py.Missing(modules...); missing != "" {
		skipOrFail(t, fmt.Sprintf("%s Python %s lacks %s; %s", py.Name, py.Path, missing, py.Fix))
	}
}

// RequireVenv is Venv and Require together.
func RequireVenv(t testing.TB, modules ...string) Python {
	t.Helper()
	py, err := Venv()
	if err != nil {
		skipOrFail(t, err.Error())
	}
	Require(t, py, modules...)
	return py
}

// Each runs test once per interpreter that imports modules, as a subtest
// named after it; an interpreter that lacks them skips (or fails) its
// subtest only.
func Each(t *testing.T, modules []string, test func(t *testing.T, py Python)) {
	t.Helper()
	t.Run(Debian().Name, func(t *testing.T) {
		Require(t, Debian(), modules...)
		test(t, Debian())
	})
	t.Run("venv", func(t *testing.T) {
		test(t, RequireVenv(t, modules...))
	})
}

func skipOrFail(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv(RequireEnv) != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
