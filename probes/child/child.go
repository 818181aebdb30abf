// Package child runs one probe in a child process of the commlab binary:
// a typed Request in (which probe, its settings), a *probes.Run out. It is
// the one way a library isolates a measurement (a CUDA context, NCCL's
// environment, a hang) from its own process: the doctor's live evidence,
// probes/measure's NCCL sweeps and `commlab probe nccl` itself call Run.
//
// The child side is the hidden verb Verb of the commlab command, which
// calls Serve: it decodes the request from standard input and calls the
// same package function the probe's verb calls (cuda.MeasureBandwidth,
// launch.Tool.Run), or, for NCCL, serves nccl.MeasureInChild's worker
// protocol (heartbeats, progress, abort). Request.Command is the command a
// person would type for the same run, display text for banners, the
// doctor's sources and launch plans; nothing runs it.
//
// The package does not parse flags, print runs or read tool outputs: the
// commlab command, the probes' packages and the parsers do.
package child

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/cuda"
	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/probes/nccl"
)

// Probe names what a Request runs.
type Probe string

// The probes a child runs.
const (
	// Bandwidth times copies (cuda.MeasureBandwidth); Request.Bandwidth.
	Bandwidth Probe = "bandwidth"
	// NCCL sweeps collectives (nccl.MeasureInChild, or
	// nccl.MeasureTopologyEdit with Request.TopologyEdit); Request.NCCL.
	NCCL Probe = "nccl"
	// NCCLTests runs an nccl-tests binary (launch.Tool.Run); Request.Tool.
	// The run keeps its output in Logs["output"] for the caller to parse.
	NCCLTests Probe = "nccl-tests"
	// TorchScript writes the PyTorch reference script to stdout; only its
	// Command is used (a launch plan runs it on every node).
	TorchScript Probe = "torch-script"
	// C10d is chapter 5's c10d experiments; only its Command is used (the
	// banner of a recording says how to record it again).
	C10d Probe = "c10d"
)

// C10dSettings are the settings of a c10d run (C10d) as recorded: the
// backend, the parts, and the script's own flags.
type C10dSettings struct {
	Backend    string   `json:"backend,omitempty"`
	Parts      string   `json:"parts,omitempty"`
	ScriptArgs []string `json:"script_args,omitempty"`
}

// Request is one probe and its settings.
type Request struct {
	Probe     Probe                `json:"probe"`
	Bandwidth cuda.BandwidthConfig `json:"bandwidth,omitzero"`
	NCCL      nccl.Config          `json:"nccl,omitzero"`
	// TopologyEdit, with NCCL, runs twice: on the detected topology and
	// on it edited (an ncclxml edit name).
	TopologyEdit string       `json:"topology_edit,omitempty"`
	Tool         launch.Tool  `json:"tool,omitzero"`
	C10d         C10dSettings `json:"c10d,omitzero"`
}

// Options say how Run starts the child and where its output goes.
type Options struct {
	// Exe is the commlab binary the child runs (with Verb); empty means
	// this executable, which must then be the commlab binary.
	Exe string
	// Command, when set, starts the child instead: an executable whose
	// main calls Serve, with its arguments (a test's stand-in).
	Command []string
	// Log receives the child's standard output and error; nil discards
	// them (an NCCL run keeps them in the run's Logs either way).
	Log io.Writer
}

// Verb is the commlab command's hidden verb that runs the child side.
const Verb = "probe-child"

// ErrNoChild says no child can be started: this process is not the
// commlab binary and Options.Command is not set.
var ErrNoChild = errors.New("child: no child command")

// noChild is an ErrNoChild that says why in its own words (notebooks
// show them in a measurement's banner).
type noChild struct{ why string }

func (e noChild) Error() string { return e.why }
func (e noChild) Unwrap() error { return ErrNoChild }

// executable is os.Executable; tests replace it.
var executable = os.Executable

// commlabBinary is the base name of the commlab command.
const commlabBinary = "commlab"

