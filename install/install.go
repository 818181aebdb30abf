package install

//go:generate go run gen_logos.go

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
)

// DefaultName is the kernelspec name notebooks record in their metadata.
const DefaultName = "commlab"

//go:embed kernel.json logo-32x32.png logo-64x64.png logo-svg.svg
var files embed.FS

// logos are the files copied beside kernel.json, named as Jupyter expects.
var logos = []string{"logo-32x32.png", "logo-64x64.png", "logo-svg.svg"}

var (
	// ErrBadName reports a kernelspec name Jupyter would not accept.
	ErrBadName = errors.New("install: bad kernelspec name")
	// ErrNotInstalled reports an uninstall of a kernelspec that is not there.
	ErrNotInstalled = errors.New("install: kernelspec not installed")
	// ErrNoPython reports that no Python prefix could be found for --sys-prefix.
	ErrNoPython = errors.New("install: no python found for sys-prefix")
)

// validName is jupyter_client's rule for kernel names.
var validName = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)

// Spec is the content of kernel.json.
type Spec struct {
	Argv          []string       `json:"argv"`
	DisplayName   string         `json:"display_name"`
	Language      string         `json:"language"`
	InterruptMode string         `json:"interrupt_mode"`
	Metadata      map[string]any `json:"metadata,omitempty"`
}

// KernelSpec fills the embedded kernel.json template: argv runs executable
// with "kernel {connection_file}", and the display name shows name.
func KernelSpec(executable, name string) (Spec, error) {
	var s Spec
	tmpl, err := files.ReadFile("kernel.json")
	if err != nil {
		return s, fmt.Errorf("install: read template: %w", err)
	}
	if err := json.Unmarshal(tmpl, &s); err != nil {
		return s, fmt.Errorf("install: parse template: %w", err)
	}
	for i, a := range s.Argv {
		s.Argv[i] = strings.ReplaceAll(a, "{executable}", executable)
	}
	s.DisplayName = strings.ReplaceAll(s.DisplayName, "{name}", name)
	return s, nil
}

// Executable returns the absolute path of the running program with symlinks
// resolved, so the kernelspec keeps working when a symlink moves.
func Executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("install: find executable: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", fmt.Errorf("install: resolve executable: %w", err)
	}
	return filepath.Abs(exe)
}

// Install writes kernels/<name>/ under dataDir (a Jupyter data directory
// such as ~/.local/share/jupyter) with kernel.json running executable and
// the logos. Each file is written atomically. It returns the kernel's
// directory.
func Install(dataDir, name, executable string) (string, error) {
	if !validName.MatchString(name) {
		return "", fmt.Errorf("%w: %q (letters, digits, '.', '_' and '-' only)", ErrBadName, name)
	}
	if !filepath.IsAbs(executable) {
		return "", fmt.Errorf("install: executable %q is not an absolute path", executable)
	}
	spec, err := KernelSpec(executable, name)
	if err != nil {
		return "", err
	}
	specJSON, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return "", fmt.Errorf("install: encode kernel.json: %w", err)
	}
	dir := filepath.Join(dataDir, "kernels", name)
	if err := mkdirReadable(dir); err != nil {
		return "", err
	}
	if err := writeAtomic(filepath.Join(dir, "kernel.json"), append(specJSON, '\n')); err != nil {
		return "", err
	}
	for _, logo := range logos {
		data, err := files.ReadFile(logo)
		if err != nil {
			return "", fmt.Errorf("install: read embedded %s: %w", logo, err)
		}
		if err := writeAtomic(filepath.Join(dir, logo), data); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// Uninstall removes kernels/<name>/ under dataDir and returns the directory
// removed. It refuses a directory without a kernel.json.
func Uninstall(dataDir, name string) (string, error) {
	if !validName.MatchString(name) {
		return "", fmt.Errorf("%w: %q", ErrBadName, name)
	}
	dir := filepath.Join(dataDir, "kernels", name)
	if _, err := os.Stat(filepath.Join(dir, "kernel.json")); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return dir, fmt.Errorf("%w: no %s", ErrNotInstalled, filepath.Join(dir, "kernel.json"))
		}
		return dir, fmt.Errorf("install: %w", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return dir, fmt.Errorf("install: %w", err)
	}
	return dir, nil
}

