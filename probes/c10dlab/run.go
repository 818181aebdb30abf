package c10dlab

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

// Recorded names: the gloo run on CPU ranks, and the NCCL run on one H200.
const (
	RecordedCPU  = "torch-c10d-cpu"
	RecordedH200 = "torch-c10d-h200x1"
)

// Recorded loads the recorded run called name: its provenance
// (probes/recorded's name.json) and its summary (the folder name/). A name
// not recorded fails with recorded.ErrNotFound.
func Recorded(name string) (*Result, error) {
	return recorded.LoadBeside("c10dlab", name, Load, func(r *Result) **probes.Run { return &r.Run })
}

// Config is a live run's settings.
type Config struct {
	// Backend is gloo (CPU ranks) or nccl (the GPUs here).
	Backend string
	// Parts lists the experiments; empty runs them all.
	Parts []string
	// Args are more of the script's own flags (--timeout, --modes, ...).
	Args []string
	// OutDir keeps summary.json there; empty means a temporary folder.
	OutDir string
	// Stdout and Stderr get the script's output (nil: discarded).
	Stdout, Stderr io.Writer
}

// Args returns the script's flags for cfg, --out excepted.
func (cfg Config) args() ([]string, error) {
	backend := cfg.Backend
	if backend == "" {
		backend = "gloo"
	}
	if backend != "gloo" && backend != "nccl" {
		return nil, fmt.Errorf("c10dlab: backend %q: want gloo or nccl", backend)
	}
	args := []string{"--backend", backend}
	if len(cfg.Parts) > 0 {
		for _, p := range cfg.Parts {
			if !known(p) {
				return nil, fmt.Errorf("c10dlab: part %q: want one of %s", p, strings.Join(Parts, ", "))
			}
		}
		args = append(args, "--parts", strings.Join(cfg.Parts, ","))
	}
	return append(args, cfg.Args...), nil
}

// Run runs the script live and reads what it wrote.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	args, err := cfg.args()
	if err != nil {
		return nil, err
	}
	dir, remove, err := launch.OutputDir(cfg.OutDir, "commlab-c10d-")
	defer remove()
	if err != nil {
		return nil, fmt.Errorf("c10dlab: %w", err)
	}
	_, runErr := launch.C10dLab.Run(ctx, launch.Options{}, append([]string{"--out", dir}, args...), launch.Discarding(cfg.Stdout), launch.Discarding(cfg.Stderr))
	res, err := Load(os.DirFS(dir), ".")
	if res == nil {
		return nil, errors.Join(runErr, err)
	}
	if runErr != nil {
		res.Run.Error = runErr.Error()
	}
	return res, err
}

// Measurement is the chapter's view of a run: measure's banner and the
// result.
type Measurement struct {
	*measure.Measurement
	Result *Result
}

// Measure runs the experiments live when mode allows and this machine can
// (python3 with PyTorch; for NCCL also a GPU), else shows the recorded run
// called name; auto mode says in the banner why it fell back. A recorded
// name that is not (yet) recorded fails with recorded.ErrNotFound, so a
// chapter can say what awaits the recording.
func Measure(ctx context.Context, mode measure.Mode, cfg Config, name string) (*Measurement, error) {
	m, res, err := measure.Script(ctx, mode, "c10dlab", "script", name, func() (string, error) {
		if cfg.Backend == "nccl" {
			return "no PyTorch with a GPU here", launch.TorchCUDA(ctx)
		}
		return "no PyTorch here", launch.TorchAvailable(ctx)
	}, func() (*Result, error) { return Run(ctx, cfg) }, func() (*Result, error) { return Recorded(name) }, func(r *Result) (*probes.Run, []string) { return r.Run, r.Errors })
	if m == nil {
		return nil, err
	}
	return &Measurement{Measurement: m, Result: res}, err
}
