package overlap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/probes/measure"
	"github.com/commlab/commlab/probes/recorded"
)

// RecordedName is the recorded run of the benchmark on one H200.
const RecordedName = "torch-overlap-h200x1"

// Recorded loads the recorded run called name (probes/recorded) with its
// traces.
func Recorded(name string) (*Result, error) {
	return recorded.LoadBeside("overlap", name, Load, func(r *Result) **probes.Run { return &r.Run })
}

// Step is one invocation of the script in a live run: its output folder's
// name (the variants' Set, or "cq-" and the cases' Setting), its flags and
// its environment.
type Step struct {
	Name string
	Args []string
	Env  []string
}

// Steps are what Run does when Config.What is empty: the same folders as
// the recording (record_overlap.sh), so a live run reads like it. Under
// the two settings besides the default only the cases chapter 5 reads
// there run (the recording has all seven under each): each case is a
// profiler session of its own, about 0.6 s apiece in the recording (a cq
// step took 9 to 10 s in its steps.log, some 4.5 s of it start-up).
var Steps = []Step{
	{Name: "variants", Args: []string{"--what", "variants"}},
	{Name: "variants-allreduce-avg", Args: []string{"--what", "variants", "--coll", "all_reduce"}},
	{Name: "cq-default", Args: []string{"--what", "cq"}, Env: []string{"TORCH_CPP_LOG_LEVEL=INFO"}},
	{Name: "cq-blocking-wait", Args: []string{"--what", "cq", "--cases", "all_gather,modify_before_wait"},
		Env: []string{"TORCH_CPP_LOG_LEVEL=INFO", "TORCH_NCCL_BLOCKING_WAIT=1"}},
	{Name: "cq-avoid-record-streams", Args: []string{"--what", "cq", "--cases", "modify_before_wait,drop_input_before_wait,side_stream_no_record_stream"},
		Env: []string{"TORCH_CPP_LOG_LEVEL=INFO", "TORCH_NCCL_AVOID_RECORD_STREAMS=1"}},
}

// Config is a live run's settings.
type Config struct {
	// Launch is how to start the script: python3 (Launcher "none") on one
	// GPU, or torchrun with PerNode GPUs.
	Launch launch.Options
	// What is "variants", "cq" or "variants,cq" for one invocation of the
	// script; empty runs Steps, one invocation each.
	What string
	// Args are more of the script's own flags (--bytes, --gemm, --variants,
	// ...).
	Args []string
	// OutDir keeps the script's outputs (summary.json, the traces) there;
	// empty means a temporary folder, removed after reading.
	OutDir string
	// Stdout and Stderr get the script's output (nil: discarded).
	Stdout, Stderr io.Writer
}

// Run runs the benchmark live into a temporary folder and reads it.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	dir, remove, err := launch.OutputDir(cfg.OutDir, "commlab-overlap-out-")
	defer remove()
	if err != nil {
		return nil, fmt.Errorf("overlap: %w", err)
	}
	stdout, stderr := launch.Discarding(cfg.Stdout), launch.Discarding(cfg.Stderr)
	steps := []Step{{Name: ".", Args: []string{"--what", cfg.What}}}
	if cfg.What == "" {
		steps = Steps
	}
	outs, err := runSteps(ctx, cfg, dir, steps, &lockedWriter{w: stdout}, &lockedWriter{w: stderr})
	if err != nil {
		return nil, fmt.Errorf("overlap: %w", err)
	}
	var commands []string
	var runErrs []error
	logs := map[string]string{}
	for i, st := range steps {
		if kept := keptLog(outs[i].captured.String()); kept != "" {
			logs[st.Name] = kept
		}
		commands = append(commands, strings.TrimSpace(strings.Join(st.Env, " ")+" "+launch.ShellJoin(outs[i].cmdline)))
		if outs[i].err != nil {
			runErrs = append(runErrs, fmt.Errorf("%s: %w", st.Name, outs[i].err))
		}
	}
	runErr := errors.Join(runErrs...)
	res, err := Load(os.DirFS(dir), ".")
	if res != nil && res.Run != nil {
		res.Run.Command = []string{strings.Join(commands, "; ")}
		if len(logs) > 0 {
			if res.Run.Logs == nil {
				res.Run.Logs = map[string]string{}
			}
			for k, v := range logs {
				res.Run.Logs[k] = v
			}
		}
		if runErr != nil {
			res.Run.Error = runErr.Error()
		}
	}
	if res == nil || res.Run == nil {
		return nil, errors.Join(runErr, err)
	}
	return res, err
}

// Measurement is the chapter's view of a run: measure's banner (live or
// recorded, with the provenance) and the result.
type Measurement struct {
	*measure.Measurement
	Result *Result
}

// Measure runs the benchmark live when mode allows and this machine can
// (python3 with PyTorch that sees a GPU), else shows the recorded run
// called name; auto mode says in the banner why it fell back.
//
// Outside recorded mode the run starts at once, beside the check: both
// import torch (seconds), and the run's first step touches the GPU only
// when torch has loaded, as the check's does. A check that fails cancels
// the run and waits for its processes to end before falling back.
func Measure(ctx context.Context, mode measure.Mode, cfg Config, name string) (*Measurement, error) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	type liveRun struct {
		res *Result
		err error
	}
	var started chan liveRun
	if parsed, err := measure.ParseMode(string(mode)); err == nil && parsed != measure.ModeRecorded {
		started = make(chan liveRun, 1)
		go func() {
			res, err := Run(runCtx, cfg)
			started <- liveRun{res, err}
		}()
	}
	m, res, err := measure.Script(ctx, mode, "overlap", "benchmark", name, func() (string, error) {
		err := launch.TorchCUDA(ctx)
		if err != nil && started != nil {
			cancel()
			<-started
			started = nil
		}
		return "no PyTorch with a GPU here", err
	}, func() (*Result, error) {
		r := <-started
		return r.res, r.err
	}, func() (*Result, error) { return Recorded(name) }, func(r *Result) (*probes.Run, []string) { return r.Run, r.Errors })
	if m == nil {
		return nil, err
	}
	return &Measurement{Measurement: m, Result: res}, err
}
