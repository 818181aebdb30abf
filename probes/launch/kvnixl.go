package launch

import (
	"context"
	_ "embed"
	"io"
)

// kvNixl is chapter 7's KV transfer through NIXL on one GPU: a KV-sized
// buffer written from device to pinned host memory and read back by two
// NIXL agents in one process, whole and one descriptor per layer, beside
// the same copies through PyTorch. probes/kvxfer reads what it writes.
//
//go:embed kv_nixl.py
var kvNixl []byte

// KVNixlName is the file name the KV transfer script is written under.
const KVNixlName = "kv_nixl.py"

// KVNixl returns the KV transfer script's source. Its flags: --out FILE
// (required); --min, --max (sizes: 16M, 2G); --layers N; --reps N;
// --warmup N; --backend NAME (UCX); --device N.
func KVNixl() []byte { return append([]byte(nil), kvNixl...) }

var kvNixlScript = Script{Name: KVNixlName, Source: kvNixl}

// RunKVNixl writes the script into a temporary folder and runs it with
// python3 and args (its own flags, --out among them). It returns the
// command line it ran.
func RunKVNixl(ctx context.Context, o Options, args []string, stdout, stderr io.Writer) ([]string, error) {
	o.Launcher = "none"
	return kvNixlScript.Run(ctx, o, args, stdout, stderr)
}

// NIXLPython checks that python3 imports NIXL's Python package (the meta
// package nixl, or the CUDA wheel nixl_cu13 or nixl_cu12 alone), as the KV
// transfer script does. It fails with ErrNotInstalled when there is no
// python3, ErrNoNIXL otherwise.
func NIXLPython(ctx context.Context) error {
	return pythonImports(ctx, ErrNoNIXL,
		"import sys\nfor m in ('nixl._api', 'nixl_cu13._api', 'nixl_cu12._api'):\n try:\n  __import__(m); sys.exit(0)\n except ImportError as e:\n  err = e\nprint('no NIXL:', err); sys.exit(3)\n")
}
