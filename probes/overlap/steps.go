package overlap

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/commlab/commlab/probes/launch"
)

// stepRun is what one invocation of the script left: the command line it
// ran, its output (for ProcessGroupNCCL's log lines) and its error.
type stepRun struct {
	cmdline  []string
	captured bytes.Buffer
	err      error
}

// runSteps runs the steps one after another on the GPU, each in a process
// of its own: the chapter shows the settings ProcessGroupNCCL logged under
// each step's environment, and its constructor logs them only for the
// first group of a process (`if (local_id_ == 0)` before "ProcessGroupNCCL
// environments:" in ProcessGroupNCCL.cpp), so one process that made a new
// group per step would log only the first step's. Under python3 the
// next step's process is started while the current one runs and waits
// (--start-after) until it has ended before it touches the GPU: Python's
// and torch's start-up, a few seconds a step, then overlaps the previous
// step's GPU work instead of adding to it, and no two steps ever share the
// GPU. Under a launcher (torchrun) the steps run strictly one after
// another, since two launchers would contend for the rendezvous port.
func runSteps(ctx context.Context, cfg Config, dir string, steps []Step, stdout, stderr io.Writer) ([]*stepRun, error) {
	outs := make([]*stepRun, len(steps))
	pipelined := len(steps) > 1 && (cfg.Launch.Launcher == "" || cfg.Launch.Launcher == "none")
	var gates string
	if pipelined {
		var err error
		if gates, err = os.MkdirTemp("", "commlab-overlap-gates-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(gates)
	}
	gate := func(i int) string { return filepath.Join(gates, fmt.Sprintf("step-%d", i)) }
	done := make([]chan struct{}, len(steps))
	start := func(i int) {
		st := steps[i]
		o := cfg.Launch
		o.Env = append(append([]string(nil), o.Env...), st.Env...)
		args := append(append([]string{"--out", filepath.Join(dir, st.Name)}, st.Args...), cfg.Args...)
		if pipelined {
			args = append(args, "--start-after", gate(i))
		}
		out := &stepRun{}
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
	for i := range steps {
		if cancelled {
			outs[i] = &stepRun{err: ctx.Err()}
			continue
		}
		if done[i] == nil {
			start(i)
		}
		if pipelined && i+1 < len(steps) {
			start(i + 1) // imports torch while step i runs, then waits for its gate
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
		for i := range steps {
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
