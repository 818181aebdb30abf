package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/commlab/commlab/notebook"
)

// Batch is one `commlab run`: its jobs run in order, each into
// File.OutDir, and what happened is printed as the command prints it.
type Batch struct {
	// Files name the jobs, in the same order.
	Files []string
	Jobs  []*Job
	// File holds the options every file runs with; Name is set per file.
	File FileOptions
	// Timeout is the whole run's limit, named when it stops the run.
	Timeout time.Duration
	// Exercises reads an executed notebook's exercise checks: the summary
	// line to show (show false: none) and an error when they are not what
	// the run expects. Nil: no exercise line.
	Exercises func(nb *notebook.Notebook) (summary string, show bool, err error)
}

// Prepare makes the batch's jobs: every file loaded and its params set,
// and its executed copy's place in File.OutDir checked, before anything
// runs. Its errors are the input's fault and name the file.
func (b *Batch) Prepare(files []string, params map[string]string) error {
	b.Files, b.Jobs = files, make([]*Job, len(files))
	for i, f := range files {
		var err error
		if b.Jobs[i], err = NewJob(f, params); err != nil {
			return NameFile(f, err)
		}
		if _, err := OutputPath(f, b.File.OutDir); err != nil {
			return err
		}
	}
	return nil
}

// NameFile returns err naming file, unless its message already does (the
// packages' errors mostly name the file: saying it twice stutters).
func NameFile(file string, err error) error {
	msg := err.Error()
	if strings.Contains(msg, file) {
		return err
	}
	if abs, aerr := filepath.Abs(file); aerr == nil && strings.Contains(msg, abs) {
		return err
	}
	return fmt.Errorf("%s: %w", file, err)
}

// LoadEach loads every file, so that a command writes nothing when one
// is missing or malformed; its error names the file.
func LoadEach(files []string) error {
	for _, f := range files {
		if _, err := Load(f); err != nil {
			return NameFile(f, err)
		}
	}
	return nil
}

// Run runs the batch until it ends, Timeout passes or ctx stops it, printing one line per
// file on stdout and failures on stderr, then the HTML pages when
// File.HTML asks for them. It returns whether any file failed.
func (b Batch) Run(ctx context.Context, stdout, stderr io.Writer) (failed bool) {
	if b.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, b.Timeout)
		defer cancel()
	}
	var written []string
	for i, f := range b.Files {
		opts := b.File
		opts.Name = f
		res, nb, path, err := RunFile(ctx, b.Jobs[i], opts)
		if path != "" {
			written = append(written, path)
		}
		if res == nil {
			fmt.Fprintf(stderr, "commlab run: %v\n", err)
			failed = true
			continue
		}
		state := res.Status(opts.AllowErrors)
		if err != nil && len(res.Failures) == 0 {
			state = "stopped"
		}
		fmt.Fprintf(stdout, "%-7s %s  %d/%d cells  %s  -> %s\n", state, f, res.Executed, res.Cells, res.Duration.Round(time.Millisecond), RelPath(path))
		for _, fail := range res.Failures {
			reportFailure(stderr, f, fail)
		}
		if b.Exercises != nil {
			if summary, show, xerr := b.Exercises(nb); show {
				fmt.Fprintf(stdout, "        exercises: %s\n", summary)
				if xerr != nil && err == nil {
					fmt.Fprintf(stderr, "commlab run: %s: %v\n", f, xerr)
					failed = true
				}
			}
		}
		if err != nil {
			if len(res.Failures) == 0 {
				fmt.Fprintf(stderr, "commlab run: %v\n", err)
			}
			failed = true
		}
		if ctx.Err() != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				fmt.Fprintf(stderr, "commlab run: stopped: the run took longer than --timeout %v\n", b.Timeout)
			} else {
				fmt.Fprintln(stderr, "commlab run: interrupted")
			}
			failed = true
			break
		}
	}
	if b.File.HTML && len(written) > 0 {
		if err := WriteHTML(written, b.File.OutDir, b.File.Cells, stdout); err != nil {
			fmt.Fprintf(stderr, "commlab run: %v\n", err)
			failed = true
		}
	}
	return failed
}

// WriteHTML writes the HTML pages of files and their index into outDir,
// and says on w where.
func WriteHTML(files []string, outDir string, cells Cells, w io.Writer) error {
	pages, index, err := ExportHTML(files, outDir, cells)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "html    %d pages, index %s\n", pages, RelPath(index))
	return nil
}

// reportFailure prints the failed cell, its line and the error.
func reportFailure(w io.Writer, file string, f *CellError) {
	fmt.Fprintf(w, "%s: %v\n", file, f)
	if f.Err != nil && errors.Is(f.Err, ErrCellTimeout) {
		fmt.Fprintf(w, "  %v\n", f.Err)
	}
	lines := strings.Split(f.Source, "\n")
	from, to := 0, len(lines)
	if f.Line > 0 && f.Line <= len(lines) {
		from, to = max(0, f.Line-3), min(len(lines), f.Line+2)
	} else if to > 6 {
		to = 6
	}
	for i := from; i < to; i++ {
		mark := " "
		if i+1 == f.Line {
			mark = ">"
		}
		fmt.Fprintf(w, "  %s %3d | %s\n", mark, i+1, lines[i])
	}
}

// RelPath is p relative to the working directory when it lies under it,
// else p.
func RelPath(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}
