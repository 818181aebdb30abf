package launch

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/probes"
)

// ErrNotInstalled is wrapped in the error of a run whose tool or launcher
// is not on this machine: "launch: all_reduce_perf is not installed here
// (...)".
var ErrNotInstalled = errors.New("not installed here")

// Launchers are the launchers Command knows: "none" runs the program
// itself.
var Launchers = []string{"none", "mpirun", "srun", "torchrun"}

// Options say how to start a program: directly, or through the user's
// launcher with its process layout, and with extra environment variables.
type Options struct {
	// Launcher is one of Launchers; "" means "none".
	Launcher string
	// Hostfile is mpirun's --hostfile.
	Hostfile string
	// Procs is the total number of processes (mpirun -np, srun -n).
	Procs int
	// PerNode is the number of processes per node.
	PerNode int
	// Nodes is the number of nodes (srun -N, torchrun --nnodes).
	Nodes int
	// Env holds NAME=VALUE settings for the program; mpirun forwards them
	// with -x, srun with --export=ALL.
	Env []string
}

// AddFlags defines the launcher flags on fs, filling o: --launcher,
// --hostfile, --np, --per-node, --nodes and the repeatable --env.
func (o *Options) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Launcher, "launcher", "none", "none, mpirun, srun or torchrun (python programs only)")
	fs.StringVar(&o.Hostfile, "hostfile", "", "mpirun hostfile")
	fs.IntVar(&o.Procs, "np", 0, "total processes (mpirun -np, srun -n)")
	fs.IntVar(&o.PerNode, "per-node", 0, "processes per node")
	fs.IntVar(&o.Nodes, "nodes", 0, "nodes (srun -N, torchrun --nnodes)")
	fs.Func("env", "NAME=VALUE passed to the tool (repeatable)", func(kv string) error {
		o.Env = append(o.Env, kv)
		return nil
	})
}

// envMap checks the NAME=VALUE settings and returns them as a map.
func (o Options) envMap() (map[string]string, []string, error) {
	env := map[string]string{}
	names := make([]string, 0, len(o.Env))
	for _, kv := range o.Env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, nil, fmt.Errorf("launch: --env %q: want NAME=VALUE", kv)
		}
		env[k] = v
		names = append(names, k)
	}
	return env, names, nil
}

// Command wraps program and its arguments in the chosen launcher and
// returns the command line to run. torchrun starts Python programs only.
func Command(o Options, program string, args []string) ([]string, error) {
	_, envNames, err := o.envMap()
	if err != nil {
		return nil, err
	}
	var cmd []string
	switch o.Launcher {
	case "none", "":
		return append([]string{program}, args...), nil
	case "mpirun":
		cmd = []string{"mpirun"}
		if o.Hostfile != "" {
			cmd = append(cmd, "--hostfile", o.Hostfile)
		}
		cmd = appendCount(cmd, "-np", o.Procs)
		if o.PerNode > 0 {
			cmd = append(cmd, "--map-by", "ppr:"+strconv.Itoa(o.PerNode)+":node")
		}
		cmd = append(cmd, "--bind-to", "none")
		for _, k := range envNames {
			cmd = append(cmd, "-x", k)
		}
	case "srun":
		cmd = appendCount([]string{"srun"}, "-N", o.Nodes)
		cmd = appendCount(cmd, "-n", o.Procs)
		cmd = appendCount(cmd, "--ntasks-per-node", o.PerNode)
		cmd = append(cmd, "--export=ALL")
	case "torchrun":
		if !strings.HasSuffix(program, ".py") {
			return nil, fmt.Errorf("launch: torchrun starts Python programs; %q is not one (use mpirun or srun)", program)
		}
		cmd = appendCount([]string{"torchrun"}, "--nnodes", o.Nodes)
		cmd = appendCount(cmd, "--nproc-per-node", o.PerNode)
	default:
		return nil, fmt.Errorf("launch: unknown launcher %q (%s)", o.Launcher, strings.Join(Launchers, ", "))
	}
	return append(append(cmd, program), args...), nil
}

// appendCount appends flag n when n is set.
func appendCount(cmd []string, flag string, n int) []string {
	if n > 0 {
		cmd = append(cmd, flag, strconv.Itoa(n))
	}
	return cmd
}

// ShellJoin quotes a command line as a POSIX shell would read it back.
func ShellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'$\\*?;&|<>()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}

// command makes the process for a command line, with the environment of
// this process plus o.Env; it fails with ErrNotInstalled when the program
// to start is not on this machine.
func command(ctx context.Context, o Options, cmdline []string) (*exec.Cmd, map[string]string, error) {
	env, _, err := o.envMap()
	if err != nil {
		return nil, nil, err
	}
	if _, err := exec.LookPath(cmdline[0]); err != nil {
		return nil, nil, fmt.Errorf("launch: %s is %w (%v)", cmdline[0], ErrNotInstalled, err)
	}
	cmd := exec.CommandContext(ctx, cmdline[0], cmdline[1:]...)
	cmd.Env = append(os.Environ(), o.Env...)
	return cmd, env, nil
}

// Tool is an external program to run and record: what commlab probe
// nccl-tests, nvbandwidth and perftest start.
type Tool struct {
	// Kind names the run ("nccl-tests").
	Kind string
	// Program is the tool's binary, a name on PATH or a path.
	Program string
	// Args are the tool's own arguments.
	Args []string
	Options
}

// Command returns the command line that Run starts.
func (t Tool) Command() ([]string, error) { return Command(t.Options, t.Program, t.Args) }

// Run starts the tool and waits for it. The returned run keeps the command,
// date, host, environment settings, and the tool's combined output in
// Logs["output"]; a tool that fails leaves its exit in Run.Error, not in
// the error, so its output is still there to parse. The error is for a
// tool that could not be started: ErrNotInstalled, or a bad Options.
func (t Tool) Run(ctx context.Context) (*probes.Run, error) {
	cmdline, err := t.Command()
	if err != nil {
		return nil, err
	}
	cmd, env, err := command(ctx, t.Options, cmdline)
	if err != nil {
		return nil, err
	}
	out, runErr := cmd.CombinedOutput()
	run := &probes.Run{Kind: t.Kind, Command: cmdline, Date: time.Now().UTC(), Env: env, Logs: map[string]string{"output": string(out)},
		Settings: map[string]string{"tool": t.Program, "launcher": t.Launcher}}
	if h, err := os.Hostname(); err == nil {
		run.Host = h
	}
	if runErr != nil {
		run.Error = fmt.Sprintf("%s: %v", cmdline[0], runErr)
	}
	return run, nil
}
