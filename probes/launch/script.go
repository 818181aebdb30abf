package launch

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Script is a Python program commlab embeds (the PyTorch reference, the
// overlap benchmark, the hang lab) and runs from a temporary folder:
// python3 runs it on one machine, torchrun (the user's launcher) across
// GPUs when the script allows it.
type Script struct {
	Name   string // the file name it is written under: "bench_torch.py"
	source []byte
	// TorchrunOnly names what the script reads from torchrun ("torchrun's
	// LOCAL_RANK"); such a script refuses mpirun and srun. "" means the
	// script starts its own ranks and runs under python3 alone.
	TorchrunOnly string
}

// Source returns the script's text, a copy: what --print-script writes.
func (s Script) Source() []byte { return append([]byte(nil), s.source...) }

// Command returns the command line that runs the script at path with args:
// python3 on one machine, or the user's torchrun for a script that reads
// torchrun's variables; other launchers are refused.
func (s Script) Command(o Options, path string, args []string) ([]string, error) {
	switch o.Launcher {
	case "none", "":
		return Command(o, "python3", append([]string{path}, args...))
	case "torchrun":
		if s.TorchrunOnly != "" {
			return Command(o, path, args)
		}
	}
	if s.TorchrunOnly == "" {
		return nil, fmt.Errorf("launch: %s starts its own ranks; run it with --launcher none, not %q", s.Name, o.Launcher)
	}
	return nil, fmt.Errorf("launch: %s reads %s; run it with --launcher none or torchrun, not %q", s.Name, s.TorchrunOnly, o.Launcher)
}

// Run writes the script into a temporary folder and runs it with args (its
// own flags), its output going to stdout and stderr. It returns the
// command line it ran.
func (s Script) Run(ctx context.Context, o Options, args []string, stdout, stderr io.Writer) ([]string, error) {
	dir, err := os.MkdirTemp("", "commlab-script-")
	if err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, s.Name)
	if err := os.WriteFile(path, s.source, 0o644); err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	cmdline, err := s.Command(o, path, args)
	if err != nil {
		return nil, err
	}
	cmd, err := start(ctx, o, cmdline, stdout, stderr)
	if err != nil {
		return cmdline, err
	}
	if err := cmd.Wait(); err != nil {
		return cmdline, fmt.Errorf("launch: %s: %w", s.Name, err)
	}
	return cmdline, nil
}

// OutputDir is the folder a script writes into: dir, made if needed, or a
// new temporary folder named after pattern (os.MkdirTemp) when dir is "".
// The returned func removes the temporary folder, and nothing else.
func OutputDir(dir, pattern string) (string, func(), error) {
	if dir != "" {
		return dir, func() {}, os.MkdirAll(dir, 0o755)
	}
	tmp, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", func() {}, err
	}
	return tmp, func() { os.RemoveAll(tmp) }, nil
}

// Discarding returns w, or io.Discard when w is nil: for a caller's
// optional writers that the script's output is copied to.
func Discarding(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
