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

// Step is one output folder of a live run: its name (the variants' Set,
// or "cq-" and the cases' Setting) and the script's flags for it.
type Step struct {
	Name string
	Args []string
}

// Invocation is one process of the script: its environment and the steps
// it runs one after another on one group. The steps of an invocation share
// ProcessGroupNCCL's settings (read from the environment when the group is
// made), the CUDA context and the profiler's start-up: a process's first
// profiler session loads CUPTI, about 5 s on an H100 (torch 2.11, CUDA 13).
type Invocation struct {
	Env   []string
	Steps []Step
}

// LogEnv makes ProcessGroupNCCL log the settings it read (INFO lines).
const LogEnv = "TORCH_CPP_LOG_LEVEL=INFO"

// Invocations are what Run does when Config.What is empty: the folders of
// the recording (record_overlap.sh), so a live run reads like it, in one
// process per setting instead of the recording's one per folder. A setting
// needs a process of its own: ProcessGroupNCCL logs the settings it read
// only for a process's first group (`if (local_id_ == 0)` before
// "ProcessGroupNCCL environments:" in ProcessGroupNCCL.cpp), and the chapter
// shows that line per setting. Under the two settings besides the default
// only the cases chapter 5 reads there run (the recording has all seven
// under each): each case is a profiler session of its own.
var Invocations = []Invocation{
	{Env: []string{LogEnv}, Steps: []Step{
		{Name: "variants", Args: []string{"--what", "variants"}},
		{Name: "variants-allreduce-avg", Args: []string{"--what", "variants", "--coll", "all_reduce"}},
		{Name: "cq-default", Args: []string{"--what", "cq"}},
	}},
	{Env: []string{LogEnv, "TORCH_NCCL_BLOCKING_WAIT=1"}, Steps: []Step{
		{Name: "cq-blocking-wait", Args: []string{"--what", "cq", "--cases", "all_gather,modify_before_wait"}},
	}},
	{Env: []string{LogEnv, "TORCH_NCCL_AVOID_RECORD_STREAMS=1"}, Steps: []Step{
		{Name: "cq-avoid-record-streams", Args: []string{"--what", "cq", "--cases", "modify_before_wait,drop_input_before_wait,side_stream_no_record_stream"}},
	}},
}

// Config is a live run's settings.
type Config struct {
	// Launch is how to start the script: python3 (Launcher "none") on one
	// GPU, or torchrun with PerNode GPUs.
	Launch launch.Options
	// What is "variants", "cq" or "variants,cq" for one invocation of the
	// script; empty runs Invocations.
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
	invs := []Invocation{{Steps: []Step{{Name: ".", Args: []string{"--what", cfg.What}}}}}
	if cfg.What == "" {
		invs = Invocations
	}
	outs, err := runInvocations(ctx, cfg, dir, invs, &lockedWriter{w: stdout}, &lockedWriter{w: stderr})
	if err != nil {
		return nil, fmt.Errorf("overlap: %w", err)
	}
	var commands []string
	var runErrs []error
	logs := map[string]string{}
	for i, inv := range invs {
		// Every step of an invocation ran on its one group: each keeps
		// what that group logged.
		kept := keptLog(outs[i].captured.String())
		for _, st := range inv.Steps {
			if kept != "" {
				logs[st.Name] = kept
			}
		}
		commands = append(commands, strings.TrimSpace(strings.Join(inv.Env, " ")+" "+launch.ShellJoin(outs[i].cmdline)))
		if outs[i].err != nil {
			runErrs = append(runErrs, fmt.Errorf("%s: %w", inv.names(), outs[i].err))
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
