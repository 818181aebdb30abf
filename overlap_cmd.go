package main

// `commlab probe overlap`: chapter 5's overlap benchmark (bench_overlap.py,
// embedded in probes/launch) run through the user's launcher, its traces
// read by probes/overlap and probes/parse/torchtrace.

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/probes/overlap"
)

func runProbeOverlap(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab probe overlap", stderr,
		"usage: commlab probe overlap [--launcher none|torchrun] [--per-node N] [--what variants|cq|variants,cq] [--keep DIR] [--json] [--save RUN.json] [-- bench_overlap.py flags]",
		"       commlab probe overlap --load DIR | --recorded [NAME] [--json] [--save RUN.json]",
		"       commlab probe overlap --script > bench_overlap.py",
		"Runs the overlap micro-benchmark (GEMMs under a collective on ProcessGroupNCCL's stream, the variants that break",
		"the overlap, the async/wait timestamps) with python3 or torchrun, and reads its torch.profiler traces.",
		"bench_overlap.py flags: --variants LIST --coll all_gather|reduce_scatter|all_reduce --bytes B --gemm N --gemms K --steps N --trace-steps N --cq-bytes B --cq-gemms N")
	var o launch.Options
	o.AddFlags(fs)
	what := fs.String("what", "", "variants, cq (the core question's cases) or variants,cq in one invocation; empty: the recording's five invocations (all_gather and AVG all_reduce variants; the cases by default, with TORCH_NCCL_BLOCKING_WAIT=1 and with TORCH_NCCL_AVOID_RECORD_STREAMS=1)")
	keep := fs.String("keep", "", "keep the script's outputs (summary.json, traces) in this folder")
	load := fs.String("load", "", "read a folder the script wrote instead of running it")
	rec := fs.Bool("recorded", false, "show the recorded run ("+overlap.RecordedName+", or the name given)")
	jsonOut := fs.Bool("json", false, "print the result as JSON")
	save := fs.String("save", "", "save the run (provenance and per-variant step times) to this file, as the other probes do")
	dryRun := fs.Bool("dry-run", false, "print the command instead of running it")
	script := fs.Bool("script", false, "write bench_overlap.py to stdout")
	args, scriptArgs := toolArgs(args)
	rest, status, ok := parseFlags(fs, args)
	if !ok {
		return status
	}
	var res *overlap.Result
	var err error
	switch {
	case *script:
		stdout.Write(launch.OverlapBench.Source())
		return 0
	case *dryRun:
		steps := overlap.Steps
		if *what != "" {
			steps = []overlap.Step{{Name: ".", Args: []string{"--what", *what}}}
		}
		for _, st := range steps {
			args := append(append([]string{"--out", filepath.Join("DIR", st.Name)}, st.Args...), scriptArgs...)
			cmdline, err := launch.OverlapBench.Command(o, launch.OverlapBench.Name, args)
			if err != nil {
				return fail(fs, stderr, 2, "%v", err)
			}
			fmt.Fprintln(stdout, strings.TrimSpace(strings.Join(st.Env, " ")+" "+launch.ShellJoin(cmdline)))
		}
		return 0
	case *rec:
		name := overlap.RecordedName
		if len(rest) > 0 {
			name = rest[0]
		}
		res, err = overlap.Recorded(name)
	case *load != "":
		res, err = overlap.Load(os.DirFS(*load), ".")
	default:
		if len(rest) > 0 {
			return fail(fs, stderr, 2, "unexpected arguments %q (script flags go after --)", rest)
		}
		if _, cerr := launch.OverlapBench.Command(o, launch.OverlapBench.Name, nil); cerr != nil {
			return fail(fs, stderr, 2, "%v", cerr)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if o.Launcher == "none" || o.Launcher == "" {
			// torchrun starts python3 too, but on another host; here the
			// check says plainly what is missing before the script fails.
			if terr := launch.TorchCUDA(ctx); terr != nil {
				return fail(fs, stderr, 1, "%v (commlab probe overlap --recorded shows the H200 recording)", terr)
			}
		}
		res, err = overlap.Run(ctx, overlap.Config{Launch: o, What: *what, Args: scriptArgs, OutDir: *keep, Stdout: stderr, Stderr: stderr})
	}
	if res != nil {
		if *jsonOut {
			if werr := writeJSON(stdout, res); werr != nil {
				return fail(fs, stderr, 1, "%v", werr)
			}
		} else if werr := res.WriteSummary(stdout); werr != nil {
			return fail(fs, stderr, 1, "%v", werr)
		}
	}
	if *save != "" && res != nil && res.Run != nil {
		if serr := res.Run.Save(*save); serr != nil {
			return fail(fs, stderr, 1, "%v", serr)
		}
	}
	if err != nil {
		return fail(fs, stderr, 1, "%v", err)
	}
	if res != nil && res.Run != nil && res.Run.Error != "" {
		return fail(fs, stderr, 1, "%s", res.Run.Error)
	}
	if res != nil && len(res.Errors) > 0 {
		return fail(fs, stderr, 1, "the benchmark reported %d error(s): %s", len(res.Errors), strings.Join(res.Errors, "; "))
	}
	return 0
}
