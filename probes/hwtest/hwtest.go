// Package hwtest is how the probes' tests meet hardware they may not have:
// a test that needs a GPU (with its driver, CUDA and NCCL), PyTorch or
// nvcc calls Skip where the need is not met, which skips it, or fails it
// when the switch for that need is on (COMMLAB_REQUIRE_GPU,
// COMMLAB_REQUIRE_TORCH, COMMLAB_REQUIRE_NVCC; `make test-gpu` turns all
// three on), so that a run on a GPU machine cannot pass by skipping.
//
// It owns the switches and nothing else: finding the hardware is the
// probes' own business. Standard library only.
package hwtest

import (
	"fmt"
	"os"
	"testing"
)

// A Need is hardware or software a test runs on.
type Need string

const (
	GPU   Need = "GPU"   // an NVIDIA GPU with its driver, CUDA and NCCL
	Torch Need = "TORCH" // PyTorch (with CUDA where the test also needs a GPU)
	NVCC  Need = "NVCC"  // the CUDA compiler
)

// Env is the variable that makes missing need a failure.
func (n Need) Env() string { return "COMMLAB_REQUIRE_" + string(n) }

// Required reports whether the switch for n is on.
func (n Need) Required() bool { return os.Getenv(n.Env()) != "" }

// Skip skips t with why, or fails it when n is required.
func Skip(t testing.TB, n Need, why string) {
	t.Helper()
	if n.Required() {
		t.Fatalf("%s is set but: %s", n.Env(), why)
	}
	t.Skip(why)
}

// Skipf is Skip with a format.
func Skipf(t testing.TB, n Need, format string, args ...any) {
	t.Helper()
	Skip(t, n, fmt.Sprintf(format, args...))
}
