package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/commlab/commlab/probes/launch"
)

// runProbeHang runs chapter 6's hang lab (probes/launch's embedded
// hang_torch.py), or writes the script out with --script.
func runProbeHang(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab probe hang", stderr,
		"usage: commlab probe hang --scenario NAME --out DIR [--nproc N] [--timeout S] [--steps N --hang-at N --stuck-rank R] [--deadline S]",
		"       commlab probe hang --script > hang_torch.py",
		"Stages a hang on CPU ranks (torchrun, gloo, PyTorch 2.8 or later) with the Flight Recorder on, takes every",
		"rank's stack (faulthandler: DIR/stacks/rank_N.txt; py-spy dump when installed: DIR/stacks/rankN.txt),",
		"lets the ranks time out and dump, and runs PyTorch's fr_trace; read the dumps with commlab parse flight-recorder DIR/fr,",
		"the whole run with commlab doctor --fr DIR/fr --stacks DIR/stacks. make hang-cpu installs torch and py-spy in a venv.",
		"Scenarios: "+strings.Join(launch.HangScenarios, ", "))
	var o launch.HangOptions
	fs.StringVar(&o.Scenario, "scenario", "", "the hang to stage")
	fs.StringVar(&o.Out, "out", "", "the folder the dumps, stacks and reports go to")
	fs.IntVar(&o.NProc, "nproc", 0, "ranks (default 2; 64 for core)")
	fs.Float64Var(&o.TimeoutS, "timeout", 0, "init_process_group's timeout in seconds (default 15)")
	fs.IntVar(&o.Steps, "steps", 0, "core: all_reduces per rank (default 3000)")
	fs.IntVar(&o.HangAt, "hang-at", 0, "core: the step whose all_reduce one rank never calls (default 3000)")
	fs.IntVar(&o.StuckRank, "stuck-rank", 0, "core: the rank stuck in its data loader (default 37)")
	fs.Float64Var(&o.DeadlineS, "deadline", 0, "end the ranks after this many seconds (default 150)")
	script := fs.Bool("script", false, "write hang_torch.py to stdout instead of running it")
	if status, ok := parseOnlyFlags(fs, args, stderr); !ok {
		return status
	}
	if *script {
		stdout.Write(launch.HangLab.Source())
		return 0
	}
	if _, err := o.Args(); err != nil {
		return fail(fs, stderr, exitBadInput, "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := launch.RunHangLab(ctx, o, stdout, stderr); err != nil {
		return fail(fs, stderr, exitFailed, "%v", err)
	}
	fmt.Fprintf(stdout, "hang lab %s: results under %s\n", o.Scenario, o.Out)
	return 0
}
