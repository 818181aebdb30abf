package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestKernelSpec(t *testing.T) {
	s, err := KernelSpec("/opt/bin/commlab", "commlab")
	if err != nil {
		t.Fatal(err)
	}
	want := Spec{
		Argv:          []string{"/opt/bin/commlab", "kernel", "{connection_file}"},
		DisplayName:   "Go (commlab)",
		Language:      "go",
		InterruptMode: "message",
	}
	if fmt.Sprint(s.Argv) != fmt.Sprint(want.Argv) || s.DisplayName != want.DisplayName ||
		s.Language != want.Language || s.InterruptMode != want.InterruptMode {
		t.Fatalf("spec %+v, want %+v", s, want)
	}
	// The template is parsed afresh each time: no state leaks between calls.
	s2, _ := KernelSpec("/other", "lab2")
	if s2.Argv[0] != "/other" || s2.DisplayName != "Go (lab2)" || s.Argv[0] != "/opt/bin/commlab" {
		t.Fatalf("second spec %+v", s2)
	}
}

func TestInstallWritesSpecAndLogos(t *testing.T) {
	data := t.TempDir()
	exe := "/usr/local/bin/commlab"
	dir, err := Install(data, DefaultName, exe)
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(data, "kernels", "commlab") {
		t.Fatalf("installed in %s", dir)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got["argv"]) != "[/usr/local/bin/commlab kernel {connection_file}]" ||
		got["display_name"] != "Go (commlab)" || got["language"] != "go" || got["interrupt_mode"] != "message" {
		t.Fatalf("kernel.json %s", raw)
	}
	for _, size := range []int{32, 64} {
		f, err := os.Open(filepath.Join(dir, fmt.Sprintf("logo-%dx%d.png", size, size)))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != size || cfg.Height != size {
			t.Fatalf("logo %d: %+v %v", size, cfg, err)
		}
	}
	svg, err := os.ReadFile(filepath.Join(dir, "logo-svg.svg"))
	if err != nil || !bytes.HasPrefix(svg, []byte("<svg ")) {
		t.Fatalf("logo-svg.svg: %.40q %v", svg, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Fatalf("kernel dir holds %d entries (temp files left?)", len(entries))
	}

	// Reinstalling replaces the spec in place.
	if _, err := Install(data, DefaultName, "/new/commlab"); err != nil {
		t.Fatal(err)
	}
	raw, _ = os.ReadFile(filepath.Join(dir, "kernel.json"))
	if !strings.Contains(string(raw), `"/new/commlab"`) {
		t.Fatalf("reinstall kept %s", raw)
	}

	if removed, err := Uninstall(data, DefaultName); err != nil || removed != dir {
		t.Fatalf("uninstall: %s %v", removed, err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("kernel dir still there: %v", err)
	}
	if _, err := Uninstall(data, DefaultName); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("second uninstall: %v, want ErrNotInstalled", err)
	}
}

func TestInstallErrors(t *testing.T) {
	data := t.TempDir()
	cases := []struct {
		name, kernel, exe string
		want              error
		detail            string
	}{
		{"slash in name", "../evil", "/bin/commlab", ErrBadName, "../evil"},
		{"empty name", "", "/bin/commlab", ErrBadName, `""`},
		{"space in name", "go lab", "/bin/commlab", ErrBadName, "go lab"},
		{"relative executable", "commlab", "commlab", nil, "not an absolute path"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Install(data, tc.kernel, tc.exe)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.detail) {
				t.Fatalf("error %v, want %v containing %q", err, tc.want, tc.detail)
			}
		})
	}
	if _, err := Uninstall(data, "../x"); !errors.Is(err, ErrBadName) {
		t.Fatalf("uninstall bad name: %v", err)
	}
	// A directory without kernel.json is not ours to remove.
	other := filepath.Join(data, "kernels", "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("keep"), 0o644)
	if _, err := Uninstall(data, "other"); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("uninstall foreign dir: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "notes.txt")); err != nil {
		t.Fatal("foreign dir was touched")
	}
	// Install into a data dir that cannot be created.
	file := filepath.Join(data, "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := Install(file, "commlab", "/bin/commlab"); err == nil || !strings.HasPrefix(err.Error(), "install: ") {
		t.Fatalf("install under a file: %v", err)
	}
}

func fakeEnv(goos string, vars map[string]string) env {
	return env{
		goos:     goos,
		getenv:   func(k string) string { return vars[k] },
		home:     func() (string, error) { return "/home/ada", nil },
		lookPath: func(string) (string, error) { return "", exec.ErrNotFound },
		readFile: func(string) ([]byte, error) { return nil, fs.ErrNotExist },
		stat:     statOf(),
		output:   func(string, ...string) ([]byte, error) { return nil, exec.ErrNotFound },
	}
}

