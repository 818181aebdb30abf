package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
)

// Process is a program Start started: one side of a two-process probe (the
// RDMA server and client), or a build step, whose output goes to the
// writers the caller gave while it runs.
type Process struct {
	// Cmdline is the command line that started it, launcher included.
	Cmdline []string
	cmd     *exec.Cmd
}

// Start starts program with args, through o's launcher when one is set,
// with its stdout and stderr going to the given writers, and returns
// without waiting. It fails with ErrNotInstalled when the program (or the
// launcher) is not on this machine. Cancelling ctx kills the process.
func Start(ctx context.Context, o Options, program string, args []string, stdout, stderr io.Writer) (*Process, error) {
	cmdline, err := Command(o, program, args)
	if err != nil {
		return nil, err
	}
	cmd, err := start(ctx, o, cmdline, stdout, stderr)
	if err != nil {
		return nil, err
	}
	return &Process{Cmdline: cmdline, cmd: cmd}, nil
}

// start starts a command line with o's environment, its output going to
// stdout and stderr, and returns without waiting.
func start(ctx context.Context, o Options, cmdline []string, stdout, stderr io.Writer) (*exec.Cmd, error) {
	cmd, _, err := command(ctx, o, cmdline)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("launch: start %s: %w", cmdline[0], err)
	}
	return cmd, nil
}

// Wait waits for the process to end and returns its exit status: 0, the
// program's exit code, or -1 with the error when it did not exit normally
// (killed by a signal, or its output could not be copied).
func (p *Process) Wait() (int, error) {
	err := p.cmd.Wait()
	if err == nil {
		return 0, nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		return ee.ExitCode(), nil
	}
	return -1, fmt.Errorf("launch: %s: %w", p.Cmdline[0], err)
}
