package launch

import (
	"context"
	_ "embed"
	"io"
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

var torchBenchScript = Script{Name: TorchBenchName, Source: torchBench, TorchrunOnly: "torchrun's RANK and LOCAL_RANK"}

// TorchBenchCommand returns the command line that runs the reference
// script at path with args: python3 runs it, or torchrun for several GPUs.
// The script reads torchrun's RANK and LOCAL_RANK, so mpirun and srun are
// refused.
func TorchBenchCommand(o Options, path string, args []string) ([]string, error) {
	return torchBenchScript.Command(o, path, args)
}

// RunTorchBench writes the reference script into a temporary folder and
// runs it with args (its own flags), its output going to stdout and
// stderr. The script writes the run to the file its --out names.
func RunTorchBench(ctx context.Context, o Options, args []string, stdout, stderr io.Writer) error {
	_, err := torchBenchScript.Run(ctx, o, args, stdout, stderr)
	return err
}
