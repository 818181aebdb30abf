package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/kvxfer"
	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/units"
)

// runProbeKVNixl runs chapter 7's KV transfer through NIXL on one GPU
// (kv_nixl.py, embedded), shows its recorded run, or prints the script.
func runProbeKVNixl(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab probe kv-nixl", stderr,
		"usage: commlab probe kv-nixl [--json] [--save RUN.json] [-- kv_nixl.py flags]",
		"       commlab probe kv-nixl --recorded [NAME] | --script > kv_nixl.py",
		"Moves KV-sized buffers from GPU memory to pinned host memory and back through NIXL (two agents, one GPU), whole and",
		"one descriptor per layer, beside the same copies through PyTorch. Needs python3 with PyTorch and NIXL (pip install nixl).",
		"kv_nixl.py flags: --min 16M --max 2G --layers 80 --reps 7 --warmup 2 --backend UCX --device 0")
	rec := fs.Bool("recorded", false, "show the recorded run ("+kvxfer.RecordedName+", or the name given)")
	script := fs.Bool("script", false, "write kv_nixl.py to stdout")
	mf := addMeasureFlags(fs, false)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *script {
		stdout.Write(launch.KVNixl.Source())
		return 0
	}
	var run *probes.Run
	var err error
	if *rec {
		name := kvxfer.RecordedName
		if fs.NArg() > 0 {
			name = fs.Arg(0)
		}
		if run, err = kvxfer.Recorded(name); err != nil {
			return fail(fs, stderr, 1, "%v", err)
		}
	} else {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if run, err = kvxfer.Run(ctx, kvxfer.Config{Args: fs.Args(), Stderr: stderr}); err != nil {
			return fail(fs, stderr, 1, "%v", err)
		}
	}
	return finishRun(run, nil, mf, stdout, stderr, writeKVNixl)
}

// writeKVNixl prints a KV transfer run as a table.
func writeKVNixl(w io.Writer, r *probes.Run) {
	fmt.Fprintf(w, "%-10s %-9s %10s %12s %12s %s\n", "op", "label", "bytes", "time", "rate", "bytes check")
	for _, s := range r.Samples {
		check := "ok"
		if s.Wrong > 0 {
			check = "WRONG"
		}
		fmt.Fprintf(w, "%-10s %-9s %10s %12s %12s %s\n", s.Op, s.Label, units.FormatSize(s.Bytes),
			units.Duration(s.MedianUS*1e-6), units.FormatRate(s.AlgBW*1e9), check)
	}
}
