package main

// `commlab probe c10d`: chapter 5's c10d experiments (c10d_lab.py, embedded
// in probes/launch) on gloo CPU ranks or NCCL GPU ranks, read by
// probes/c10dlab.

import (
	"context"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/commlab/commlab/probes/c10dlab"
	"github.com/commlab/commlab/probes/launch"
)

func runProbeC10d(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab probe c10d", stderr,
		"usage: commlab probe c10d [--backend gloo|nccl] [--parts store,coalesce,timeout,compile] [--keep DIR] [--json] [--save RUN.json] [-- c10d_lab.py flags]",
		"       commlab probe c10d --load DIR | --recorded [NAME] [--json]",
		"       commlab probe c10d --script > c10d_lab.py",
		"Runs chapter 5's c10d experiments with python3 (which starts the ranks): the rendezvous store's traffic,",
		"small all_reduces one by one against coalesced, a collective timeout under each TORCH_NCCL_ASYNC_ERROR_HANDLING",
		"value (gloo: one rank never joins; nccl: the stream kept busy past the timeout), and a functional collective",
		"under torch.compile. c10d_lab.py flags: --world N --timeout S --stall S --modes LIST --counts LIST --sizes LIST --iters N")
	backend := fs.String("backend", "gloo", "gloo (CPU ranks) or nccl (the GPUs here)")
	parts := fs.String("parts", "", "experiments to run, comma-separated (default all): "+strings.Join(c10dlab.Parts, ","))
	keep := fs.String("keep", "", "keep summary.json in this folder")
	load := fs.String("load", "", "read a folder the script wrote instead of running it")
	rec := fs.Bool("recorded", false, "show a recorded run ("+c10dlab.RecordedCPU+", or the name given)")
	jsonOut := fs.Bool("json", false, "print the result as JSON")
	save := fs.String("save", "", "save the run (provenance and the coalescing times) to this file")
	script := fs.Bool("script", false, "write c10d_lab.py to stdout")
	args, scriptArgs := toolArgs(args)
	rest, status, ok := parseFlags(fs, args)
	if !ok {
		return status
	}
	var res *c10dlab.Result
	var err error
	switch {
	case *script:
		stdout.Write(launch.C10dLab.Source())
		return 0
	case *rec:
		name := c10dlab.RecordedCPU
		if len(rest) > 0 {
			name = rest[0]
		}
		res, err = c10dlab.Recorded(name)
		if err != nil && res == nil {
			return fail(fs, stderr, 2, "%v", err)
		}
	case *load != "":
		res, err = c10dlab.Load(os.DirFS(*load), ".")
		if err != nil && res == nil {
			return fail(fs, stderr, 2, "%v", err)
		}
	default:
		if *backend != "gloo" && *backend != "nccl" {
			return fail(fs, stderr, 2, "--backend %q: want gloo or nccl", *backend)
		}
		if len(rest) > 0 {
			return fail(fs, stderr, 2, "unexpected arguments %q (script flags go after --)", rest)
		}
		var list []string
		if *parts != "" {
			list = strings.Split(*parts, ",")
		}
		for _, p := range list {
			if !slices.Contains(c10dlab.Parts, p) {
				return fail(fs, stderr, 2, "--parts: %q is not one of %s", p, strings.Join(c10dlab.Parts, ", "))
			}
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		check := launch.TorchAvailable
		if *backend == "nccl" {
			check = launch.TorchCUDA
		}
		if terr := check(ctx); terr != nil {
			return fail(fs, stderr, 1, "%v (commlab probe c10d --recorded shows a recording)", terr)
		}
		res, err = c10dlab.Run(ctx, c10dlab.Config{Backend: *backend, Parts: list, Args: scriptArgs, OutDir: *keep, Stdout: stderr, Stderr: stderr})
	}
	if res != nil {
		if *jsonOut {
			if werr := writeJSON(stdout, res); werr != nil {
				return fail(fs, stderr, 1, "%v", werr)
			}
		} else if werr := res.WriteSummary(stdout); werr != nil {
			return fail(fs, stderr, 1, "%v", werr)
		}
		if *save != "" && res.Run != nil {
			if serr := res.Run.Save(*save); serr != nil {
				return fail(fs, stderr, 1, "%v", serr)
			}
		}
	}
	if err != nil {
		return fail(fs, stderr, 1, "%v", err)
	}
	if res != nil && res.Run != nil && res.Run.Error != "" {
		return fail(fs, stderr, 1, "%s", res.Run.Error)
	}
	if res != nil && len(res.Errors) > 0 {
		return fail(fs, stderr, 1, "the script reported %d error(s): %s", len(res.Errors), strings.Join(res.Errors, "; "))
	}
	return 0
}
