package main

// The probes that run a script commlab carries (probes/launch embeds
// them) with python3 or through the user's launcher: torch (the PyTorch
// reference --compare reads), overlap and c10d (chapter 5), hang (chapter
// 6) and kv-nixl (chapter 7). Each can print its script (--script); those
// with recordings show them (--recorded). Running and reading the scripts'
// outputs are the probes' own packages' (probes/launch, probes/overlap,
// probes/c10dlab, probes/kvxfer); this file reads flags and prints.

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/commlab/commlab/probes/cli"

	"github.com/commlab/commlab/probes/c10dlab"
	"github.com/commlab/commlab/probes/kvxfer"
	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/probes/overlap"
)

var probeTorchUsage = []string{
	"usage: commlab probe torch [--launcher none|torchrun] [--per-node N] [--nodes N] [--dry-run] -- --out RUN.json [bench_torch.py flags]",
	"       commlab probe torch --script > bench_torch.py",
	"Runs the PyTorch reference (copies and collectives timed as commlab times them) and writes a run for --compare.",
	"bench_torch.py flags: --what copy,nccl --out FILE --copy-min B --copy-max B --nccl-min B --nccl-max B --colls LIST --warmup N --iters N --reps N",
}

// runProbeTorch runs the PyTorch reference that commlab carries, or writes
// it out with --script.
func runProbeTorch(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	var o launch.Options
	o.AddFlags(fs)
	dryRun := cli.AddDryRunFlag(fs)
	script := cli.AddScriptFlag(fs, launch.TorchBench.Name)
	args, scriptArgs := cli.ToolArgs(args)
	rest, status, ok := cli.Parse(fs, args)
	if !ok {
		return status
	}
	scriptArgs = append(rest, scriptArgs...)
	if *script {
		stdout.Write(launch.TorchBench.Source())
		return 0
	}
	cmdline, err := launch.TorchBench.Command(o, launch.TorchBench.Name, scriptArgs)
	if err != nil {
		return cli.Fail(fs, stderr, 2, "%v", err)
	}
	if *dryRun {
		fmt.Fprintln(stdout, launch.ShellJoin(cmdline))
		return 0
	}
	// An interrupt or a timeout's SIGTERM stops the script too.
	ctx, stop := cli.Interruptible()
	defer stop()
	if _, err := launch.TorchBench.Run(ctx, o, scriptArgs, stdout, stderr); err != nil {
		return cli.Fail(fs, stderr, 1, "%v", err)
	}
	return 0
}

func overlapResult(r *overlap.Result, err error) (*cli.ScriptResult, error) {
	if r == nil {
		return nil, err
	}
	return &cli.ScriptResult{Value: r, Summary: r.WriteSummary, Run: r.Run, Errors: r.Errors}, err
}

func c10dResult(r *c10dlab.Result, err error) (*cli.ScriptResult, error) {
	if r == nil {
		return nil, err
	}
	return &cli.ScriptResult{Value: r, Summary: r.WriteSummary, Run: r.Run, Errors: r.Errors}, err
}

var probeOverlapUsage = []string{
	"usage: commlab probe overlap [--launcher none|torchrun] [--per-node N] [--what variants|cq|variants,cq] [--keep DIR] [--json] [--save RUN.json] [-- bench_overlap.py flags]",
	"       commlab probe overlap --load DIR | --recorded [NAME] [--json] [--save RUN.json]",
	"       commlab probe overlap --script > bench_overlap.py",
	"Runs the overlap micro-benchmark (GEMMs under a collective on ProcessGroupNCCL's stream, the variants that break",
	"the overlap, the async/wait timestamps) with python3 or torchrun, and reads its torch.profiler traces.",
	"bench_overlap.py flags: --variants LIST --coll all_gather|reduce_scatter|all_reduce --bytes B --gemm N --gemms K --steps N --trace-steps N --cq-bytes B --cq-gemms N --cases LIST",
	"  and --step NAME [flags], repeated: several steps in one process and group, each into --out/NAME",
}