// mkdirReadable makes dir and its missing parents readable by everyone
// (0755 whatever the umask): on a shared environment, every user's
// Jupyter must read the kernelspec.
func mkdirReadable(dir string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		missing = append(missing, d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return notWritable(dir, err)
	}
	for _, d := range missing {
		if err := os.Chmod(d, 0o755); err != nil {
			return notWritable(d, err)
		}
	}
	return nil
}

// writeAtomic writes data to a temporary file beside path and renames it
// over path, so a reader sees the old file or the new one, never a part.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return notWritable(filepath.Dir(path), err)
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp, 0o644)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("install: write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return notWritable(path, err)
	}
	return nil
}

// PrefixDataDir is the Jupyter data directory under an installation prefix.
func PrefixDataDir(prefix string) string {
	return filepath.Join(prefix, "share", "jupyter")
}

// env is what the directory rules read from the outside world; tests
// replace it.
type env struct {
	goos     string
	getenv   func(string) string
	home     func() (string, error)
	lookPath func(string) (string, error)
	readFile func(string) ([]byte, error)
	stat     func(string) (fs.FileInfo, error)
	output   func(name string, args ...string) ([]byte, error)
}

func osEnv() env {
	return env{
		goos:     runtime.GOOS,
		getenv:   os.Getenv,
		home:     os.UserHomeDir,
		lookPath: exec.LookPath,
		readFile: os.ReadFile,
		stat:     os.Stat,
		output: func(name string, args ...string) ([]byte, error) {
			return exec.Command(name, args...).Output()
		},
	}
}

// UserDataDir is the per-user Jupyter data directory, as jupyter_core's
// jupyter_data_dir computes it.
func UserDataDir() (string, error) { return osEnv().userDataDir() }

