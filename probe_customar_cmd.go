package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/cuda"
	"github.com/commlab/commlab/probes/customar"
)

// runProbeCustomAllReduce builds and runs commlab's own custom all-reduce
// over CUDA IPC (probes/customar), or rebuilds its run from rank logs
// recorded elsewhere (--from-logs).
func runProbeCustomAllReduce(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab probe custom-allreduce", stderr,
		"usage: commlab probe custom-allreduce [flags]                       N processes here, one per GPU (two on one GPU share it)",
		"       commlab probe custom-allreduce --from-logs R0.log,R1.log [--provenance FILE] [--save RUN.json]",
		"Builds probes/customar's customar.cu with nvcc into a cache and times one-shot and two-shot all-reduces over CUDA IPC,",
		"checking every sum. Ranks that share a GPU time-slice: such a run proves the sums, not speed or cross-GPU ordering.")
	cfg := customar.Config{}
	fs.IntVar(&cfg.Ranks, "ranks", 2, "processes (ranks), at most 8")
	device := fs.Int("device", -1, "put every rank on this GPU (-1: rank r on GPU r modulo the GPUs present)")
	lo := fs.String("b", "8", "smallest size")
	hi := fs.String("e", "8M", "largest size (sizes double)")
	fs.IntVar(&cfg.Iters, "iters", 20, "timed calls per size")
	fs.IntVar(&cfg.Warmup, "warmup", 5, "untimed calls per size")
	algos := fs.String("algos", "oneshot,twoshot", "oneshot, twoshot or both")
	fs.IntVar(&cfg.Blocks, "blocks", 36, "CUDA blocks per kernel (at most 64)")
	fs.IntVar(&cfg.Threads, "threads", 512, "threads per block")
	fs.DurationVar(&cfg.Timeout, "timeout", 10*time.Second, "deadline of each flag wait inside the kernels")
	fs.StringVar(&cfg.CacheDir, "cache-dir", "", "where the program is built (default: the user cache directory)")
	fs.StringVar(&cfg.Arch, "arch", "native", "nvcc -arch")
	fromLogs := fs.String("from-logs", "", "comma-separated rank logs (rank 0 first) to build the run from, instead of measuring")
	prov := fs.String("provenance", "", "with --from-logs: the recording's provenance file (date, GPU, driver)")
	mf := addMeasureFlags(fs, false)
	if status, ok := parseOnlyFlags(fs, args, stderr); !ok {
		return status
	}
	var run *probes.Run
	var err error
	if *fromLogs != "" {
		var logs []string
		for _, f := range strings.Split(*fromLogs, ",") {
			b, rerr := os.ReadFile(f)
			if rerr != nil {
				return fail(fs, stderr, 1, "%v", rerr)
			}
			logs = append(logs, string(b))
		}
		if run, err = customar.FromLogs(logs); err != nil {
			return fail(fs, stderr, 1, "%v", err)
		}
		if *prov != "" {
			b, rerr := os.ReadFile(*prov)
			if rerr != nil {
				return fail(fs, stderr, 1, "%v", rerr)
			}
			customar.ReadProvenance(string(b)).Apply(run)
			run.Logs["provenance"] = string(b)
		}
		run.Command = []string{"bash", "probes/gpubench/ch7.sh"}
	} else {
		var a, b int64
		if a, err = parseSize(*lo); err == nil {
			b, err = parseSize(*hi)
		}
		if err != nil {
			return fail(fs, stderr, 2, "%v", err)
		}
		cfg.MinBytes, cfg.MaxBytes = a, b
		cfg.Algos = strings.Split(*algos, ",")
		if *device >= 0 {
			cfg.SameGPU, cfg.Device = true, *device
		}
		if cfg.Iters <= 0 || cfg.Warmup < 0 || cfg.Timeout <= 0 || cfg.Ranks <= 0 {
			return fail(fs, stderr, 2, "--ranks, --iters and --timeout must be positive, --warmup not negative")
		}
		if err := cfg.Validate(); err != nil {
			return fail(fs, stderr, 2, "%v", err)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		run, err = customar.Measure(ctx, cfg)
		if run == nil {
			return fail(fs, stderr, 1, "%v", err)
		}
		run.Command = append([]string{"commlab", "probe", "custom-allreduce"}, args...)
		if info, cerr := cuda.Open(); cerr == nil && info.DriverRelease != "" {
			run.Driver = info.DriverRelease
		}
		if err != nil {
			run.Error = err.Error()
		}
	}
	return finishRun(run, nil, mf, stdout, stderr, writeCustomAllReduce)
}

// writeCustomAllReduce prints a custom all-reduce run as a table.
func writeCustomAllReduce(w io.Writer, r *probes.Run) {
	fmt.Fprintf(w, "# %s ranks, placement %s, grid %s x %s\n", r.Settings["ranks"], r.Settings["placement"], r.Settings["blocks"], r.Settings["threads"])
	fmt.Fprintf(w, "%-8s %10s %6s %12s %10s %10s %s\n", "algo", "bytes", "iters", "time(µs)", "algbw", "busbw", "sums")
	for _, s := range r.Samples {
		check := "ok"
		switch {
		case s.Wrong < 0:
			check = "unchecked"
		case s.Wrong > 0:
			check = fmt.Sprintf("WRONG on %d ranks", s.Wrong)
		}
		fmt.Fprintf(w, "%-8s %10d %6d %12.2f %10.3f %10.3f %s\n", s.Label, s.Bytes, s.Iters, s.MedianUS, s.AlgBW, s.BusBW, check)
	}
}
