package main

// The verbs of the kernel and the lab: kernel and install (what Jupyter
// meets), lab (the lab from a binary alone, as make lab does in a clone),
// run, sync and export. The work is kernel's, install's and lab's; this
// file reads flags and prints.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/commlab/commlab/probes/cli"

	"github.com/commlab/commlab/cells"
	"github.com/commlab/commlab/install"
	"github.com/commlab/commlab/kernel"
	"github.com/commlab/commlab/kernel/conn"
	"github.com/commlab/commlab/notebook/runner"
)

var kernelUsage = []string{"usage: commlab kernel [--log LEVEL] <connection-file>"}

func runKernel(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	logLevel := fs.String("log", kernel.DefaultLogLevel(), "log level: debug, info, warn or error")
	files, status, ok := cli.Parse(fs, args)
	if !ok {
		return status
	}
	if len(files) != 1 {
		return cli.Fail(fs, stderr, 2, "want one connection file, got %d arguments", len(files))
	}
	logger, logOut, err := kernel.StderrLogger(*logLevel)
	if err != nil {
		return cli.Fail(fs, stderr, 2, "bad --log %q: %v", *logLevel, err)
	}
	info, err := conn.ReadInfo(files[0])
	if err != nil {
		return cli.Fail(fs, stderr, cli.ExitBadInput, "%v", err)
	}
	if err := kernel.Serve(context.Background(), info, kernel.Options{Version: version(), Session: cells.View().Session(), Logger: logger}); err != nil {
		fmt.Fprintf(logOut, "commlab kernel: %v\n", err)
		return 1
	}
	return 0
}

var installUsage = []string{"usage: commlab install [--user | --sys-prefix | --prefix DIR] [--uninstall] [--name NAME]"}

func runInstall(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	user := fs.Bool("user", false, "install for the current user: $JUPYTER_DATA_DIR or ~/.local/share/jupyter (the default)")
	sysPrefix := fs.Bool("sys-prefix", false, "install into the Python environment that runs jupyter: <sys.prefix>/share/jupyter")
	prefix := fs.String("prefix", "", "install into `DIR`/share/jupyter")
	uninstall := fs.Bool("uninstall", false, "remove the kernelspec instead of installing it")
	name := fs.String("name", install.DefaultName, "kernelspec `name`")
	if status, ok := cli.ParseOnly(fs, args, stderr); !ok {
		return status
	}
	err := install.Setup{User: *user, SysPrefix: *sysPrefix, Prefix: *prefix, Name: *name, Uninstall: *uninstall}.Run(stdout, stderr)
	if errors.Is(err, install.ErrScopes) {
		return cli.Fail(fs, stderr, 2, "%v", err)
	}
	if err != nil {
		return cli.Fail(fs, stderr, 1, "%v", err)
	}
	return 0
}

var labUsage = []string{"usage: commlab lab [DIR] [--force] [--no-install] [--no-run]",
	"Writes the chapters this binary carries into DIR/chapters and DIR/notebooks, registers the kernel",
	"(commlab install --user) and runs every chapter headless into DIR/out, as make lab does.",
	"A file you changed since commlab wrote it is kept (say so with --force to overwrite it)."}

func runLab(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	force := fs.Bool("force", false, "overwrite chapters and notebooks you changed")
	noInstall := fs.Bool("no-install", false, "do not register the Jupyter kernel")
	noRun := fs.Bool("no-run", false, "write the files only; do not run the chapters")
	rest, status, ok := cli.Parse(fs, args)
	if !ok {
		return status
	}
	if len(rest) > 1 {
		return cli.Fail(fs, stderr, 2, "one folder at most, got %d", len(rest))
	}
	dir := "commlab-lab"
	if len(rest) == 1 {
		dir = rest[0]
	}
	if err := runner.WriteLab(dir, cells.View().Chapters, *force, stdout, stderr); err != nil {
		return cli.Fail(fs, stderr, 1, "%v", err)
	}
	if !*noInstall {
		if s := dispatch([]string{"install", "--user"}, stdout, stderr); s != 0 {
			return s
		}
	}
	if !*noRun {
		files, _ := filepath.Glob(filepath.Join(dir, "chapters", "*.md"))
		if s := dispatch(append([]string{"run", "--out", filepath.Join(dir, "out"), "--html"}, files...), stdout, stderr); s != 0 {
			return s
		}
		fmt.Fprintf(stdout, "open %s in a browser\n", filepath.Join(dir, "out", "index.html"))
	}
	fmt.Fprintf(stdout, "live notebooks: jupyter notebook %s (classic Notebook, widgets included) or jupyter lab %s\n",
		filepath.Join(dir, "notebooks"), filepath.Join(dir, "notebooks"))
	return 0
}

// runCaptureOutput makes cells' compiled code write into the notebook, as
// in the kernel; tests in this package turn it off so that their own output
// is not captured.
var runCaptureOutput = true

var runUsage = []string{"usage: commlab run NOTEBOOK.ipynb|CHAPTER.md... [--out DIR] [-p name=value]... [--timeout 10m] [--cell-timeout 2m] [--allow-errors] [--html] [--solutions [DIR]] [--expect-exercises right|blank]"}