func (e env) userDataDir() (string, error) {
	d, home, err := e.envOrHome("JUPYTER_DATA_DIR", "user data dir")
	if d != "" || err != nil {
		return d, err
	}
	switch e.goos {
	case "darwin", "ios":
		return filepath.Join(home, "Library", "Jupyter"), nil
	case "windows":
		if appdata := e.getenv("APPDATA"); appdata != "" {
			return filepath.Join(appdata, "jupyter"), nil
		}
		config := e.getenv("JUPYTER_CONFIG_DIR")
		if config == "" {
			config = filepath.Join(home, ".jupyter")
		}
		return filepath.Join(config, "data"), nil
	}
	xdg := e.getenv("XDG_DATA_HOME")
	if xdg == "" {
		xdg = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(xdg, "jupyter"), nil
}

// envOrHome returns $variable as dir when it is set, else the home
// directory the default is under; what names the directory in an error.
func (e env) envOrHome(variable, what string) (dir, home string, err error) {
	if d := e.getenv(variable); d != "" {
		return d, "", nil
	}
	if home, err = e.home(); err != nil {
		return "", "", fmt.Errorf("install: %s: %w", what, err)
	}
	return "", home, nil
}

// SysPrefix is sys.prefix of the Python environment that runs jupyter
// (the rules are in the package doc); source says which rule found it.
// The kernelspec goes under PrefixDataDir of it, the widgets' enabling
// file under PrefixConfigDir.
func SysPrefix() (prefix, source string, err error) { return osEnv().sysPrefix() }

const printPrefix = "import sys; print(sys.prefix)"

func (e env) sysPrefix() (prefix, source string, err error) {
	if p := e.getenv("VIRTUAL_ENV"); p != "" {
		if err := e.checkVirtualEnv(p); err != nil {
			return "", "", err
		}
		return p, "$VIRTUAL_ENV", nil
	}
	if p := e.getenv("CONDA_PREFIX"); p != "" {
		if _, err := e.stat(p); err != nil {
			return "", "", fmt.Errorf("%w: $CONDA_PREFIX is %s, which does not exist: conda activate an environment that does, or conda deactivate", ErrBrokenVenv, p)
		}
		return p, "$CONDA_PREFIX", nil
	}
	var tried []string
	// A virtual environment whose bin comes first on PATH is the one meant,
	// even when it lacks jupyter and another jupyter is further on.
	if py, err := e.lookPath("python3"); err == nil {
		env := filepath.Dir(filepath.Dir(py))
		jupyter, jerr := e.lookPath("jupyter")
		if e.isVenv(env) && (jerr != nil || e.pathIndex(filepath.Dir(py)) < e.pathIndex(filepath.Dir(jupyter))) {
			if err := e.checkVenvPython(env); err != nil {
				return "", "", err
			}
			p, err := e.pythonPrefix(py)
			if err != nil {
				return "", "", fmt.Errorf("%w: %s does not run (%v): %s", ErrBrokenVenv, py, err, remakeVenv(env))
			}
			return p, "the virtual environment first on PATH (" + py + ")", nil
		}
	}
	if jupyter, err := e.lookPath("jupyter"); err == nil {
		if py := e.shebangPython(jupyter); py != "" {
			p, err := e.pythonPrefix(py)
			if err == nil {
				return p, "python of " + jupyter + " (" + py + ")", nil
			}
			// Not another Python instead: the kernelspec belongs where this
			// jupyter looks, and its environment is broken.
			env := filepath.Dir(filepath.Dir(py))
			return "", "", fmt.Errorf("%w: %s runs %s, which does not run (%v): %s", ErrBrokenVenv, jupyter, py, err, remakeVenv(env))
		}
	}
	if py, err := e.lookPath("python3"); err == nil {
		p, err := e.pythonPrefix(py)
		if err == nil {
			return p, py, nil
		}
		if env := filepath.Dir(filepath.Dir(py)); e.isVenv(env) {
			return "", "", fmt.Errorf("%w: %s does not run (%v): %s", ErrBrokenVenv, py, err, remakeVenv(env))
		}
		tried = append(tried, err.Error())
	}
	if len(tried) == 0 {
		tried = append(tried, "no jupyter or python3 on PATH")
	}
	return "", "", fmt.Errorf("%w: set VIRTUAL_ENV or use --prefix (%s)", ErrNoPython, strings.Join(tried, "; "))
}

// pathIndex is the position of dir in $PATH, or len(PATH) when absent.
func (e env) pathIndex(dir string) int {
	list := filepath.SplitList(e.getenv("PATH"))
	for i, d := range list {
		if filepath.Clean(d) == filepath.Clean(dir) {
			return i
		}
	}
	return len(list)
}

// isVenv reports whether dir is a virtual environment (venv and
// virtualenv both write pyvenv.cfg).
func (e env) isVenv(dir string) bool {
	_, err := e.stat(filepath.Join(dir, "pyvenv.cfg"))
	return err == nil
}

// shebangPython returns the Python interpreter on script's #! line, or "".
func (e env) shebangPython(script string) string {
	data, err := e.readFile(script)
	if err != nil || !bytes.HasPrefix(data, []byte("#!")) {
		return ""
	}
	line, _, _ := bytes.Cut(data[2:], []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return ""
	}
	py := fields[0]
	if filepath.Base(py) == "env" {
		// #!/usr/bin/env [-S] python3
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") {
				if p, err := e.lookPath(f); err == nil {
					py = p
				}
				break
			}
		}
	}
	if !strings.HasPrefix(filepath.Base(py), "python") {
		return ""
	}
	return py
}

func (e env) pythonPrefix(python string) (string, error) {
	out, err := e.output(python, "-c", printPrefix)
	if err != nil {
		return "", fmt.Errorf("%s: %w", python, err)
	}
	p := strings.TrimSpace(string(out))
	if p == "" || !filepath.IsAbs(p) {
		return "", fmt.Errorf("%s printed sys.prefix %q", python, p)
	}
	return p, nil
}
