package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestInstallWidgetsWritesExtensionAndEnablesIt(t *testing.T) {
	data, config := t.TempDir(), t.TempDir()
	// A file an older version left behind is removed.
	stale := filepath.Join(data, "nbextensions", WidgetsExtension, "old-bundle.js")
	if err := os.MkdirAll(filepath.Dir(stale), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(stale, []byte("old"), 0o644)
	dir, cfg, err := InstallWidgets(data, config)
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(data, "nbextensions", "commlab-widgets") || cfg != filepath.Join(config, "nbconfig", "notebook.d", "commlab-widgets.json") {
		t.Fatalf("installed in %s, enabled by %s", dir, cfg)
	}
	want := []string{"commlab-widgets.css", "commlab-widgets.js", "extension.js"}
	if got := WidgetsFiles(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("embedded files %v, want %v", got, want)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("installed files %v, want %v", names, want)
	}
	for _, name := range want {
		got, _ := os.ReadFile(filepath.Join(dir, name))
		embedded, _ := nbextension.ReadFile("nbextension/" + name)
		if len(got) == 0 || !bytes.Equal(got, embedded) {
			t.Fatalf("%s: %d bytes installed, %d embedded", name, len(got), len(embedded))
		}
	}
	raw, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var enable struct {
		LoadExtensions map[string]bool `json:"load_extensions"`
	}
	if err := json.Unmarshal(raw, &enable); err != nil || !enable.LoadExtensions["commlab-widgets/extension"] {
		t.Fatalf("config %s: %v", raw, err)
	}
	// Installing again changes nothing; uninstalling removes both, twice.
	if _, _, err := InstallWidgets(data, config); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := UninstallWidgets(data, config); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{dir, cfg} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s still there: %v", p, err)
		}
	}
	// A data dir that cannot be created is an error naming the package.
	file := filepath.Join(data, "file")
	os.WriteFile(file, nil, 0o644)
	if _, _, err := InstallWidgets(file, config); err == nil || !strings.HasPrefix(err.Error(), "install: ") {
		t.Fatalf("install under a file: %v", err)
	}
}

// The extension is the notebook glue, and loads the bundle beside it.
func TestWidgetsExtensionGlue(t *testing.T) {
	src, _ := nbextension.ReadFile("nbextension/extension.js")
	for _, want := range []string{
		"load_ipython_extension",
		"require.toUrl('./commlab-widgets.js')",
		"require.toUrl('./commlab-widgets.css')",
		"register_target('jupyter.widget'",
		"application/vnd.jupyter.widget-view+json",
		// the notebook calls .addClass on what a renderer returns
		"return div;",
		"$('<div/>')",
	} {
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("extension.js lacks %q", want)
		}
	}
	if regexp.MustCompile(`custom/`).Match(src) {
		t.Error("extension.js still loads from the notebook's custom directory")
	}
}

// The front end is embedded in the binary: keep it small. The bundle is
// minified and leaves out Font Awesome, which the notebook has.
func TestWidgetsBundleSize(t *testing.T) {
	total := 0
	for _, name := range WidgetsFiles() {
		b, _ := nbextension.ReadFile("nbextension/" + name)
		total += len(b)
		if name == "commlab-widgets.js" && !bytes.Contains(b, []byte("HTMLManager")) {
			t.Error("commlab-widgets.js does not export HTMLManager")
		}
	}
	if total > 2<<20 {
		t.Fatalf("the embedded front end is %d bytes, over 2 MiB", total)
	}
	t.Logf("embedded front end: %d bytes", total)
}

func TestUserConfigDir(t *testing.T) {
	cases := []struct {
		name string
		vars map[string]string
		want string
	}{
		{"default", nil, "/home/ada/.jupyter"},
		{"JUPYTER_CONFIG_DIR wins", map[string]string{"JUPYTER_CONFIG_DIR": "/cfg"}, "/cfg"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := fakeEnv("linux", tc.vars).userConfigDir(); err != nil || got != tc.want {
				t.Fatalf("got %q %v, want %q", got, err, tc.want)
			}
		})
	}
	if got := PrefixConfigDir("/opt/venv"); got != filepath.Join("/opt/venv", "etc", "jupyter") {
		t.Fatalf("prefix config dir %s", got)
	}
	e := fakeEnv("linux", nil)
	e.home = func() (string, error) { return "", errors.New("$HOME is not defined") }
	if _, err := e.userConfigDir(); err == nil || !strings.HasPrefix(err.Error(), "install: ") {
		t.Fatalf("no home: %v", err)
	}
}

// The classic Notebook's own tool sees the extension enabled and its
// files in place.
func TestJupyterFindsWidgetsExtension(t *testing.T) {
	nbext, err := exec.LookPath("jupyter-nbextension")
	if err != nil {
		if os.Getenv("COMMLAB_REQUIRE_JUPYTER") != "" {
			t.Fatal("jupyter-nbextension not on PATH (apt-get install jupyter-notebook)")
		}
		t.Skip("jupyter-nbextension not on PATH (Debian: apt-get install jupyter-notebook)")
	}
	data, config, home := t.TempDir(), t.TempDir(), t.TempDir()
	if _, _, err := InstallWidgets(data, config); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nbext, "list")
	cmd.Env = append(os.Environ(), "JUPYTER_DATA_DIR="+data, "JUPYTER_CONFIG_DIR="+config, "HOME="+home,
		"JUPYTER_PATH=", "PYDEVD_DISABLE_FILE_VALIDATION=1")
	timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("jupyter nbextension list: %v\n%s", err, out)
	}
	// "commlab-widgets/extension  enabled", then "- Validating: OK".
	plain := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAll(out, nil) // colours
	ok := regexp.MustCompile(`commlab-widgets/extension\s+enabled\s+- Validating: OK`)
	if !ok.Match(plain) {
		t.Fatalf("jupyter nbextension list does not show the extension enabled and valid:\n%s", out)
	}
}