// runProbeOverlap runs chapter 5's overlap benchmark (bench_overlap.py),
// or reads a folder it wrote or its recording, through probes/overlap and
// parse/torchtrace.
func runProbeOverlap(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	var o launch.Options
	o.AddFlags(fs)
	what := fs.String("what", "", "variants, cq (the core question's cases) or variants,cq in one invocation; empty: the recording's five folders in three invocations, one per setting (all_gather and AVG all_reduce variants and the cases by default; the cases with TORCH_NCCL_BLOCKING_WAIT=1; with TORCH_NCCL_AVOID_RECORD_STREAMS=1)")
	sf := cli.AddScriptProbeFlags(fs, launch.OverlapBench.Name, overlap.RecordedName)
	dryRun := cli.AddDryRunFlag(fs)
	args, scriptArgs := cli.ToolArgs(args)
	rest, status, ok := cli.Parse(fs, args)
	if !ok {
		return status
	}
	return cli.ScriptProbe{Script: launch.OverlapBench, Recording: overlap.RecordedName, What: "benchmark",
		Recorded: func(name string) (*cli.ScriptResult, error) { return overlapResult(overlap.Recorded(name)) },
		Load:     func(dir string) (*cli.ScriptResult, error) { return overlapResult(overlap.Load(os.DirFS(dir), ".")) },
		DryRun: func() int {
			if err := (overlap.Config{Launch: o, What: *what, Args: scriptArgs}).WriteCommands(stdout); err != nil {
				return cli.Fail(fs, stderr, 2, "%v", err)
			}
			return 0
		},
		Run: func(rest []string) (int, *cli.ScriptResult, error) {
			if len(rest) > 0 {
				return cli.Fail(fs, stderr, 2, "unexpected arguments %q (script flags go after --)", rest), nil, nil
			}
			if _, cerr := launch.OverlapBench.Command(o, launch.OverlapBench.Name, nil); cerr != nil {
				return cli.Fail(fs, stderr, 2, "%v", cerr), nil, nil
			}
			ctx, stop := cli.Interruptible()
			defer stop()
			if o.Launcher == "none" || o.Launcher == "" {
				// torchrun starts python3 too, but on another host; here the
				// check says plainly what is missing before the script fails.
				if terr := launch.TorchCUDA(ctx); terr != nil {
					return cli.Fail(fs, stderr, 1, "%v (commlab probe overlap --recorded shows the H200 recording)", terr), nil, nil
				}
			}
			res, err := overlapResult(overlap.Run(ctx, overlap.Config{Launch: o, What: *what, Args: scriptArgs, OutDir: *sf.Keep, Stdout: stderr, Stderr: stderr}))
			return 0, res, err
		},
	}.Main(fs, sf, *dryRun, rest, stdout, stderr)
}

var probeC10dUsage = []string{
	"usage: commlab probe c10d [--backend gloo|nccl] [--parts store,coalesce,timeout,compile] [--keep DIR] [--json] [--save RUN.json] [-- c10d_lab.py flags]",
	"       commlab probe c10d --load DIR | --recorded [NAME] [--json]",
	"       commlab probe c10d --script > c10d_lab.py",
	"Runs chapter 5's c10d experiments with python3 (which starts the ranks): the rendezvous store's traffic,",
	"small all_reduces one by one against coalesced, a collective timeout under each TORCH_NCCL_ASYNC_ERROR_HANDLING",
	"value (gloo: one rank never joins; nccl: the stream kept busy past the timeout), and a functional collective",
	"under torch.compile. c10d_lab.py flags: --world N --timeout S --stall S --modes LIST --dump-wait-ms MS --grace S --concurrent --counts LIST --sizes LIST --iters N",
}

// runProbeC10d runs chapter 5's c10d experiments (c10d_lab.py) on gloo
// CPU ranks or NCCL GPU ranks, read by probes/c10dlab.
func runProbeC10d(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	backend := fs.String("backend", "gloo", "gloo (CPU ranks) or nccl (the GPUs here)")
	parts := fs.String("parts", "", "experiments to run, comma-separated (default all): "+strings.Join(c10dlab.Parts, ","))
	sf := cli.AddScriptProbeFlags(fs, launch.C10dLab.Name, c10dlab.RecordedCPU)
	args, scriptArgs := cli.ToolArgs(args)
	rest, status, ok := cli.Parse(fs, args)
	if !ok {
		return status
	}
	return cli.ScriptProbe{Script: launch.C10dLab, Recording: c10dlab.RecordedCPU, What: "script", Unreadable: 2,
		Recorded: func(name string) (*cli.ScriptResult, error) { return c10dResult(c10dlab.Recorded(name)) },
		Load:     func(dir string) (*cli.ScriptResult, error) { return c10dResult(c10dlab.Load(os.DirFS(dir), ".")) },
		Run: func(rest []string) (int, *cli.ScriptResult, error) {
			if *backend != "gloo" && *backend != "nccl" {
				return cli.Fail(fs, stderr, 2, "--backend %q: want gloo or nccl", *backend), nil, nil
			}
			if len(rest) > 0 {
				return cli.Fail(fs, stderr, 2, "unexpected arguments %q (script flags go after --)", rest), nil, nil
			}
			list, err := c10dlab.PartsOf(*parts)
			if err != nil {
				return cli.Fail(fs, stderr, 2, "%v", err), nil, nil
			}
			ctx, stop := cli.Interruptible()
			defer stop()
			check := launch.TorchAvailable
			if *backend == "nccl" {
				check = launch.TorchCUDA
			}
			if terr := check(ctx); terr != nil {
				return cli.Fail(fs, stderr, 1, "%v (commlab probe c10d --recorded shows a recording)", terr), nil, nil
			}
			res, err := c10dResult(c10dlab.Run(ctx, c10dlab.Config{Backend: *backend, Parts: list, Args: scriptArgs, OutDir: *sf.Keep, Stdout: stderr, Stderr: stderr}))
			return 0, res, err
		},
	}.Main(fs, sf, false, rest, stdout, stderr)
}

