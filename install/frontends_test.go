package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fakePrefix lays out a Python environment's package metadata (folder
// names only, as pip and Debian leave them) under a temporary folder.
func fakePrefix(t *testing.T, infos ...string) string {
	t.Helper()
	prefix := t.TempDir()
	for _, info := range infos {
		if err := os.MkdirAll(filepath.Join(prefix, info), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return prefix
}

// fakeLabExtension puts a lab extension's package.json under a data dir.
func fakeLabExtension(t *testing.T, dataDir, name, version string) {
	t.Helper()
	dir := filepath.Join(dataDir, "labextensions", filepath.FromSlash(name))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name": "`+name+`", "version": "`+version+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckFrontEnds(t *testing.T) {
	const site = "lib/python3.11/site-packages/"
	cases := []struct {
		name       string
		infos      []string
		manager    string // version in the prefix's data dir, "" for none
		userMgr    string // version in a later data dir (the user's)
		noFrontEnd bool
		want       []string // substrings, one per warning; none when empty
	}{
		{"JupyterLab with jupyterlab_widgets", []string{site + "jupyterlab-4.6.6.dist-info", site + "jupyterlab_widgets-3.0.17.dist-info"}, "5.0.16", "", true, nil},
		{"JupyterLab without jupyterlab_widgets", []string{site + "jupyterlab-4.6.6.dist-info"}, "", "", true,
			[]string{"JupyterLab 4.6.6 in PREFIX has no jupyterlab_widgets"}},
		{"Notebook 7 without jupyterlab_widgets", []string{site + "notebook-7.6.5.dist-info"}, "", "", false,
			[]string{"Notebook 7.6.5 in PREFIX has no jupyterlab_widgets"}},
		{"ipywidgets 7's manager", []string{site + "jupyterlab-3.6.8.dist-info", site + "notebook-7.0.0.dist-info"}, "3.1.9", "", true,
			[]string{"JupyterLab 3.6.8 and Notebook 7.0.0 uses @jupyter-widgets/jupyterlab-manager 3.1.9"}},
		{"manager in the user's data dir", []string{site + "jupyterlab-4.6.6.dist-info"}, "", "5.0.16", true, nil},
		{"Debian's classic Notebook", []string{"lib/python3/dist-packages/notebook-6.4.12.egg-info"}, "", "", true, nil},
		{"jupyter_server alone", []string{site + "jupyter_server-2.21.1.dist-info"}, "", "", true, nil},
		{"no front end, sys-prefix", nil, "", "", true, []string{"no Jupyter front end in PREFIX"}},
		{"no front end, --prefix", nil, "", "", false, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prefix := fakePrefix(t, tc.infos...)
			user := t.TempDir()
			if tc.manager != "" {
				fakeLabExtension(t, PrefixDataDir(prefix), widgetsManager, tc.manager)
			}
			if tc.userMgr != "" {
				fakeLabExtension(t, user, widgetsManager, tc.userMgr)
			}
			got := CheckFrontEnds(prefix, []string{PrefixDataDir(prefix), user}, tc.noFrontEnd)
			if len(got) != len(tc.want) {
				t.Fatalf("warnings %q, want %d", got, len(tc.want))
			}
			for i, w := range got {
				want := strings.ReplaceAll(tc.want[i], "PREFIX", prefix)
				if !strings.Contains(w.Problem, want) {
					t.Errorf("warning %q, want it to say %q", w.Problem, want)
				}
				// The fix names the environment's own pip and the tested pin.
				pip := filepath.Join(prefix, "bin", "python") + " -m pip install "
				if !strings.HasPrefix(w.Fix, pip) || !strings.Contains(w.Fix, TestedWidgets) && !strings.Contains(w.Fix, "ci/requirements.txt") {
					t.Errorf("fix %q does not name %s and what to install", w.Fix, pip)
				}
			}
		})
	}
}

func TestDataPath(t *testing.T) {
	e := fakeEnv("linux", map[string]string{"JUPYTER_PATH": "/extra/a" + string(filepath.ListSeparator) + "/extra/b", "JUPYTER_DATA_DIR": "/data/user"})
	got := strings.Join(e.dataPath("/venv"), " ")
	want := "/extra/a /extra/b /venv/share/jupyter /data/user /usr/local/share/jupyter /usr/share/jupyter"
	if got != want {
		t.Fatalf("data path %s, want %s", got, want)
	}
}

func TestSharedButNotRunnable(t *testing.T) {
	// t.TempDir and its parent are the owner's alone: open them to others.
	root := t.TempDir()
	for _, d := range []string{filepath.Dir(root), root} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mk := func(path string, mode os.FileMode, dir bool) string {
		t.Helper()
		if dir {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// The test's own parents must let others through for the cases to mean
	// anything (a temporary folder under a private home would not).
	if othersBlocked(root, 0o001) != "" {
		t.Skipf("%s is not reachable by other users", root)
	}
	shared := mk(filepath.Join(root, "shared"), 0o755, true)
	spec := mk(filepath.Join(shared, "kernel.json"), 0o644, false)
	private := mk(filepath.Join(root, "private"), 0o700, true)
	hidden := mk(filepath.Join(private, "kernel.json"), 0o644, false)
	open := mk(filepath.Join(root, "bin"), 0o755, true)
	runnable := mk(filepath.Join(open, "commlab"), 0o755, false)
	home := mk(filepath.Join(root, "home"), 0o700, true)
	mk(filepath.Join(home, "go"), 0o755, true)
	inHome := mk(filepath.Join(home, "go", "commlab"), 0o755, false)
	ownerOnly := mk(filepath.Join(open, "commlab-owner"), 0o700, false)
	cases := []struct {
		name, spec, exe, want string
	}{
		{"shared spec, binary everyone can run", spec, runnable, ""},
		{"shared spec, binary in a private home", spec, inHome, home},
		{"shared spec, binary only its owner may run", spec, ownerOnly, ownerOnly},
		{"private spec: a one-person install", hidden, inHome, ""},
	}
	for _, tc := range cases {
		if got := SharedButNotRunnable(tc.spec, tc.exe); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestInstallReadableWhateverTheUmask: a kernelspec in a shared
// environment is read by every user's Jupyter, even when the installer's
// umask is 077 (root's on some systems).
func TestInstallReadableWhateverTheUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	data := filepath.Join(t.TempDir(), "share", "jupyter")
	dir, err := Install(data, DefaultName, "/usr/local/bin/commlab")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{data, filepath.Dir(dir), dir} {
		info, err := os.Stat(d)
		if err != nil || info.Mode().Perm() != 0o755 {
			t.Errorf("%s: mode %v (%v), want 0755", d, info.Mode().Perm(), err)
		}
	}
	info, err := os.Stat(filepath.Join(dir, "kernel.json"))
	if err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("kernel.json: %v (%v), want 0644", info.Mode().Perm(), err)
	}
}

// TestInstallNotWritable: a kernelspec folder the user may not write is
// ErrNotWritable naming the folder (as root nothing is unwritable; the
// test in ci/ runs commlab as another user for that).
func TestInstallNotWritable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write anywhere; ci.TestInstallAsAnotherUser covers this as user nobody")
	}
	data := t.TempDir()
	if err := os.Chmod(data, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(data, 0o755)
	_, err := Install(data, DefaultName, "/usr/local/bin/commlab")
	if !errors.Is(err, ErrNotWritable) || !strings.Contains(err.Error(), data) {
		t.Fatalf("error %v, want ErrNotWritable naming %s", err, data)
	}
	if _, _, err := InstallWidgets(data, data); !errors.Is(err, ErrNotWritable) {
		t.Fatalf("widgets: error %v, want ErrNotWritable", err)
	}
}
