package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/commlab/commlab/kernel/session"
	"github.com/commlab/commlab/kernel/symbols"
	"github.com/commlab/commlab/lab/literate"
	"github.com/commlab/commlab/lab/notebook"
)

// ErrOverSource: the executed copy would replace the notebook it came from.
var ErrOverSource = errors.New("lab: output would overwrite its source")

// Load reads a notebook (.ipynb) or a chapter (.md, jupytext markdown).
func Load(path string) (*notebook.Notebook, error) {
	if strings.EqualFold(filepath.Ext(path), ".md") {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("lab: %w", err)
		}
		nb, err := literate.Parse(src)
		if err != nil {
			return nil, fmt.Errorf("lab: %s: %w", path, err)
		}
		return nb, nil
	}
	return notebook.ReadFile(path)
}

// OutputPath is where the executed copy of src goes: DIR/NAME.ipynb.
func OutputPath(src, outDir string) (string, error) {
	base := strings.TrimSuffix(filepath.Base(src), filepath.Ext(src)) + ".ipynb"
	out, err := filepath.Abs(filepath.Join(outDir, base))
	if err != nil {
		return "", fmt.Errorf("lab: %w", err)
	}
	if abs, err := filepath.Abs(src); err == nil && abs == out {
		return "", fmt.Errorf("%w: %s (choose another --out)", ErrOverSource, src)
	}
	return out, nil
}

// FileOptions control RunFile.
type FileOptions struct {
	Options
	// OutDir receives the executed copy (created if missing).
	OutDir string
	// Packages cells may import besides the standard library; nil means
	// the kernel's own table (kernel/symbols).
	Packages map[string]map[string]reflect.Value
	// CaptureOutput sends what compiled code writes to the process's
	// standard output and error into the notebook, as the kernel does.
	CaptureOutput bool
	// Live shows a progress line on standard error (or on the terminal
	// behind it when output is captured).
	Live bool
}

// RunFile runs one notebook or chapter in a fresh session whose working
// directory is the file's folder, and writes the executed notebook under
// opts.OutDir atomically, also when a cell failed. It returns the run, the
// executed notebook and its path.
func RunFile(ctx context.Context, path string, opts FileOptions) (*Result, *notebook.Notebook, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, "", fmt.Errorf("lab: %w", err)
	}
	out, err := OutputPath(abs, opts.OutDir)
	if err != nil {
		return nil, nil, "", err
	}
	nb, err := Load(abs)
	if err != nil {
		return nil, nil, "", err
	}
	if opts.Name == "" {
		opts.Name = filepath.Base(path)
	}
	// Check parameters before a session starts: nothing runs on a bad -p.
	if err := InjectParameters(nb, opts.Parameters); err != nil {
		return nil, nil, "", fmt.Errorf("%s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, nil, "", fmt.Errorf("lab: %w", err)
	}
	pkgs := opts.Packages
	if pkgs == nil {
		pkgs = symbols.Symbols
	}
	cwd, _ := os.Getwd()
	sess, err := session.New(session.Options{Dir: filepath.Dir(abs), Packages: pkgs, CaptureProcessOutput: opts.CaptureOutput})
	if err != nil {
		return nil, nil, "", fmt.Errorf("lab: start session: %w", err)
	}
	if opts.Live {
		opts.Progress = NewProgress(sess.TerminalStderr(), true)
	}
	res, runErr := Run(ctx, sess, nb, opts.Options)
	sess.Close()
	if cwd != "" {
		os.Chdir(cwd) // the session moved the process into the notebook's folder
	}
	if res == nil {
		return nil, nil, "", runErr
	}
	if err := notebook.WriteFile(out, nb); err != nil {
		return res, nb, "", errors.Join(runErr, err)
	}
	return res, nb, out, runErr
}
