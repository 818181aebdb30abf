package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/commlab/commlab/notebook"
	"github.com/commlab/commlab/notebook/literate"
)

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

// Job is one notebook ready to run headless: loaded, and its -p values
// checked against its parameters cell and injected. NewJob is the one place
// a headless run does that, so nothing runs on a bad -p.
type Job struct {
	// Path is the notebook or chapter, absolute.
	Path string
	// Notebook is its content, parameters injected.
	Notebook *notebook.Notebook
}

// NewJob loads a notebook or chapter and injects the -p values; the error
// wraps ErrParameter when a value cannot be set.
func NewJob(path string, params map[string]string) (*Job, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("lab: %w", err)
	}
	nb, err := Load(abs)
	if err != nil {
		return nil, err
	}
	if err := InjectParameters(nb, params); err != nil {
		return nil, err
	}
	return &Job{Path: abs, Notebook: nb}, nil
}
