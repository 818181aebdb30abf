package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/commlab/commlab/kernel/session"
	"github.com/commlab/commlab/notebook"
)

// ErrOverSource: the executed copy would replace the notebook it came from.
var ErrOverSource = errors.New("lab: output would overwrite its source")

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
	// Cells is what cells see (packages, renderers) and the solutions
	// of solution mode; the zero value: the standard library and
	// kernel/display.
	Cells Cells
	// CaptureOutput sends what compiled code writes to the process's
	// standard output and error into the notebook, as the kernel does.
	CaptureOutput bool
	// Live shows a progress line on standard error (or on the terminal
	// behind it when output is captured).
	Live bool
	// HTML also writes OutDir/NAME.html and OutDir/index.html, before
	// each cell as the notebook is.
	HTML bool
	// Solutions runs the notebook in solution mode: each blank answer cell
	// runs the trainer's solution instead (Cells.Solutions finds them).
	// A blank cell without a solution, a solution without a blank cell,
	// or one whose blank cell did not run is an error naming it.
	Solutions bool
}

// writeStopped writes nb as it stands before cell runs, that cell marked
// as the one that was running, and its page when opts.HTML: what is left
// if the process dies in the cell (a fatal error, a kill at a CI time
// limit). The run overwrites both when the cell ends.
func writeStopped(out string, nb *notebook.Notebook, cell int, res *Result, opts FileOptions) error {
	c := nb.Cells[cell-1]
	saved, savedMeta := c.Outputs, nb.Metadata[MetadataKey]
	msg := "the run stopped while this cell ran: the process ended before the cell finished (see the run's standard error)"
	c.Outputs = []*notebook.Output{{Type: "error", EName: "Stopped", EValue: msg, Traceback: []string{"Stopped: " + msg}}}
	stopped := *res
	stopped.Failures = append(append([]*CellError(nil), res.Failures...), &CellError{Cell: cell, EName: "Stopped", EValue: msg, Source: c.Source})
	record(nb, &stopped, opts.AllowErrors, nil)
	err := notebook.WriteFile(out, nb)
	if err == nil && opts.HTML {
		_, _, err = ExportHTML([]string{out}, filepath.Dir(out), opts.Cells)
	}
	c.Outputs = saved
	if savedMeta == nil {
		delete(nb.Metadata, MetadataKey)
	} else {
		nb.Metadata[MetadataKey] = savedMeta
	}
	return err
}

// RunFile runs a job in a fresh session whose working directory is the
// file's folder, and writes the executed notebook under opts.OutDir
// atomically, also when a cell failed: before each cell, the notebook as
// far as it ran with that cell marked as the one running (and its page,
// with opts.HTML), so that a process that dies in a cell leaves the
// notebook and page up to that cell; then the finished notebook. It returns the run, the executed
// notebook and its path.
func RunFile(ctx context.Context, job *Job, opts FileOptions) (*Result, *notebook.Notebook, string, error) {
	out, err := OutputPath(job.Path, opts.OutDir)
	if err != nil {
		return nil, nil, "", err
	}
	if opts.Name == "" {
		opts.Name = filepath.Base(job.Path)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, nil, "", fmt.Errorf("lab: %w", err)
	}
	// The session moves the process into the notebook's folder and back.
	so := opts.Cells.Session()
	so.Dir, so.CaptureProcessOutput, so.AbandonInterrupted = filepath.Dir(job.Path), opts.CaptureOutput, true
	sess, err := session.New(so)
	if err != nil {
		return nil, nil, "", fmt.Errorf("lab: start session: %w", err)
	}
	nb := job.Notebook
	var book session.SolutionBook
	if opts.Solutions {
		if opts.Cells.Solutions == nil {
			sess.Close()
			return nil, nil, "", fmt.Errorf("lab: %s: this run has no solutions to run", job.Path)
		}
		var from string
		// A notebook without exercises runs as it is (a nil book).
		book, from, err = opts.Cells.Solutions.ForRun(job.Path, codeSources(nb))
		if err != nil {
			sess.Close()
			if from != "" {
				return nil, nil, "", fmt.Errorf("lab: %s (solutions from %s): %w", job.Path, from, err)
			}
			return nil, nil, "", fmt.Errorf("lab: %w", err)
		}
		if book != nil {
			sess.SetSolutions(strings.TrimSuffix(filepath.Base(job.Path), filepath.Ext(job.Path)), book)
		}
	}
	if opts.Live {
		opts.Progress = NewProgress(sess.TerminalStderr(), true)
	}
	opts.BeforeCell = func(nb *notebook.Notebook, cell int, res *Result) error {
		return writeStopped(out, nb, cell, res, opts)
	}
	res, runErr := Run(ctx, sess, nb, opts.Options)
	if book != nil && runErr == nil && len(res.Failures) == 0 {
		if err := opts.Cells.Solutions.Unused(book, sess.SolutionsUsed()); err != nil {
			runErr = fmt.Errorf("lab: %s: %w", job.Path, err)
		}
	}
	sess.Close()
	if err := notebook.WriteFile(out, nb); err != nil {
		return res, nb, "", errors.Join(runErr, err)
	}
	return res, nb, out, runErr
}