var probeHangUsage = []string{
	"usage: commlab probe hang --scenario NAME --out DIR [--nproc N] [--timeout S] [--steps N --hang-at N --stuck-rank R] [--deadline S]",
	"       commlab probe hang --script > hang_torch.py",
	"Stages a hang on CPU ranks (torchrun, gloo, PyTorch 2.8 or later) with the Flight Recorder on, takes every",
	"rank's stack (faulthandler: DIR/stacks/rank_N.txt; py-spy dump when installed: DIR/stacks/rankN.txt;",
	"gdb's C++ threads, last, when gdb is on PATH: DIR/stacks/rankN.gdb.txt),",
	"lets the ranks time out and dump, and runs PyTorch's fr_trace; read the dumps with commlab parse flight-recorder DIR/fr,",
	"the whole run with commlab doctor --fr DIR/fr --stacks DIR/stacks. make hang-cpu installs torch and py-spy in a venv.",
	"Scenarios: " + strings.Join(launch.HangScenarios, ", "),
}

// runProbeHang runs chapter 6's hang lab (probes/launch's embedded
// hang_torch.py), or writes the script out with --script.
func runProbeHang(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	var o launch.HangOptions
	fs.StringVar(&o.Scenario, "scenario", "", "the hang to stage")
	fs.StringVar(&o.Out, "out", "", "the folder the dumps, stacks and reports go to")
	fs.IntVar(&o.NProc, "nproc", 0, "ranks (default 2; 64 for core)")
	fs.Float64Var(&o.TimeoutS, "timeout", 0, "init_process_group's timeout in seconds (default 15)")
	fs.IntVar(&o.Steps, "steps", 0, "core: all_reduces per rank (default 3000)")
	fs.IntVar(&o.HangAt, "hang-at", 0, "core: the step whose all_reduce one rank never calls (default 3000)")
	fs.IntVar(&o.StuckRank, "stuck-rank", 0, "core: the rank stuck in its data loader (default 37)")
	fs.Float64Var(&o.DeadlineS, "deadline", 0, "end the ranks after this many seconds (default 150)")
	script := cli.AddScriptFlag(fs, launch.HangLab.Name)
	if status, ok := cli.ParseOnly(fs, args, stderr); !ok {
		return status
	}
	if *script {
		stdout.Write(launch.HangLab.Source())
		return 0
	}
	if _, err := o.Args(); err != nil {
		return cli.Fail(fs, stderr, cli.ExitBadInput, "%v", err)
	}
	ctx, stop := cli.Interruptible()
	defer stop()
	if err := launch.RunHangLab(ctx, o, stdout, stderr); err != nil {
		return cli.Fail(fs, stderr, cli.ExitFailed, "%v", err)
	}
	fmt.Fprintf(stdout, "hang lab %s: results under %s\n", o.Scenario, o.Out)
	return 0
}

var probeKVNixlUsage = []string{
	"usage: commlab probe kv-nixl [--json] [--save RUN.json] [-- kv_nixl.py flags]",
	"       commlab probe kv-nixl --recorded [NAME] | --script > kv_nixl.py",
	"Moves KV-sized buffers from GPU memory to pinned host memory and back through NIXL (two agents, one GPU), whole and",
	"one descriptor per layer, beside the same copies through PyTorch. Needs python3 with PyTorch and NIXL (pip install nixl).",
	"kv_nixl.py flags: --min 16M --max 2G --layers 80 --reps 7 --warmup 2 --backend UCX --device 0",
}

// runProbeKVNixl runs chapter 7's KV transfer through NIXL on one GPU
// (kv_nixl.py, embedded), shows its recorded run, or prints the script.
func runProbeKVNixl(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	rec := cli.AddRecordedFlag(fs, kvxfer.RecordedName)
	script := cli.AddScriptFlag(fs, launch.KVNixl.Name)
	mf := cli.AddOutputFlags(fs, false)
	args, scriptArgs := cli.ToolArgs(args)
	rest, status, ok := cli.Parse(fs, args)
	if !ok {
		return status
	}
	if *script {
		stdout.Write(launch.KVNixl.Source())
		return 0
	}
	ctx, stop := cli.Interruptible()
	defer stop()
	run, err := kvxfer.Fetch(ctx, *rec, rest, kvxfer.Config{Args: append(rest, scriptArgs...), Stderr: stderr})
	if err != nil {
		return cli.Fail(fs, stderr, 1, "%v", err)
	}
	return cli.FinishRun(run, nil, mf, stdout, stderr, kvxfer.WriteTable)
}