// argv is the command that starts the child.
func (o Options) argv() ([]string, error) {
	if len(o.Command) > 0 {
		return append([]string(nil), o.Command...), nil
	}
	exe, err := o.Exe, error(nil)
	if exe != "" {
		return []string{exe, Verb}, nil
	}
	if exe, err = executable(); err != nil {
		return nil, noChild{fmt.Sprintf("cannot find this executable to start the child: %v", err)}
	}
	if filepath.Base(exe) != commlabBinary {
		return nil, noChild{fmt.Sprintf("live NCCL runs in a child process started from the commlab binary, and this process is %s: run the notebook in the commlab kernel or `commlab run`, or set Runner.NCCLCommand", filepath.Base(exe))}
	}
	return []string{exe, Verb}, nil
}

// envelope is what the parent writes to the child's standard input: the
// request and the file the child saves the run to.
type envelope struct {
	Request Request `json:"request"`
	Result  string  `json:"result"`
}

// Run runs req in a child process and returns its run, whose Command is
// req.Command(). As the probes' own functions do, it returns a run with an
// error when the probe stopped part way, and no run when nothing was
// measured.
func Run(ctx context.Context, req Request, opt Options) (*probes.Run, error) {
	argv, err := opt.argv()
	if err != nil {
		return nil, err
	}
	var run *probes.Run
	switch req.Probe {
	case NCCL:
		if req.TopologyEdit != "" {
			run, err = nccl.MeasureTopologyEdit(ctx, req.NCCL, req.TopologyEdit, argv)
		} else {
			run, err = nccl.MeasureInChild(ctx, req.NCCL, argv)
		}
	case Bandwidth, NCCLTests:
		run, err = runServed(ctx, req, argv, opt.Log)
	default:
		return nil, fmt.Errorf("child: a %q request does not run", req.Probe)
	}
	if run != nil {
		run.Command = req.Command()
	}
	return run, err
}

// runServed starts argv with the request on its standard input and loads
// the run it saves.
func runServed(ctx context.Context, req Request, argv []string, log io.Writer) (*probes.Run, error) {
	dir, err := os.MkdirTemp("", "commlab-child-")
	if err != nil {
		return nil, fmt.Errorf("child: %w", err)
	}
	defer os.RemoveAll(dir)
	in, err := json.Marshal(envelope{Request: req, Result: filepath.Join(dir, "run.json")})
	if err != nil {
		return nil, fmt.Errorf("child: %w", err)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(string(in))
	var tail strings.Builder
	out := io.Writer(&tail)
	if log != nil {
		out = io.MultiWriter(log, &tail)
	}
	cmd.Stdout, cmd.Stderr = out, out
	runErr := cmd.Run()
	run, err := probes.LoadRun(filepath.Join(dir, "run.json"))
	if err != nil {
		if runErr != nil {
			return nil, fmt.Errorf("child: %s: %w: %s", req.Probe, runErr, launch.LastLine(tail.String()))
		}
		return nil, fmt.Errorf("child: %s: %w", req.Probe, err)
	}
	return run, nil
}

// Serve is the child side, what Verb runs: an NCCL worker when
// nccl.MeasureInChild started this process, else the request on stdin,
// run by the probe's own function and saved where the parent reads it.
func Serve(ctx context.Context, stdin io.Reader, stderr io.Writer) error {
	if nccl.IsWorker() {
		return nccl.ServeWorker(stderr)
	}
	var env envelope
	if err := json.NewDecoder(stdin).Decode(&env); err != nil {
		return fmt.Errorf("child: request: %w", err)
	}
	run, err := serve(ctx, env.Request)
	if run == nil {
		return err
	}
	if err != nil && run.Error == "" {
		run.Error = err.Error()
	}
	return run.Save(env.Result)
}

// serve runs one request in this process.
func serve(ctx context.Context, req Request) (*probes.Run, error) {
	switch req.Probe {
	case Bandwidth:
		return measureBandwidth(req.Bandwidth)
	case NCCLTests:
		run, err := req.Tool.Run(ctx)
		if err == nil {
			describeMachine(run)
		}
		return run, err
	}
	return nil, fmt.Errorf("child: a %q request does not run in a served child", req.Probe)
}

// The probes' functions Serve calls; tests replace them.
var (
	measureBandwidth = cuda.MeasureBandwidth
	describeMachine  = func(run *probes.Run) {
		if info, err := cuda.Open(); err == nil {
			info.Describe(run)
		}
	}
)
