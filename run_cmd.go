package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/commlab/commlab/lab"
)

func init() {
	register(subcommand{name: "run", summary: "run notebooks or chapters headless and write the executed copies", run: runRun})
}

// runCaptureOutput makes cells' compiled code write into the notebook, as
// in the kernel; tests in this package turn it off so that their own output
// is not captured.
var runCaptureOutput = true

// paramFlags collects repeated -p name=value flags.
type paramFlags map[string]string

func (p paramFlags) String() string {
	var parts []string
	for k, v := range p {
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}

func (p paramFlags) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return fmt.Errorf("want name=value, got %q", s)
	}
	p[name] = value
	return nil
}

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "out", "write executed notebooks into `DIR`")
	params := paramFlags{}
	fs.Var(params, "p", "set a parameter: `name=value` (repeatable), typed from the cell tagged parameters")
	timeout := fs.Duration("timeout", 30*time.Minute, "stop the whole run after this long (0: no limit)")
	cellTimeout := fs.Duration("cell-timeout", 10*time.Minute, "interrupt a cell that runs longer (0: no limit)")
	allowErrors := fs.Bool("allow-errors", false, "keep running after a failed cell and exit 0")
	htmlOut := fs.Bool("html", false, "also write DIR/NAME.html and DIR/index.html")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: commlab run NOTEBOOK.ipynb|CHAPTER.md... [--out DIR] [-p name=value]... [--timeout 10m] [--cell-timeout 2m] [--allow-errors] [--html]")
		fs.PrintDefaults()
	}
	files, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "commlab run: no notebooks given")
		fs.Usage()
		return 2
	}
	outDir, err := filepath.Abs(*out)
	if err != nil {
		fmt.Fprintf(stderr, "commlab run: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	// Every file and every -p value is checked before anything runs.
	jobs := make([]*lab.Job, len(files))
	for i, f := range files {
		if jobs[i], err = lab.NewJob(f, params); err != nil {
			fmt.Fprintf(stderr, "commlab run: %s: %v\n", f, err)
			return 2
		}
	}
	live := stderr == io.Writer(os.Stderr) && lab.IsTerminal(os.Stderr)
	status := 0
	var written []string
	for i, f := range files {
		opts := lab.FileOptions{
			Options:       lab.Options{CellTimeout: *cellTimeout, AllowErrors: *allowErrors, Name: f},
			OutDir:        outDir,
			CaptureOutput: runCaptureOutput,
			Live:          live,
		}
		res, _, path, err := lab.RunFile(ctx, jobs[i], opts)
		if path != "" {
			written = append(written, path)
		}
		if res == nil {
			fmt.Fprintf(stderr, "commlab run: %v\n", err)
			status = 1
			continue
		}
		state := res.Status(*allowErrors)
		if err != nil && len(res.Failures) == 0 {
			state = "stopped"
		}
		fmt.Fprintf(stdout, "%-7s %s  %d/%d cells  %s  -> %s\n", state, f, res.Executed, res.Cells, res.Duration.Round(time.Millisecond), relPath(path))
		for _, fail := range res.Failures {
			reportFailure(stderr, f, fail)
		}
		if err != nil {
			if len(res.Failures) == 0 {
				fmt.Fprintf(stderr, "commlab run: %v\n", err)
			}
			status = 1
		}
		if ctx.Err() != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				fmt.Fprintf(stderr, "commlab run: stopped: the run took longer than --timeout %v\n", *timeout)
			} else {
				fmt.Fprintln(stderr, "commlab run: interrupted")
			}
			status = 1
			break
		}
	}
	if *htmlOut && len(written) > 0 {
		if err := exportNotebooks(written, outDir, stdout); err != nil {
			fmt.Fprintf(stderr, "commlab run: %v\n", err)
			status = 1
		}
	}
	return status
}

// reportFailure prints the failed cell, its line and the error.
func reportFailure(w io.Writer, file string, f *lab.CellError) {
	fmt.Fprintf(w, "%s: %v\n", file, f)
	if f.Err != nil && errors.Is(f.Err, lab.ErrCellTimeout) {
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

func relPath(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}
