package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/commlab/commlab/kernel/session"
	"github.com/commlab/commlab/notebook"
	"github.com/commlab/commlab/notebook/literate"
)

// ErrOutOfSync: sync --check found a chapter and its notebook disagreeing,
// or one without the other.
var ErrOutOfSync = errors.New("lab: chapters and notebooks disagree")

// SyncAction is what Sync did, or would do, for one chapter.
type SyncAction struct {
	Name string // "00-tour"
	// Write is the file written from the other ("" when in sync).
	Write string
	// Reason says why: "new chapter", "chapter newer", "notebook newer",
	// "no chapter", or the first difference.
	Reason string
}

// Sync keeps chapters/NN-slug.md and notebooks/NN-slug.ipynb in step. Where
// they disagree the newer file wins (a notebook edited in JupyterLab, or a
// chapter edited as text); a file without its counterpart creates it.
// Notebooks are written without outputs and with the kernel's
// language_info (session.LanguageInfo), so that Jupyter opening one finds
// nothing to change; a notebook with another language_info is out of
// sync. What a run or JupyterLab adds (outputs, counts, timing) is not
// compared and does not reach the chapter (literate.StripVolatile). With check, nothing is written and
// the error wraps ErrOutOfSync when any action is due.
func Sync(chapters, notebooks string, check bool) ([]SyncAction, error) {
	names := map[string]bool{}
	for _, pat := range []string{filepath.Join(chapters, "*.md"), filepath.Join(notebooks, "*.ipynb")} {
		files, err := filepath.Glob(pat)
		if err != nil {
			return nil, fmt.Errorf("lab: %w", err)
		}
		for _, f := range files {
			names[strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))] = true
		}
	}
	sorted := slices.Sorted(maps.Keys(names))
	var actions []SyncAction
	var errs []error
	for _, name := range sorted {
		md := filepath.Join(chapters, name+".md")
		ipynb := filepath.Join(notebooks, name+".ipynb")
		a, err := syncOne(name, md, ipynb, check)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if a.Write != "" {
			actions = append(actions, a)
		}
	}
	if check && len(actions) > 0 {
		errs = append(errs, fmt.Errorf("%w: %d of %d", ErrOutOfSync, len(actions), len(sorted)))
	}
	return actions, errors.Join(errs...)
}

func syncOne(name, md, ipynb string, check bool) (SyncAction, error) {
	a := SyncAction{Name: name}
	mdInfo, mdErr := os.Stat(md)
	nbInfo, nbErr := os.Stat(ipynb)
	var fromMD *notebook.Notebook
	if mdErr == nil {
		src, err := os.ReadFile(md)
		if err != nil {
			return a, fmt.Errorf("lab: %w", err)
		}
		if fromMD, err = literate.Parse(src); err != nil {
			return a, fmt.Errorf("lab: %s: %w", md, err)
		}
		literate.StripVolatile(fromMD)
	}
	var fromNB *notebook.Notebook
	staleInfo := false
	if nbErr == nil {
		var err error
		if fromNB, err = notebook.ReadFile(ipynb); err != nil {
			return a, err
		}
		staleInfo = !sameJSON(fromNB.Metadata["language_info"], session.LanguageInfo())
		literate.StripVolatile(fromNB)
	}
	switch {
	case fromMD != nil && fromNB == nil:
		a.Write, a.Reason = ipynb, "new chapter"
	case fromMD == nil && fromNB != nil:
		a.Write, a.Reason = md, "no chapter"
	case fromMD == nil && fromNB == nil:
		return a, nil
	default:
		d := notebook.Diff(fromMD, fromNB, false)
		if d == "" {
			if !staleInfo {
				return a, nil
			}
			a.Write, a.Reason = ipynb, "language_info differs from the kernel's"
			break
		}
		if nbInfo.ModTime().After(mdInfo.ModTime()) {
			a.Write, a.Reason = md, "notebook newer: "+d
		} else {
			a.Write, a.Reason = ipynb, "chapter newer: "+d
		}
	}
	if check {
		return a, nil
	}
	if a.Write == ipynb {
		fromMD.StripOutputs()
		// The kernel's own language_info, so that opening the notebook in
		// Jupyter changes nothing (a chapter does not carry it).
		if fromMD.Metadata == nil {
			fromMD.Metadata = map[string]any{}
		}
		fromMD.Metadata["language_info"] = session.LanguageInfo()
		if fromNB != nil {
			keepIDs(fromMD, fromNB)
		}
		if err := os.MkdirAll(filepath.Dir(ipynb), 0o755); err != nil {
			return a, fmt.Errorf("lab: %w", err)
		}
		return a, notebook.WriteFile(ipynb, fromMD)
	}
	out, err := literate.Format(fromNB)
	if err != nil {
		return a, fmt.Errorf("lab: %s: %w", ipynb, err)
	}
	if err := os.MkdirAll(filepath.Dir(md), 0o755); err != nil {
		return a, fmt.Errorf("lab: %w", err)
	}
	return a, notebook.WriteFileAtomic(md, out)
}

// sameJSON says whether a and b are equal as JSON values (a notebook read
// from a file holds float64 where LanguageInfo holds strings and ints).
func sameJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// keepIDs reuses the old notebook's cell ids where a cell of the same type
// sits at the same place, so an edit does not rename every cell.
func keepIDs(nb, old *notebook.Notebook) {
	for i, c := range nb.Cells {
		if i < len(old.Cells) && old.Cells[i].Type == c.Type {
			c.ID = old.Cells[i].ID
		}
	}
	nb.EnsureIDs()
}

// WriteSyncActions prints one line per action of Sync on w: "wrote FILE
// (REASON)", or "stale FILE (REASON)" for a check.
func WriteSyncActions(w io.Writer, actions []SyncAction, check bool) {
	verb := "wrote"
	if check {
		verb = "stale"
	}
	for _, a := range actions {
		fmt.Fprintf(w, "%s %s (%s)\n", verb, a.Write, a.Reason)
	}
}
