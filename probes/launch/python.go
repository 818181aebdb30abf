package launch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// What python3 here can import, asked before a script is run live: each
// check runs a few lines of Python and says what is missing.

// TorchAvailable says whether python3 here imports torch with the gloo
// backend, which the hang lab needs; the error says what is missing.
func TorchAvailable(ctx context.Context) error {
	cmd, _, err := command(ctx, Options{}, []string{"python3", "-c", "import torch.distributed as d; import sys; sys.exit(0 if d.is_gloo_available() else 3)"})
	if err != nil {
		return err
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		last := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(last, '\n'); i >= 0 {
			last = last[i+1:]
		}
		if last == "" {
			last = err.Error()
		}
		return fmt.Errorf("launch: python3 has no torch with gloo: %s", last)
	}
	return nil
}

// ErrNoTorch is wrapped by TorchCUDA's error when python3 has no PyTorch
// or PyTorch sees no GPU.
var ErrNoTorch = fmt.Errorf("no PyTorch with a GPU here")

// TorchCUDA checks that python3 imports torch and that torch sees a GPU:
// what a live run of the PyTorch scripts needs. It fails with
// ErrNotInstalled when there is no python3, ErrNoTorch otherwise.
//
// A check that passed is remembered for the process, per python3 and the
// environment that decides what it finds (PATH, PYTHONPATH, VIRTUAL_ENV,
// CUDA_VISIBLE_DEVICES): importing torch takes seconds, and a page that
// runs several PyTorch scripts live would pay them once per script. A
// failed check is never remembered, so installing torch mid-session counts.
func TorchCUDA(ctx context.Context) error {
	key := pythonKey()
	if _, ok := torchCUDAPassed.Load(key); ok {
		return nil
	}
	err := pythonImports(ctx, ErrNoTorch, "import sys\ntry:\n import torch\nexcept Exception as e:\n print('no torch:', e); sys.exit(3)\n"+
		"if not torch.cuda.is_available(): print('torch', torch.__version__, 'sees no GPU'); sys.exit(4)\n")
	if err == nil {
		torchCUDAPassed.Store(key, true)
	}
	return err
}

// torchCUDAPassed holds the pythonKey of each TorchCUDA check that passed.
var torchCUDAPassed sync.Map

// pythonKey names the python3 a check runs and what decides what it can
// import and which GPUs it sees.
func pythonKey() string {
	path, err := exec.LookPath("python3")
	if err != nil {
		path = "(none)"
	}
	key := path
	for _, name := range []string{"PATH", "PYTHONPATH", "VIRTUAL_ENV", "CUDA_VISIBLE_DEVICES"} {
		key += "\x00" + name + "=" + os.Getenv(name)
	}
	return key
}

// ErrNoNIXL is wrapped by NIXLPython's error when python3 has no NIXL.
var ErrNoNIXL = fmt.Errorf("no NIXL Python package here")

// NIXLPython checks that python3 imports NIXL's Python package (the meta
// package nixl, or the CUDA wheel nixl_cu13 or nixl_cu12 alone), as the KV
// transfer script does. It fails with ErrNotInstalled when there is no
// python3, ErrNoNIXL otherwise.
func NIXLPython(ctx context.Context) error {
	return pythonImports(ctx, ErrNoNIXL,
		"import sys\nfor m in ('nixl._api', 'nixl_cu13._api', 'nixl_cu12._api'):\n try:\n  __import__(m); sys.exit(0)\n except ImportError as e:\n  err = e\nprint('no NIXL:', err); sys.exit(3)\n")
}

// pythonImports runs a check program with python3; a failing check wraps
// missing with the first line the program printed, or else stderr's (the
// program's own reason comes before any warning an import wrote to stderr).
func pythonImports(ctx context.Context, missing error, program string) error {
	cmd, _, err := command(ctx, Options{}, []string{"python3", "-c", program})
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if len(strings.TrimSpace(string(out))) == 0 {
			out = []byte(stderr.String())
		}
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
