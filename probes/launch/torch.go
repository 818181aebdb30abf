package launch

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// torchBench is the PyTorch reference for commlab probe bandwidth|nccl
// --compare: copies and collectives timed as commlab times them, written
// as a commlab Run (its --out file).
//
//go:embed bench_torch.py
var torchBench []byte

// TorchBenchName is the file name the PyTorch reference script is written
// under.
const TorchBenchName = "bench_torch.py"

// TorchBench returns the PyTorch reference script's source. Its flags:
// --what copy,nccl; --out FILE (required); --copy-min, --copy-max,
// --nccl-min, --nccl-max (bytes); --colls; --warmup, --iters, --reps.
func TorchBench() []byte { return append([]byte(nil), torchBench...) }

// TorchBenchCommand returns the command line that runs the reference
// script at path with args: python3 runs it, or torchrun for several GPUs.
// The script reads torchrun's RANK and LOCAL_RANK, so mpirun and srun are
// refused.
func TorchBenchCommand(o Options, path string, args []string) ([]string, error) {
	switch o.Launcher {
	case "none", "":
		return Command(o, "python3", append([]string{path}, args...))
	case "torchrun":
		return Command(o, path, args)
	}
	return nil, fmt.Errorf("launch: %s reads torchrun's RANK and LOCAL_RANK; run it with --launcher none or torchrun, not %q", TorchBenchName, o.Launcher)
}

// RunTorchBench writes the reference script into a temporary folder and
// runs it with args (its own flags), its output going to stdout and
// stderr. The script writes the run to the file its --out names.
func RunTorchBench(ctx context.Context, o Options, args []string, stdout, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "commlab-torch-")
	if err != nil {
		return fmt.Errorf("launch: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, TorchBenchName)
	if err := os.WriteFile(path, torchBench, 0o644); err != nil {
		return fmt.Errorf("launch: %w", err)
	}
	cmdline, err := TorchBenchCommand(o, path, args)
	if err != nil {
		return err
	}
	cmd, _, err := command(ctx, o, cmdline)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("launch: %s: %w", TorchBenchName, err)
	}
	return nil
}