// statOf is a stat that finds exactly the paths given.
func statOf(paths ...string) func(string) (fs.FileInfo, error) {
	return func(p string) (fs.FileInfo, error) {
		for _, q := range paths {
			if p == q {
				return nil, nil
			}
		}
		return nil, fs.ErrNotExist
	}
}

func TestUserDataDir(t *testing.T) {
	cases := []struct {
		name string
		goos string
		vars map[string]string
		want string
	}{
		{"linux default", "linux", nil, "/home/ada/.local/share/jupyter"},
		{"JUPYTER_DATA_DIR wins", "linux", map[string]string{"JUPYTER_DATA_DIR": "/data/j", "XDG_DATA_HOME": "/xdg"}, "/data/j"},
		{"XDG_DATA_HOME", "linux", map[string]string{"XDG_DATA_HOME": "/xdg"}, "/xdg/jupyter"},
		{"macOS", "darwin", map[string]string{"XDG_DATA_HOME": "/xdg"}, "/home/ada/Library/Jupyter"},
		{"windows APPDATA", "windows", map[string]string{"APPDATA": "/appdata"}, filepath.Join("/appdata", "jupyter")},
		{"windows no APPDATA", "windows", nil, filepath.Join("/home/ada", ".jupyter", "data")},
		{"freebsd is unix", "freebsd", nil, "/home/ada/.local/share/jupyter"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fakeEnv(tc.goos, tc.vars).userDataDir()
			if err != nil || got != tc.want {
				t.Fatalf("got %q %v, want %q", got, err, tc.want)
			}
		})
	}
	e := fakeEnv("linux", nil)
	e.home = func() (string, error) { return "", errors.New("$HOME is not defined") }
	if _, err := e.userDataDir(); err == nil || !strings.Contains(err.Error(), "HOME") {
		t.Fatalf("no home: %v", err)
	}
}

func TestSysPrefix(t *testing.T) {
	// A machine with jupyter in a venv and a system python3.
	machine := func(jupyterScript string) env {
		e := fakeEnv("linux", nil)
		e.stat = statOf("/ve", "/ve/bin/python", "/conda", "/venv/pyvenv.cfg", "/venv/bin/python")
		e.lookPath = func(name string) (string, error) {
			switch name {
			case "jupyter":
				return "/venv/bin/jupyter", nil
			case "python3":
				return "/usr/bin/python3", nil
			}
			return "", exec.ErrNotFound
		}
		e.readFile = func(p string) ([]byte, error) {
			if p == "/venv/bin/jupyter" {
				return []byte(jupyterScript), nil
			}
			return nil, fs.ErrNotExist
		}
		e.output = func(py string, args ...string) ([]byte, error) {
			if len(args) != 2 || args[1] != printPrefix {
				return nil, fmt.Errorf("unexpected args %q", args)
			}
			switch py {
			case "/venv/bin/python3.11":
				return []byte("/venv\n"), nil
			case "/usr/bin/python3":
				return []byte("/usr\n"), nil
			}
			return nil, exec.ErrNotFound
		}
		return e
	}
	cases := []struct {
		name       string
		e          env
		vars       map[string]string
		want, from string
	}{
		{"VIRTUAL_ENV first", machine("#!/venv/bin/python3.11\n"), map[string]string{"VIRTUAL_ENV": "/ve", "CONDA_PREFIX": "/conda"}, "/ve", "$VIRTUAL_ENV"},
		{"CONDA_PREFIX", machine("#!/venv/bin/python3.11\n"), map[string]string{"CONDA_PREFIX": "/conda"}, "/conda", "$CONDA_PREFIX"},
		{"python of jupyter", machine("#!/venv/bin/python3.11\n# -*- coding: utf-8 -*-\nimport re\n"), nil, "/venv", "python of /venv/bin/jupyter (/venv/bin/python3.11)"},
		{"env shebang", machine("#!/usr/bin/env python3\n"), nil, "/usr", "python of /venv/bin/jupyter (/usr/bin/python3)"},
		{"shell launcher falls back to python3", machine("#!/bin/sh\nexec python \"$@\"\n"), nil, "/usr", "/usr/bin/python3"},
		{"no shebang", machine("import sys\n"), nil, "/usr", "/usr/bin/python3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.e
			e.getenv = func(k string) string { return tc.vars[k] }
			got, from, err := e.sysPrefix()
			if err != nil || got != tc.want || from != tc.from {
				t.Fatalf("got %q from %q (%v), want %q from %q", got, from, err, tc.want, tc.from)
			}
		})
	}
	if _, _, err := fakeEnv("linux", nil).sysPrefix(); !errors.Is(err, ErrNoPython) || !strings.Contains(err.Error(), "no jupyter or python3 on PATH") {
		t.Fatalf("no python: %v", err)
	}
	broken := machine("#!/venv/bin/python3.11\n")
	broken.output = func(string, ...string) ([]byte, error) { return []byte("not a path\n"), nil }
	if _, _, err := broken.sysPrefix(); !errors.Is(err, ErrBrokenVenv) || !strings.Contains(err.Error(), `"not a path"`) {
		t.Fatalf("bad python output: %v", err)
	}
}

