package install

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WidgetsExtension is the classic Notebook extension that draws commlab's
// widgets: nbextensions/commlab-widgets/ under a Jupyter data directory,
// loaded as "commlab-widgets/extension".
const WidgetsExtension = "commlab-widgets"

// nbextension holds the extension's files: extension.js (the notebook
// glue, written by hand) and commlab-widgets.js and .css (the ipywidgets 8
// front end that `make widgets` bundles from npm in install/widgets).
//
//go:embed nbextension
var nbextension embed.FS

// WidgetsFiles are the names of the extension's files.
func WidgetsFiles() []string {
	entries, _ := nbextension.ReadDir("nbextension")
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names
}

// UserConfigDir is the per-user Jupyter config directory, as jupyter_core's
// jupyter_config_dir computes it: $JUPYTER_CONFIG_DIR, else ~/.jupyter.
func UserConfigDir() (string, error) { return osEnv().userConfigDir() }

func (e env) userConfigDir() (string, error) {
	d, home, err := e.envOrHome("JUPYTER_CONFIG_DIR", "user config dir")
	if d != "" || err != nil {
		return d, err
	}
	return filepath.Join(home, ".jupyter"), nil
}

// PrefixConfigDir is the Jupyter config directory under an installation
// prefix.
func PrefixConfigDir(prefix string) string { return filepath.Join(prefix, "etc", "jupyter") }

// widgetsConfig is the notebook.d file that enables the extension; the
// notebook merges every file of nbconfig/notebook.d into its config, so
// commlab never edits a notebook.json the user owns.
func widgetsConfig(configDir string) string {
	return filepath.Join(configDir, "nbconfig", "notebook.d", WidgetsExtension+".json")
}

// InstallWidgets writes the extension's files to
// nbextensions/commlab-widgets/ under dataDir (removing files an older
// version left there) and enables it for the classic Notebook in
// configDir/nbconfig/notebook.d/commlab-widgets.json. It returns the
// extension's directory and the config file.
func InstallWidgets(dataDir, configDir string) (dir, config string, err error) {
	dir = filepath.Join(dataDir, "nbextensions", WidgetsExtension)
	config = widgetsConfig(configDir)
	for _, d := range []string{dir, filepath.Dir(config)} {
		if err := mkdirReadable(d); err != nil {
			return dir, config, err
		}
	}
	keep := map[string]bool{}
	for _, name := range WidgetsFiles() {
		data, err := nbextension.ReadFile("nbextension/" + name)
		if err != nil {
			return dir, config, fmt.Errorf("install: read embedded %s: %w", name, err)
		}
		if err := writeAtomic(filepath.Join(dir, name), data); err != nil {
			return dir, config, err
		}
		keep[name] = true
	}
	old, err := os.ReadDir(dir)
	if err != nil {
		return dir, config, fmt.Errorf("install: %w", err)
	}
	for _, e := range old {
		if !keep[e.Name()] {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return dir, config, fmt.Errorf("install: %w", err)
			}
		}
	}
	enable, _ := json.MarshalIndent(map[string]any{"load_extensions": map[string]bool{WidgetsExtension + "/extension": true}}, "", "  ")
	return dir, config, writeAtomic(config, append(enable, '\n'))
}

// UninstallWidgets removes what InstallWidgets wrote; what is already gone
// is not an error.
func UninstallWidgets(dataDir, configDir string) error {
	errs := []error{os.RemoveAll(filepath.Join(dataDir, "nbextensions", WidgetsExtension))}
	if err := os.Remove(widgetsConfig(configDir)); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	return nil
}
