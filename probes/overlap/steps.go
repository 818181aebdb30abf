package overlap

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/commlab/commlab/probes/launch"
)

// invocationRun is what one process of the script left: the command line
// it ran, its output (for ProcessGroupNCCL's log lines) and its error.
type invocationRun struct {
	cmdline  []string
	captured bytes.Buffer
	err      error
}

// args are the script's flags for inv writing under dir, with extra (the
// caller's own flags) after each step's so that they win. A lone step
// named "." writes into dir itself, without --step.
func (inv Invocation) args(dir string, extra []string) []string {
	if len(inv.Steps) == 1 && inv.Steps[0].Name == "." {
		return append(append([]string{"--out", dir}, inv.Steps[0].Args...), extra...)
	}
	args := []string{"--out", dir}
	for _, st := range inv.Steps {
		args = append(append(append(args, "--step", st.Name), st.Args...), extra...)
	}
	return args
}

// names lists inv's steps, for errors.
func (inv Invocation) names() string {
	var n []string
	for _, st := range inv.Steps {
		n = append(n, st.Name)
	}
	return strings.Join(n, ",")
}

// runInvocations runs the invocations one after another on the GPU, each
// in a process of its own (see Invocations for why a setting needs its
// own). Under python3 the next invocation's process is started while the
// current one runs and waits (--start-after) until it has ended before it
// touches the GPU: Python's and torch's start-up, a few seconds, then
// overlaps the previous one's GPU work instead of adding to it, and no two
// invocations ever share the GPU. Under a launcher (torchrun) they run
// strictly one after another, since two launchers would contend for the
// rendezvous port.
func runInvocations(ctx context.Context, cfg Config, dir string, invs []Invocation, stdout, stderr io.Writer) ([]*invocationRun, error) {
	outs := make([]*invocationRun, len(invs))
	pipelined := len(invs) > 1 && (cfg.Launch.Launcher == "" || cfg.Launch.Launcher == "none")
	var gates string
	if pipelined {
		var err error
		if gates, err = os.MkdirTemp("", "commlab-overlap-gates-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(gates)
	}
	gate := func(i int) string { return filepath.Join(gates, fmt.Sprintf("invocation-%d", i)) }
	done := make([]chan struct{}, len(invs))
	start := func(i int) {
		inv := invs[i]
		o := cfg.Launch
		o.Env = append(append([]string(nil), o.Env...), inv.Env...)
		args := inv.args(dir, cfg.Args)
		if pipelined {
			// Before the first --step: the gate is the whole process's.
			args = append([]string{args[0], args[1], "--start-after", gate(i)}, args[2:]...)
		}
		out := &invocationRun{}
		outs[i], done[i] = out, make(chan struct{})
		go func() {
			defer close(done[i])
			out.cmdline, out.err = launch.OverlapBench.Run(ctx, o, args, io.MultiWriter(stdout, &out.captured), io.MultiWriter(stderr, &out.captured))
			out.cmdline = withoutGate(out.cmdline)
		}()
	}
	release := func(i int) error {
		if !pipelined {
			return nil
		}
		return os.WriteFile(gate(i), nil, 0o644)
	}
	cancelled := false
	for i := range invs {
		if cancelled {
			outs[i] = &invocationRun{err: ctx.Err()}
			continue
		}
		if done[i] == nil {
			start(i)
		}
		if pipelined && i+1 < len(invs) {
			start(i + 1) // imports torch while invocation i runs, then waits for its gate
		}
		if err := release(i); err != nil {
			return nil, err
		}
		<-done[i]
		if ctx.Err() != nil {
			cancelled = true
		}
	}
	if cancelled && pipelined {
		// A started process that was never released ends with ctx.
		for i := range invs {
			if done[i] != nil {
				<-done[i]
			}
		}
	}
	return outs, nil
}

// withoutGate drops --start-after and its file from a command line: how
// the steps were scheduled, not what a user would type to repeat one.
func withoutGate(cmdline []string) []string {
	var kept []string
	for i := 0; i < len(cmdline); i++ {
		if cmdline[i] == "--start-after" {
			i++
			continue
		}
		kept = append(kept, cmdline[i])
	}
	return kept
}

// lockedWriter serialises writes from the two processes that may run at
// once (one on the GPU, the next one starting).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