func runRun(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	out := fs.String("out", "out", "write executed notebooks into `DIR`")
	params := runner.Params{}
	fs.Var(params, "p", "set a parameter: `name=value` (repeatable), typed from the cell tagged parameters")
	timeout := fs.Duration("timeout", 30*time.Minute, "stop the whole run after this long (0: no limit)")
	cellTimeout := fs.Duration("cell-timeout", 10*time.Minute, "interrupt a cell that runs longer (0: no limit)")
	allowErrors := fs.Bool("allow-errors", false, "keep running after a failed cell and exit 0")
	htmlOut := fs.Bool("html", false, "also write DIR/NAME.html and DIR/index.html")
	var solutions cells.SolutionsFlag
	fs.Var(&solutions, "solutions", "trainer's run: each blank answer cell runs its solution from `DIR`/NAME.md (alone: the clone's trainer/solutions, found above the file; the binary carries none); every check must then say right")
	expect := fs.String("expect-exercises", "", "fail unless every exercise check says `STATUS`: right, or blank (not answered yet); --solutions implies right")
	files, status, ok := cli.Parse(fs, cells.SolutionsArgs(args))
	if !ok {
		return status
	}
	wantExercises, err := cells.ExerciseExpectation(*expect, solutions.On)
	if err != nil {
		return cli.Fail(fs, stderr, 2, "%v", err)
	}
	if len(files) == 0 {
		return cli.Fail(fs, stderr, 2, "no notebooks given (run with -h for the flags)")
	}
	outDir, err := filepath.Abs(*out)
	if err != nil {
		return cli.Fail(fs, stderr, 2, "%v", err)
	}
	view := cells.View()
	view.Solutions = solutions.Solutions()
	batch := runner.Batch{Timeout: *timeout, Exercises: cells.ExerciseReport(wantExercises),
		File: runner.FileOptions{
			Options:       runner.Options{CellTimeout: *cellTimeout, AllowErrors: *allowErrors},
			OutDir:        outDir,
			CaptureOutput: runCaptureOutput,
			Live:          stderr == io.Writer(os.Stderr) && runner.IsTerminal(os.Stderr),
			HTML:          *htmlOut,
			Solutions:     solutions.On,
			Cells:         view,
		}}
	// Every file and every -p value is checked before anything runs.
	if err := batch.Prepare(files, params); err != nil {
		return cli.Fail(fs, stderr, cli.ExitBadInput, "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if batch.Run(ctx, stdout, stderr) {
		return cli.ExitFailed
	}
	return 0
}

var syncUsage = []string{"usage: commlab sync [--check] [--chapters DIR] [--notebooks DIR]",
	"Where a chapter and its notebook disagree, the newer file is written into the other."}

func runSync(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	check := fs.Bool("check", false, "write nothing; exit 1 when a chapter and its notebook disagree")
	chapters := fs.String("chapters", "chapters", "folder of the literate sources (`DIR`/NN-slug.md)")
	notebooks := fs.String("notebooks", "notebooks", "folder of the notebooks (`DIR`/NN-slug.ipynb)")
	if status, ok := cli.ParseOnly(fs, args, stderr); !ok {
		return status
	}
	if info, err := os.Stat(*chapters); err != nil || !info.IsDir() {
		return cli.Fail(fs, stderr, cli.ExitBadInput, "no folder of chapters at %s (--chapters DIR)", *chapters)
	}
	actions, err := runner.Sync(*chapters, *notebooks, *check)
	runner.WriteSyncActions(stdout, actions, *check)
	if err != nil {
		if errors.Is(err, runner.ErrOutOfSync) {
			fmt.Fprintln(stderr, "commlab sync --check: chapters and notebooks disagree; run `commlab sync`")
			return cli.ExitFailed
		}
		return cli.Fail(fs, stderr, statusOf(err), "%v", err)
	}
	return 0
}

var exportUsage = []string{"usage: commlab export [--out DIR] [NOTEBOOK.ipynb|CHAPTER.md...]",
	"With no files, exports every DIR/*.ipynb (what `commlab run --out DIR` wrote)."}

func runExport(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	out := fs.String("out", "out", "write NAME.html and index.html into `DIR`")
	files, status, ok := cli.Parse(fs, args)
	if !ok {
		return status
	}
	if len(files) == 0 {
		files, _ = filepath.Glob(filepath.Join(*out, "*.ipynb"))
		if len(files) == 0 {
			return cli.Fail(fs, stderr, cli.ExitBadInput, "no notebooks in %s (run `commlab run --out %s` first, or name files)", *out, *out)
		}
	}
	// Every file is read before anything is written.
	if err := runner.LoadEach(files); err != nil {
		return cli.Fail(fs, stderr, statusOf(err), "%v", err)
	}
	if err := runner.WriteHTML(files, *out, cells.View(), stdout); err != nil {
		return cli.Fail(fs, stderr, cli.ExitFailed, "%v", err)
	}
	return 0
}
