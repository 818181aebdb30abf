package ci

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/commlab/commlab/install"
)

// nobody is the uid and gid of Debian's user nobody: another user, for a
// test running as root.
const nobody = 65534

// TestInstallAsAnotherUser is a hub's environment seen by its users: the
// administrator registers commlab with --sys-prefix; a user who runs the
// same command cannot write there and is told whom to ask or to use
// --user; and an administrator whose commlab sits in a private folder is
// warned that the users' kernels would not start.
func TestInstallAsAnotherUser(t *testing.T) {
	dir := t.TempDir()
	// t.TempDir and its parent are the owner's alone: open them, as a hub's
	// shared folders are.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "bin", "commlab")
	if out, err := exec.Command("go", "build", "-o", bin, module).CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// The hub's environment: what commlab install reads of a venv.
	hubEnv := filepath.Join(dir, "hub-env")
	for _, d := range []string{filepath.Join(hubEnv, "bin"), filepath.Join(hubEnv, "lib", "python3.11", "site-packages", "jupyterlab-4.6.6.dist-info")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(hubEnv, "pyvenv.cfg"), []byte("home = /usr/bin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/bin/sh", filepath.Join(hubEnv, "bin", "python")); err != nil {
		t.Fatal(err)
	}
	run := func(exe string, asNobody bool) (code int, stdout, stderr string) {
		t.Helper()
		cmd := exec.Command(exe, "install", "--sys-prefix")
		cmd.Env = append(os.Environ(), "VIRTUAL_ENV="+hubEnv, "HOME="+dir, "JUPYTER_DATA_DIR="+filepath.Join(dir, "user-data"), "JUPYTER_PATH=")
		if asNobody {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		}
		var out, errs strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errs
		err := cmd.Run()
		if exit, ok := err.(*exec.ExitError); ok {
			return exit.ExitCode(), out.String(), errs.String()
		} else if err != nil {
			t.Fatalf("run %s: %v", exe, err)
		}
		return 0, out.String(), errs.String()
	}

	// The administrator installs.
	code, out, errs := run(bin, false)
	if code != 0 || !strings.Contains(out, "installed kernelspec commlab in "+filepath.Join(hubEnv, "share", "jupyter", "kernels", "commlab")) {
		t.Fatalf("administrator's install: exit %d\n%s%s", code, out, errs)
	}
	// JupyterLab is there without jupyterlab_widgets: said, with the fix.
	if !strings.Contains(errs, "has no jupyterlab_widgets") || !strings.Contains(errs, install.TestedWidgets) {
		t.Errorf("no warning about the missing widgets' front end:\n%s", errs)
	}
	if strings.Contains(errs, "cannot run") {
		t.Errorf("warned about a binary everyone can run:\n%s", errs)
	}

	// A user runs the same command.
	asNobody := os.Geteuid() == 0
	if !asNobody {
		kernels := filepath.Join(hubEnv, "share", "jupyter", "kernels", "commlab")
		for _, d := range []string{kernels, filepath.Dir(kernels)} {
			if err := os.Chmod(d, 0o555); err != nil {
				t.Fatal(err)
			}
			defer os.Chmod(d, 0o755)
		}
	}
	code, out, errs = run(bin, asNobody)
	if code != 1 || !strings.Contains(errs, "cannot write the kernelspec") || !strings.Contains(errs, "permission denied") ||
		!strings.Contains(errs, "PATH="+filepath.Join(hubEnv, "bin")+":$PATH commlab install --sys-prefix") || !strings.Contains(errs, "commlab install --user") {
		t.Fatalf("a user's install into the hub's environment: exit %d, want 1 naming the owner's command and --user\n%s%s", code, out, errs)
	}
	t.Logf("what a user is told:\n%s", errs)

	// The administrator's commlab in a private folder (root's home).
	private := filepath.Join(dir, "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	hidden := filepath.Join(private, "commlab")
	if err := os.Link(bin, hidden); err != nil {
		t.Fatal(err)
	}
	if !asNobody {
		return // the kernelspec folder was made read-only above
	}
	code, _, errs = run(hidden, false)
	if code != 0 || !strings.Contains(errs, "other users can read this kernelspec but cannot run "+hidden) || !strings.Contains(errs, private+" is drwx------") ||
		!strings.Contains(errs, "install -m 755 "+hidden+" /usr/local/bin/commlab") {
		t.Fatalf("install of a commlab only its owner can reach: exit %d, want a warning naming %s\n%s", code, private, errs)
	}

	// The environment made from a Python under root's home (pyenv's): no
	// user's server would start.
	privatePython := filepath.Join(private, "python3.11")
	if err := os.WriteFile(privatePython, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(hubEnv, "bin", "python")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(privatePython, link); err != nil {
		t.Fatal(err)
	}
	code, _, errs = run(bin, false)
	if code != 0 || !strings.Contains(errs, "cannot run this environment's python "+privatePython) || !strings.Contains(errs, "/usr/bin/python3 -m venv --clear "+hubEnv) {
		t.Fatalf("install into an environment whose python only its owner can run: exit %d, want a warning naming %s\n%s", code, privatePython, errs)
	}
}

// TestRequirementsPinTheTestedWidgets: the widgets' front end commlab
// install names in its advice is the one ci/requirements.txt pins.
func TestRequirementsPinTheTestedWidgets(t *testing.T) {
	f, err := os.Open("requirements.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(strings.TrimSpace(sc.Text()), "jupyterlab_widgets==") {
			if got := strings.TrimSpace(sc.Text()); got != install.TestedWidgets {
				t.Fatalf("ci/requirements.txt pins %s, install.TestedWidgets is %s", got, install.TestedWidgets)
			}
			return
		}
	}
	t.Fatalf("ci/requirements.txt pins no jupyterlab_widgets (%v)", sc.Err())
}

// TestCheckVenv: what the front-end tests say when the venv is missing,
// broken or incomplete, each with the fix.
func TestCheckVenv(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to stand in for a venv's python")
	}
	venv := func(target string) string {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, "bin", "python")); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	cases := []struct {
		name, dir string
		modules   []string
		want      string
	}{
		{"missing", filepath.Join(t.TempDir(), "none"), nil, "no virtual environment at"},
		{"python points nowhere", venv(filepath.Join(t.TempDir(), "gone", "python3")), nil, "is broken"},
		{"a module missing", venv(python), []string{"json", "commlab_no_such_module"}, "lacks commlab_no_such_module"},
		{"whole", venv(python), []string{"json"}, ""},
	}
	for _, tc := range cases {
		got := checkVenv(tc.dir, tc.modules...)
		if tc.want == "" && got != "" || tc.want != "" && (!strings.Contains(got, tc.want) || !strings.Contains(got, "make venv")) {
			t.Errorf("%s: %q, want %q and the fix", tc.name, got, tc.want)
		}
	}
}