// TestSysPrefixVirtualEnvironments: the venv a person means is found
// whether activated or first on PATH, and a broken one is an error naming
// how to make it anew, never a reason to install elsewhere.
func TestSysPrefixVirtualEnvironments(t *testing.T) {
	// python3 and jupyter in the folders of PATH, by name.
	machine := func(path string, bins map[string]string, files ...string) env {
		e := fakeEnv("linux", map[string]string{"PATH": path})
		e.stat = statOf(files...)
		e.lookPath = func(name string) (string, error) {
			for _, dir := range filepath.SplitList(path) {
				if bins[dir+"/"+name] != "" {
					return dir + "/" + name, nil
				}
			}
			return "", exec.ErrNotFound
		}
		e.readFile = func(p string) ([]byte, error) {
			if strings.HasSuffix(p, "/jupyter") {
				return []byte("#!" + filepath.Dir(p) + "/python3\n"), nil
			}
			return nil, fs.ErrNotExist
		}
		e.output = func(py string, args ...string) ([]byte, error) {
			switch bins[py] {
			case "runs":
				return []byte(filepath.Dir(filepath.Dir(py)) + "\n"), nil
			case "broken":
				return nil, errors.New("fork/exec " + py + ": no such file or directory")
			}
			return nil, exec.ErrNotFound
		}
		return e
	}
	venvFiles := []string{"/lab", "/lab/pyvenv.cfg", "/lab/bin/python", "/bare", "/bare/pyvenv.cfg", "/bare/bin/python"}
	cases := []struct {
		name       string
		e          env
		vars       map[string]string
		want, from string
		wantErr    string
	}{
		{"venv first on PATH without jupyter, system jupyter later",
			machine("/bare/bin:/usr/bin", map[string]string{"/bare/bin/python3": "runs", "/usr/bin/python3": "runs", "/usr/bin/jupyter": "x"}, venvFiles...),
			nil, "/bare", "the virtual environment first on PATH (/bare/bin/python3)", ""},
		{"venv with jupyter first on PATH",
			machine("/lab/bin:/usr/bin", map[string]string{"/lab/bin/python3": "runs", "/lab/bin/jupyter": "x", "/usr/bin/python3": "runs"}, venvFiles...),
			nil, "/lab", "python of /lab/bin/jupyter (/lab/bin/python3)", ""},
		{"system python first, venv's jupyter later",
			machine("/usr/bin:/lab/bin", map[string]string{"/usr/bin/python3": "runs", "/lab/bin/jupyter": "x", "/lab/bin/python3": "runs"}, venvFiles...),
			nil, "/lab", "python of /lab/bin/jupyter (/lab/bin/python3)", ""},
		{"activated venv that was removed",
			machine("/usr/bin", map[string]string{"/usr/bin/python3": "runs"}, venvFiles...),
			map[string]string{"VIRTUAL_ENV": "/gone"}, "", "", "$VIRTUAL_ENV is /gone, which does not exist"},
		{"activated venv whose python points nowhere",
			machine("/usr/bin", map[string]string{"/usr/bin/python3": "runs"}, "/old", "/old/pyvenv.cfg"),
			map[string]string{"VIRTUAL_ENV": "/old"}, "", "", "/old/bin/python is missing or points nowhere"},
		{"venv first on PATH whose python points nowhere",
			machine("/old/bin:/usr/bin", map[string]string{"/old/bin/python3": "broken", "/usr/bin/python3": "runs", "/usr/bin/jupyter": "x"}, "/old/pyvenv.cfg"),
			nil, "", "", "python3 -m venv --clear /old"},
		{"jupyter whose python does not run",
			machine("/usr/bin:/lab/bin", map[string]string{"/usr/bin/python3": "runs", "/lab/bin/jupyter": "x", "/lab/bin/python3": "broken"}, venvFiles...),
			nil, "", "", "/lab/bin/jupyter runs /lab/bin/python3, which does not run"},
		{"conda environment that was removed",
			machine("/usr/bin", map[string]string{"/usr/bin/python3": "runs"}),
			map[string]string{"CONDA_PREFIX": "/conda/envs/gone"}, "", "", "$CONDA_PREFIX is /conda/envs/gone, which does not exist"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.e
			base := e.getenv
			e.getenv = func(k string) string {
				if v, ok := tc.vars[k]; ok {
					return v
				}
				return base(k)
			}
			got, from, err := e.sysPrefix()
			if tc.wantErr != "" {
				if !errors.Is(err, ErrBrokenVenv) || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "make venv") && !strings.Contains(err.Error(), "conda") {
					t.Fatalf("error %v, want ErrBrokenVenv saying %q and how to make it anew", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want || from != tc.from {
				t.Fatalf("got %q from %q (%v), want %q from %q", got, from, err, tc.want, tc.from)
			}
		})
	}
}

func TestExecutableIsAbsoluteAndResolved(t *testing.T) {
	exe, err := Executable()
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(exe) {
		t.Fatalf("%s is not absolute", exe)
	}
	if resolved, _ := filepath.EvalSymlinks(exe); resolved != exe {
		t.Fatalf("%s resolves further to %s", exe, resolved)
	}
}

// TestLogosAreGenerated fails when the committed logos differ from what
// gen_logos.go draws now.
func TestLogosAreGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go run; skipped in -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH: cannot regenerate logos")
	}
	dir := t.TempDir()
	src, _ := os.ReadFile("gen_logos.go")
	os.WriteFile(filepath.Join(dir, "gen_logos.go"), src, 0o644)
	cmd := exec.Command(goBin, "run", "gen_logos.go")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run gen_logos.go: %v\n%s", err, out)
	}
	for _, name := range logos {
		want, _ := os.ReadFile(filepath.Join(dir, name))
		got, _ := files.ReadFile(name)
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from gen_logos.go output; run go generate ./install", name)
		}
	}
}

