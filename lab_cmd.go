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

// This file holds the verbs of the lab: run, sync and export.

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
	fs := newFlags("commlab run", stderr, "usage: commlab run NOTEBOOK.ipynb|CHAPTER.md... [--out DIR] [-p name=value]... [--timeout 10m] [--cell-timeout 2m] [--allow-errors] [--html] [--solutions] [--expect-exercises right|blank]")
	out := fs.String("out", "out", "write executed notebooks into `DIR`")
	params := paramFlags{}
	fs.Var(params, "p", "set a parameter: `name=value` (repeatable), typed from the cell tagged parameters")
	timeout := fs.Duration("timeout", 30*time.Minute, "stop the whole run after this long (0: no limit)")
	cellTimeout := fs.Duration("cell-timeout", 10*time.Minute, "interrupt a cell that runs longer (0: no limit)")
	allowErrors := fs.Bool("allow-errors", false, "keep running after a failed cell and exit 0")
	htmlOut := fs.Bool("html", false, "also write DIR/NAME.html and DIR/index.html")
	solutions := fs.Bool("solutions", false, "trainer's run: each blank answer cell runs its solution (solutions/NAME.md beside the file, else the embedded ones); every check must then say right")
	expect := fs.String("expect-exercises", "", "fail unless every exercise check says `STATUS`: right, or blank (not answered yet); --solutions implies right")
	files, status, ok := parseFlags(fs, args)
	if !ok {
		return status
	}
	wantExercises, err := exerciseExpectation(*expect, *solutions)
	if err != nil {
		return fail(fs, stderr, 2, "%v", err)
	}
	if len(files) == 0 {
		return fail(fs, stderr, 2, "no notebooks given (run with -h for the flags)")
	}
	outDir, err := filepath.Abs(*out)
	if err != nil {
		return fail(fs, stderr, 2, "%v", err)
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
			return fail(fs, stderr, exitBadInput, "%s", naming(f, err))
		}
		if _, err := lab.OutputPath(f, outDir); err != nil {
			return fail(fs, stderr, exitBadInput, "%v", err)
		}
	}
	live := stderr == io.Writer(os.Stderr) && lab.IsTerminal(os.Stderr)
	var written []string
	for i, f := range files {
		opts := lab.FileOptions{
			Options:       lab.Options{CellTimeout: *cellTimeout, AllowErrors: *allowErrors, Name: f},
			OutDir:        outDir,
			CaptureOutput: runCaptureOutput,
			Live:          live,
			HTML:          *htmlOut,
			Solutions:     *solutions,
		}
		res, nb, path, err := lab.RunFile(ctx, jobs[i], opts)
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
		if verdicts := lab.ExerciseVerdicts(nb); len(verdicts) > 0 || wantExercises != "" && lab.HasBlankAnswers(nb) {
			fmt.Fprintf(stdout, "        exercises: %s\n", lab.SummarizeExercises(verdicts))
			if wantExercises != "" && err == nil {
				if xerr := lab.ExpectExercises(verdicts, wantExercises); xerr != nil {
					fmt.Fprintf(stderr, "commlab run: %s: %v\n", f, xerr)
					status = 1
				}
			}
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
	if *htmlOut && len(written) > 0 && !exportHTML(fs, written, outDir, stdout, stderr) {
		status = 1
	}
	return status
}

// exerciseExpectation is the status --expect-exercises asks of every
// check ("" for none).
func exerciseExpectation(flag string, solutions bool) (string, error) {
	switch strings.TrimSpace(flag) {
	case "":
		if solutions {
			return "right", nil
		}
		return "", nil
	case "right":
		return "right", nil
	case "blank", "not answered yet":
		if solutions {
			return "", fmt.Errorf("--expect-exercises blank contradicts --solutions, after which every check says right")
		}
		return "not answered yet", nil
	}
	return "", fmt.Errorf("--expect-exercises %q: want right or blank", flag)
}

// exportHTML writes the HTML pages and index, and says where.
func exportHTML(fs *flag.FlagSet, files []string, outDir string, stdout, stderr io.Writer) bool {
	pages, index, err := lab.ExportHTML(files, outDir)
	if err != nil {
		fail(fs, stderr, 1, "%v", err)
		return false
	}
	fmt.Fprintf(stdout, "html    %d pages, index %s\n", pages, relPath(index))
	return true
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

func runSync(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab sync", stderr, "usage: commlab sync [--check] [--chapters DIR] [--notebooks DIR]",
		"Where a chapter and its notebook disagree, the newer file is written into the other.")
	check := fs.Bool("check", false, "write nothing; exit 1 when a chapter and its notebook disagree")
	chapters := fs.String("chapters", "chapters", "folder of the literate sources (`DIR`/NN-slug.md)")
	notebooks := fs.String("notebooks", "notebooks", "folder of the notebooks (`DIR`/NN-slug.ipynb)")
	if status, ok := parseOnlyFlags(fs, args, stderr); !ok {
		return status
	}
	if info, err := os.Stat(*chapters); err != nil || !info.IsDir() {
		return fail(fs, stderr, exitBadInput, "no folder of chapters at %s (--chapters DIR)", *chapters)
	}
	actions, err := lab.Sync(*chapters, *notebooks, *check)
	for _, a := range actions {
		verb := "wrote"
		if *check {
			verb = "stale"
		}
		fmt.Fprintf(stdout, "%s %s (%s)\n", verb, a.Write, a.Reason)
	}
	if err != nil {
		if errors.Is(err, lab.ErrOutOfSync) {
			fmt.Fprintln(stderr, "commlab sync --check: chapters and notebooks disagree; run `commlab sync`")
			return exitFailed
		}
		return fail(fs, stderr, statusOf(err), "%v", err)
	}
	return 0
}

func runExport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab export", stderr, "usage: commlab export [--out DIR] [NOTEBOOK.ipynb|CHAPTER.md...]",
		"With no files, exports every DIR/*.ipynb (what `commlab run --out DIR` wrote).")
	out := fs.String("out", "out", "write NAME.html and index.html into `DIR`")
	files, status, ok := parseFlags(fs, args)
	if !ok {
		return status
	}
	if len(files) == 0 {
		files, _ = filepath.Glob(filepath.Join(*out, "*.ipynb"))
		if len(files) == 0 {
			return fail(fs, stderr, exitBadInput, "no notebooks in %s (run `commlab run --out %s` first, or name files)", *out, *out)
		}
	}
	// Every file is read before anything is written.
	for _, f := range files {
		if _, err := lab.Load(f); err != nil {
			return fail(fs, stderr, statusOf(err), "%s", naming(f, err))
		}
	}
	if !exportHTML(fs, files, *out, stdout, stderr) {
		return exitFailed
	}
	return 0
}
