package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// What an install into a Python environment checks beyond writing files:
// that the environment is whole, that the front ends there can draw
// commlab's widgets, and that the people sharing it can run the kernel.

var (
	// ErrBrokenVenv reports a virtual environment that is gone or whose
	// python no longer runs.
	ErrBrokenVenv = errors.New("install: broken virtual environment")
	// ErrNotWritable reports a kernelspec folder the user may not write.
	ErrNotWritable = errors.New("install: cannot write the kernelspec")
)

// TestedWidgets is the pip requirement of the widgets' front end for
// JupyterLab and Notebook 7 that commlab's browser tests run (kept equal to
// ci/requirements.txt by a test in ci/).
const TestedWidgets = "jupyterlab_widgets==3.0.17"

// widgetsManager is the JupyterLab extension jupyterlab_widgets installs;
// its major version 5 is ipywidgets 8's (protocol 2.1), 3 was ipywidgets 7's.
const widgetsManager = "@jupyter-widgets/jupyterlab-manager"

// Warning is something an install did not fail on but that keeps a front
// end from working as it should; Fix is what to run.
type Warning struct {
	Problem string
	Fix     string
}

func (w Warning) String() string { return w.Problem + ": " + w.Fix }

// notWritable wraps err as ErrNotWritable when it is a permission or
// read-only file system error, so the command can name the fix.
func notWritable(path string, err error) error {
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("%w %s: %w", ErrNotWritable, path, err)
	}
	return fmt.Errorf("install: %w", err)
}

// venvPython is the interpreter of a virtual environment.
func venvPython(goos, dir string) string {
	if goos == "windows" {
		return filepath.Join(dir, "Scripts", "python.exe")
	}
	return filepath.Join(dir, "bin", "python")
}

// remakeVenv is the advice for a virtual environment to make anew.
func remakeVenv(dir string) string {
	return fmt.Sprintf("make it anew: python3 -m venv --clear %s && %s/bin/python -m pip install -r ci/requirements.txt (in a commlab checkout: make venv)", dir, dir)
}

// checkVirtualEnv says what is wrong with the virtual environment at dir:
// gone (an activated one, $VIRTUAL_ENV), or its python pointing nowhere
// (the interpreter it was made from was removed or upgraded away).
func (e env) checkVirtualEnv(dir string) error {
	if _, err := e.stat(dir); err != nil {
		return fmt.Errorf("%w: $VIRTUAL_ENV is %s, which does not exist (removed or moved): leave it (deactivate) or %s", ErrBrokenVenv, dir, remakeVenv(dir))
	}
	return e.checkVenvPython(dir)
}

// checkVenvPython says whether a virtual environment's python points
// somewhere.
func (e env) checkVenvPython(dir string) error {
	py := venvPython(e.goos, dir)
	if _, err := e.stat(py); err != nil {
		return fmt.Errorf("%w: %s is missing or points nowhere (the Python it was made from is gone): %s", ErrBrokenVenv, py, remakeVenv(dir))
	}
	return nil
}

// Package is a Python distribution found in an environment.
type Package struct {
	Name, Version string
}

// installedPackages lists the distributions in a prefix's site-packages
// (a venv's lib/pythonX.Y/site-packages, Debian's lib/python3/dist-packages)
// by their .dist-info and .egg-info folders, keyed by normalised name.
func installedPackages(prefix string) map[string]Package {
	found := map[string]Package{}
	var dirs []string
	for _, pattern := range []string{"lib/python3*/site-packages", "lib/python3/dist-packages", "Lib/site-packages"} {
		m, _ := filepath.Glob(filepath.Join(prefix, pattern))
		dirs = append(dirs, m...)
	}
	for _, dir := range dirs {
		entries, _ := os.ReadDir(dir)
		for _, entry := range entries {
			base, ok := strings.CutSuffix(entry.Name(), ".dist-info")
			if !ok {
				base, ok = strings.CutSuffix(entry.Name(), ".egg-info")
			}
			name, version, cut := strings.Cut(base, "-")
			if !ok || !cut {
				continue
			}
			version, _, _ = strings.Cut(version, "-") // egg-info: 6.4.12-py3.11
			key := strings.ToLower(strings.NewReplacer("-", "_", ".", "_").Replace(name))
			found[key] = Package{Name: name, Version: version}
		}
	}
	return found
}

// major is the leading number of a version, or -1.
func major(version string) int {
	n, err := strconv.Atoi(strings.SplitN(version, ".", 2)[0])
	if err != nil {
		return -1
	}
	return n
}

// DataPath is where Jupyter looks for data files (kernelspecs, lab
// extensions) for an environment at prefix, as jupyter_core's jupyter_path
// orders it in a virtual environment: $JUPYTER_PATH, the environment, the
// user's data directory, then the system's.
func DataPath(prefix string) []string { return osEnv().dataPath(prefix) }

