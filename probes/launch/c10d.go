package launch

import (
	"context"
	_ "embed"
	"io"
)

// c10dLab is chapter 5's c10d experiments: the rendezvous store's traffic,
// coalesced against separate small collectives, a collective timeout under
// each TORCH_NCCL_ASYNC_ERROR_HANDLING value, and a functional collective
// under torch.compile. It starts its own ranks (gloo on CPU, or NCCL on
// the GPUs here) and writes summary.json; probes/c10dlab reads it.
//
//go:embed c10d_lab.py
var c10dLab []byte

// C10dLabName is the file name the c10d experiments are written under.
const C10dLabName = "c10d_lab.py"

// C10dLab returns the c10d experiments' source. Its flags: --out DIR
// (required); --backend gloo|nccl; --parts store,coalesce,timeout,compile;
// --world N; --timeout S; --stall S; --modes LIST; --counts; --sizes;
// --iters; --warmup; --keep-work.
func C10dLab() []byte { return append([]byte(nil), c10dLab...) }

var c10dLabScript = Script{Name: C10dLabName, Source: c10dLab}

// C10dLabCommand returns the command line that runs the script at path:
// python3, which starts the ranks itself.
func C10dLabCommand(o Options, path string, args []string) ([]string, error) {
	return c10dLabScript.Command(o, path, args)
}

// RunC10dLab writes the script into a temporary folder and runs it with
// args (its own flags, --out among them), its output going to stdout and
// stderr. It returns the command line it ran.
func RunC10dLab(ctx context.Context, o Options, args []string, stdout, stderr io.Writer) ([]string, error) {
	return c10dLabScript.Run(ctx, o, args, stdout, stderr)
}
