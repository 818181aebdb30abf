package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runInstallCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = dispatch(append([]string{"install"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestInstallCLIPrefixAndUninstall(t *testing.T) {
	prefix := t.TempDir()
	code, out, errs := runInstallCLI(t, "--prefix", prefix)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	dir := filepath.Join(prefix, "share", "jupyter", "kernels", "commlab")
	if !strings.Contains(out, dir) {
		t.Errorf("output %q does not name %s", out, dir)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Argv []string `json:"argv"`
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	if len(spec.Argv) != 3 || spec.Argv[0] != exe || spec.Argv[1] != "kernel" || spec.Argv[2] != "{connection_file}" {
		t.Fatalf("argv %q, want [%s kernel {connection_file}]", spec.Argv, exe)
	}
	// The widgets' front end for the classic Notebook comes with it.
	widgets := []string{filepath.Join(prefix, "share", "jupyter", "nbextensions", "commlab-widgets", "extension.js"),
		filepath.Join(prefix, "etc", "jupyter", "nbconfig", "notebook.d", "commlab-widgets.json")}
	for _, p := range widgets {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("install did not write the widgets' front end: %v", err)
		}
	}

	if code, out, errs := runInstallCLI(t, "--uninstall", "--prefix", prefix); code != 0 || !strings.Contains(out, "removed kernelspec commlab") {
		t.Fatalf("uninstall exit %d: %s %s", code, out, errs)
	}
	for _, p := range append(widgets, dir) {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("%s still there: %v", p, err)
		}
	}
	if code, _, errs := runInstallCLI(t, "--prefix", prefix, "--uninstall"); code != 1 || !strings.Contains(errs, "not installed") {
		t.Fatalf("second uninstall exit %d: %s", code, errs)
	}
}

func TestInstallCLIUserHonoursJupyterDataDir(t *testing.T) {
	data := t.TempDir()
	t.Setenv("JUPYTER_DATA_DIR", data)
	for _, args := range [][]string{nil, {"--user"}, {"--user", "--name", "commlab-dev"}} {
		code, _, errs := runInstallCLI(t, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errs)
		}
	}
	for _, name := range []string{"commlab", "commlab-dev"} {
		raw, err := os.ReadFile(filepath.Join(data, "kernels", name, "kernel.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw), `"Go (`+name+`)"`) {
			t.Errorf("%s display name in %s", name, raw)
		}
	}
}

// fakeVenv lays out what commlab install reads of a virtual environment:
// pyvenv.cfg, bin/python (a link to target) and package metadata folders.
func fakeVenv(t *testing.T, target string, infos ...string) string {
	t.Helper()
	venv := t.TempDir()
	if err := os.MkdirAll(filepath.Join(venv, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(venv, "pyvenv.cfg"), []byte("home = /usr/bin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(venv, "bin", "python")); err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		if err := os.MkdirAll(filepath.Join(venv, "lib", "python3.11", "site-packages", info), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return venv
}

func TestInstallCLISysPrefixUsesVirtualEnv(t *testing.T) {
	venv := fakeVenv(t, "/bin/sh", "jupyter_server-2.21.1.dist-info")
	t.Setenv("VIRTUAL_ENV", venv)
	code, out, errs := runInstallCLI(t, "--sys-prefix")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "$VIRTUAL_ENV") {
		t.Errorf("output %q does not say where the prefix came from", out)
	}
	if _, err := os.Stat(filepath.Join(venv, "share", "jupyter", "kernels", "commlab", "kernel.json")); err != nil {
		t.Fatal(err)
	}
}

// TestInstallCLISysPrefixBadEnvironments: a venv that is gone or broken
// fails with how to make it anew and writes nothing; one without any
// Jupyter front end installs with a warning naming what to install.
func TestInstallCLISysPrefixBadEnvironments(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "venv")
	t.Setenv("VIRTUAL_ENV", gone)
	code, _, errs := runInstallCLI(t, "--sys-prefix")
	if code != 1 || !strings.Contains(errs, "$VIRTUAL_ENV is "+gone+", which does not exist") || !strings.Contains(errs, "make venv") {
		t.Fatalf("removed venv: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Fatalf("a removed venv was made again by install: %v", err)
	}

	broken := fakeVenv(t, filepath.Join(t.TempDir(), "python3.9-removed"))
	t.Setenv("VIRTUAL_ENV", broken)
	code, _, errs = runInstallCLI(t, "--sys-prefix")
	if code != 1 || !strings.Contains(errs, filepath.Join(broken, "bin", "python")+" is missing or points nowhere") || !strings.Contains(errs, "python3 -m venv --clear "+broken) {
		t.Fatalf("broken venv: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(broken, "share")); !os.IsNotExist(err) {
		t.Fatalf("install wrote into a broken venv: %v", err)
	}

	bare := fakeVenv(t, "/bin/sh")
	t.Setenv("VIRTUAL_ENV", bare)
	code, _, errs = runInstallCLI(t, "--sys-prefix")
	if code != 0 || !strings.Contains(errs, "warning: no Jupyter front end in "+bare) || !strings.Contains(errs, filepath.Join(bare, "bin", "python")+" -m pip install -r ci/requirements.txt") {
		t.Fatalf("venv without Jupyter: exit %d, %s", code, errs)
	}
}

func TestInstallCLIUsageErrors(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"two scopes", []string{"--user", "--prefix", "/tmp/x"}, "choose one of"},
		{"sys-prefix and prefix", []string{"--sys-prefix", "--prefix", "/tmp/x"}, "choose one of"},
		{"positional", []string{"somewhere"}, `unexpected argument "somewhere"`},
		{"unknown flag", []string{"--global"}, "flag provided but not defined"},
		{"prefix without dir", []string{"--prefix"}, "flag needs an argument"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runInstallCLI(t, tc.args...)
			if code != 2 || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, errs, tc.want)
			}
		})
	}
	if code, _, errs := runInstallCLI(t, "--prefix", t.TempDir(), "--name", "../x"); code != 1 || !strings.Contains(errs, "bad kernelspec name") {
		t.Fatalf("bad name: exit %d, %s", code, errs)
	}
}