func (e env) dataPath(prefix string) []string {
	var path []string
	for _, p := range filepath.SplitList(e.getenv("JUPYTER_PATH")) {
		if p != "" {
			path = append(path, p)
		}
	}
	path = append(path, PrefixDataDir(prefix))
	if user, err := e.userDataDir(); err == nil {
		path = append(path, user)
	}
	if e.goos != "windows" {
		path = append(path, "/usr/local/share/jupyter", "/usr/share/jupyter")
	}
	return path
}

// CheckFrontEnds looks at the Python environment at prefix that a
// kernelspec went into and says what keeps its front ends from showing
// commlab's widgets: JupyterLab or Notebook 7 without jupyterlab_widgets
// (anywhere on dataPath) or with ipywidgets 7's; and, when noFrontEnd is
// set (an install into the environment that runs jupyter), an environment
// with no front end at all.
func CheckFrontEnds(prefix string, dataPath []string, noFrontEnd bool) []Warning {
	pkgs := installedPackages(prefix)
	pip := venvPython("", prefix) + " -m pip install"
	var labs []string
	if p, ok := pkgs["jupyterlab"]; ok {
		labs = append(labs, "JupyterLab "+p.Version)
	}
	if p, ok := pkgs["notebook"]; ok && major(p.Version) >= 7 {
		labs = append(labs, "Notebook "+p.Version)
	}
	var warnings []Warning
	if len(labs) == 0 {
		_, classic := pkgs["notebook"]
		_, nbclassic := pkgs["nbclassic"]
		_, server := pkgs["jupyter_server"]
		if noFrontEnd && !classic && !nbclassic && !server {
			warnings = append(warnings, Warning{
				Problem: fmt.Sprintf("no Jupyter front end in %s (no jupyterlab, notebook or jupyter_server): the kernel is registered there, but nothing there will start it", prefix),
				Fix:     fmt.Sprintf("%s -r ci/requirements.txt (in a commlab checkout: make venv), or run commlab install with the bin folder of the environment that has JupyterLab first on PATH", pip),
			})
		}
		return warnings
	}
	front := strings.Join(labs, " and ")
	version, where := labExtensionVersion(dataPath, widgetsManager)
	switch {
	case version == "":
		warnings = append(warnings, Warning{
			Problem: fmt.Sprintf("%s in %s has no jupyterlab_widgets (no %s on Jupyter's data path): commlab's sliders and buttons would show as text, not as controls", front, prefix, widgetsManager),
			Fix:     fmt.Sprintf("%s %s", pip, TestedWidgets),
		})
	case major(version) < 5:
		warnings = append(warnings, Warning{
			Problem: fmt.Sprintf("%s uses %s %s from %s, ipywidgets 7's front end: it cannot draw commlab's ipywidgets 8 controls", front, widgetsManager, version, where),
			Fix:     fmt.Sprintf("%s %s", pip, TestedWidgets),
		})
	}
	return warnings
}

// labExtensionVersion is the version of the lab extension name found first
// on dataPath, and the folder it is in; "" when none is.
func labExtensionVersion(dataPath []string, name string) (version, dir string) {
	for _, d := range dataPath {
		pkg := filepath.Join(d, "labextensions", filepath.FromSlash(name), "package.json")
		raw, err := os.ReadFile(pkg)
		if err != nil {
			continue
		}
		var meta struct {
			Version string `json:"version"`
		}
		if json.Unmarshal(raw, &meta) == nil && meta.Version != "" {
			return meta.Version, filepath.Dir(pkg)
		}
	}
	return "", ""
}

// SharedButNotRunnable reports the case of a shared environment: other
// users can read the kernelspec at kernelJSON, but cannot run executable,
// so their kernels would fail to start (on a hub: every user but the one
// who installed). It returns the path that stops them, or "" when others
// can run it, or cannot read the kernelspec either (a private install).
func SharedButNotRunnable(kernelJSON, executable string) string {
	if blocker := othersBlocked(kernelJSON, 0o004); blocker != "" {
		return ""
	}
	return othersBlocked(executable, 0o001)
}

// othersBlocked returns the first folder on path's way that users other
// than the owner cannot enter, or path itself when they lack the want
// permission bits on it; "" when nothing stops them.
func othersBlocked(path string, want fs.FileMode) string {
	path = filepath.Clean(path)
	var dirs []string
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == filepath.Dir(d) {
			break
		}
	}
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) < len(dirs[j]) })
	for _, d := range dirs {
		info, err := os.Stat(d)
		if err != nil || info.Mode().Perm()&0o001 == 0 {
			return d
		}
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm()&want != want {
		return path
	}
	return ""
}

// ModeOf is ls's form of a path's mode (drwx------), for messages.
func ModeOf(path string) string {
	info, err := os.Stat(path)
	if err != nil {
		return "unreadable"
	}
	return info.Mode().String()
}
