package nccl

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/cuda"
)

// Measure runs the configured collectives in this process over all local
// GPUs. NCCL reads its environment once, at first use: settings that must
// differ between runs need MeasureInChild.
func Measure(cfg Config) (*probes.Run, error) {
	cfg.defaults()
	t, err := LookupDType(cfg.DType)
	if err != nil {
		return nil, err
	}
	op, err := lookupOp(cfg.RedOp)
	if err != nil {
		return nil, err
	}
	for _, m := range cfg.Modes {
		if m != "out" && m != "in" {
			return nil, fmt.Errorf("nccl: mode %q: want out or in", m)
		}
	}
	for _, c := range cfg.Collectives {
		if !known(c) {
			return nil, fmt.Errorf("nccl: unknown collective %q (known: %s)", c, strings.Join(append(Collectives, UnpairedSend, StalledStream), ", "))
		}
	}
	info, err := cuda.Open()
	if err != nil {
		return nil, err
	}
	if err := load(); err != nil {
		return nil, err
	}
	ver, path, err := Version()
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	devs := cfg.Devices
	if devs == nil {
		for d := range info.Devices {
			devs = append(devs, d)
		}
	}
	if cfg.Root < 0 || cfg.Root >= len(devs) {
		return nil, fmt.Errorf("nccl: root %d out of range (%d ranks)", cfg.Root, len(devs))
	}
	run := &probes.Run{Kind: "nccl", Date: time.Now().UTC(), NCCL: ver, Env: ncclEnv(cfg.Env)}
	info.Describe(run)
	run.GPUCount = len(devs)
	run.Settings = map[string]string{
		"collectives": strings.Join(cfg.Collectives, ","), "dtype": t.Name, "redop": cfg.RedOp,
		"root": strconv.Itoa(cfg.Root), "modes": strings.Join(cfg.Modes, ","),
		"warmup": strconv.Itoa(cfg.Warmup), "iters": strconv.Itoa(cfg.Iters), "reps": strconv.Itoa(cfg.Reps),
		"check": strconv.FormatBool(cfg.Check), "timeout": cfg.Timeout.String(), "library": path,
		"timing": "CUDA events around iters back-to-back operations on every rank's stream; time per op = max over ranks / iters; median over reps",
	}
	if len(devs) == 1 {
		run.Notes = append(run.Notes, "n=1: one GPU, so NCCL runs each collective as a local copy; busbw factors give 0 for all_reduce, all_gather, reduce_scatter")
	}

	m, err := newMachine(devs, cfg.Timeout+initSlack, !cfg.Blocking, realClock{})
	if err != nil {
		return run, err
	}
	run.Settings["communicators"] = "non-blocking"
	if !m.nonBlocking {
		run.Settings["communicators"] = "blocking"
	}
	if !m.nonBlocking && !cfg.Blocking {
		run.Notes = append(run.Notes, "NCCL "+ver+" has no non-blocking communicators (2.14+): a hang inside NCCL cannot be aborted in-process")
	}
	if cfg.beat != nil {
		cfg.beat()
	}
	if cfg.checkpoint != nil {
		cfg.checkpoint(run)
	}
	total := len(cfg.Collectives) * len(cfg.Sizes) * len(cfg.Modes)
	done := 0
	for _, coll := range cfg.Collectives {
		samples, err := m.sweep(coll, t, op, cfg, func(what string) {
			done++
			if cfg.Progress != nil {
				cfg.Progress(done, total, what)
			}
		})
		run.Samples = append(run.Samples, samples...)
		if cfg.checkpoint != nil && err == nil {
			cfg.checkpoint(run)
		}
		if err != nil {
			run.Error = err.Error()
			var te *TimeoutError
			if errors.As(err, &te) {
				// sweep aborted the communicators before freeing buffers.
				m.closeAfterAbort()
				if te.Note != "" {
					run.Notes = append(run.Notes, te.Note)
				}
			} else {
				m.close()
			}
			return run, err
		}
	}
	return run, m.close()
}

// ncclEnv collects the variables that shape a run: NCCL_*, CUDA_* and the
// commlab library overrides, with extra on top.
func ncclEnv(extra map[string]string) map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if k == envWorkerConfig || k == envWorkerResult {
			continue
		}
		if strings.HasPrefix(k, "NCCL_") || strings.HasPrefix(k, "CUDA_") || strings.HasPrefix(k, "COMMLAB_") {
			env[k] = v
		}
	}
	for k, v := range extra {
		env[k] = v
	}
	return env
}
