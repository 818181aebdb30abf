package launch

import (
	"context"
	_ "embed"
	"fmt"
	"io"
)

// overlapBench is chapter 5's overlap micro-benchmark: GEMMs on the
// compute stream under a collective on ProcessGroupNCCL's stream, the
// variants that break the overlap, and the core question's cases, each
// recorded as a torch.profiler trace. probes/overlap reads what it writes.
//
//go:embed bench_overlap.py
var overlapBench []byte

// OverlapBenchName is the file name the overlap benchmark is written under.
const OverlapBenchName = "bench_overlap.py"

// OverlapBench returns the overlap benchmark's source. Its flags: --out DIR
// (required); --what variants,cq; --variants LIST; --coll; --bytes;
// --gemm; --gemms; --steps; --trace-steps; --cq-bytes; --cq-gemms.
func OverlapBench() []byte { return append([]byte(nil), overlapBench...) }

var overlapBenchScript = Script{Name: OverlapBenchName, Source: overlapBench, TorchrunOnly: "torchrun's LOCAL_RANK"}

// OverlapBenchCommand returns the command line that runs the overlap
// benchmark at path: python3 on one GPU, or torchrun for several. Like the
// PyTorch reference it reads torchrun's LOCAL_RANK, so mpirun and srun are
// refused.
func OverlapBenchCommand(o Options, path string, args []string) ([]string, error) {
	return overlapBenchScript.Command(o, path, args)
}

// RunOverlapBench writes the benchmark into a temporary folder and runs it
// with args (its own flags, --out among them), its output going to stdout
// and stderr. It returns the command line it ran.
func RunOverlapBench(ctx context.Context, o Options, args []string, stdout, stderr io.Writer) ([]string, error) {
	return overlapBenchScript.Run(ctx, o, args, stdout, stderr)
}

// ErrNoTorch is wrapped by TorchCUDA's error when python3 has no PyTorch
// or PyTorch sees no GPU.
var ErrNoTorch = fmt.Errorf("no PyTorch with a GPU here")

// TorchCUDA checks that python3 imports torch and that torch sees a GPU:
// what a live run of the PyTorch scripts needs. It fails with
// ErrNotInstalled when there is no python3, ErrNoTorch otherwise.
func TorchCUDA(ctx context.Context) error {
	return pythonImports(ctx, ErrNoTorch, "import sys\ntry:\n import torch\nexcept Exception as e:\n print('no torch:', e); sys.exit(3)\n"+
		"if not torch.cuda.is_available(): print('torch', torch.__version__, 'sees no GPU'); sys.exit(4)\n")
}

// ErrNoNIXL is wrapped by NIXLPython's error when python3 has no NIXL.
var ErrNoNIXL = fmt.Errorf("no NIXL Python package here")

// pythonImports runs a check program with python3; a failing check wraps
// missing with the program's first line of output.
func pythonImports(ctx context.Context, missing error, program string) error {
	cmd, _, err := command(ctx, Options{}, []string{"python3", "-c", program})
	if err != nil {
		return err
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("launch: %w: %s", missing, firstLine(string(out), err))
	}
	return nil
}

func firstLine(s string, err error) string {
	for i, c := range s {
		if c == '\n' {
			s = s[:i]
			break
		}
	}
	if s == "" {
		return err.Error()
	}
	return s
}