// TestJupyterFindsKernelspec installs into a private JUPYTER_DATA_DIR and
// asks jupyter itself to list kernelspecs.
func TestJupyterFindsKernelspec(t *testing.T) {
	list := jupyterKernelspecList(t)
	data := t.TempDir()
	exe, err := Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := Install(data, DefaultName, exe)
	if err != nil {
		t.Fatal(err)
	}
	out := list(data)
	var listing struct {
		Kernelspecs map[string]struct {
			ResourceDir string `json:"resource_dir"`
			Spec        Spec   `json:"spec"`
		} `json:"kernelspecs"`
	}
	if err := json.Unmarshal(out, &listing); err != nil {
		t.Fatalf("jupyter output: %v\n%s", err, out)
	}
	ks, ok := listing.Kernelspecs[DefaultName]
	if !ok {
		t.Fatalf("jupyter does not list %q:\n%s", DefaultName, out)
	}
	if ks.ResourceDir != dir || ks.Spec.DisplayName != "Go (commlab)" || ks.Spec.Argv[0] != exe || ks.Spec.InterruptMode != "message" {
		t.Fatalf("jupyter sees %+v", ks)
	}
	if _, err := Uninstall(data, DefaultName); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(list(data)), `"`+DefaultName+`"`) {
		t.Fatal("jupyter still lists the kernelspec after uninstall")
	}
}

// jupyterKernelspecList returns a function running `jupyter kernelspec list
// --json` with JUPYTER_DATA_DIR set, or skips when jupyter is absent. When
// the jupyter command lacks the kernelspec subcommand (jupyter-client's
// script not installed) it runs the same app as a module with jupyter's
// Python.
func jupyterKernelspecList(t *testing.T) func(dataDir string) []byte {
	t.Helper()
	jupyter, err := exec.LookPath("jupyter")
	if err != nil {
		t.Skip("jupyter not on PATH (Debian: apt-get install jupyter-client)")
	}
	argv := []string{jupyter, "kernelspec", "list", "--json"}
	if _, err := exec.LookPath("jupyter-kernelspec"); err != nil {
		py := osEnv().shebangPython(jupyter)
		if py == "" {
			t.Skipf("%s has no kernelspec subcommand and no python shebang", jupyter)
		}
		if err := exec.Command(py, "-c", "import jupyter_client.kernelspecapp").Run(); err != nil {
			t.Skipf("jupyter-kernelspec not on PATH and %s lacks jupyter_client: %v", py, err)
		}
		argv = []string{py, "-m", "jupyter_client.kernelspecapp", "list", "--json"}
		t.Logf("jupyter-kernelspec absent; running %q", argv)
	}
	return func(dataDir string) []byte {
		t.Helper()
		cmd := exec.Command(argv[0], argv[1:]...)
		// A private HOME too: jupyter also lists the user's own
		// ~/.local/share/jupyter, where `make lab` installs commlab.
		home := t.TempDir()
		cmd.Env = append(os.Environ(), "JUPYTER_DATA_DIR="+dataDir, "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
			"JUPYTER_PATH=", "PYDEVD_DISABLE_FILE_VALIDATION=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
		defer timer.Stop()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%q: %v\n%s", argv, err, stderr.String())
		}
		return out
	}
}
