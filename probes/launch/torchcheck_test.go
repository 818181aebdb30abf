package launch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakePython puts a python3 on PATH that counts its runs in a file and
// exits with code (printing why when code is not 0).
func fakePython(t *testing.T, code int) (runs func() int) {
	t.Helper()
	dir := t.TempDir()
	count := filepath.Join(dir, "runs")
	script := "#!/bin/sh\necho run >> " + count + "\n"
	if code != 0 {
		script += "echo 'torch 2.11.0 sees no GPU'\n"
	}
	script += "exit " + string(rune('0'+code)) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "python3"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	return func() int {
		b, err := os.ReadFile(count)
		if err != nil {
			return 0
		}
		return strings.Count(string(b), "run")
	}
}

func TestTorchCUDARemembersAPass(t *testing.T) {
	ctx := context.Background()
	runs := fakePython(t, 0)
	for i := 0; i < 3; i++ {
		if err := TorchCUDA(ctx); err != nil {
			t.Fatalf("check %d: %v", i, err)
		}
	}
	if n := runs(); n != 1 {
		t.Errorf("python3 ran %d times for three checks, want 1", n)
	}
	t.Setenv("CUDA_VISIBLE_DEVICES", "1")
	if err := TorchCUDA(ctx); err != nil {
		t.Fatal(err)
	}
	if n := runs(); n != 2 {
		t.Errorf("after CUDA_VISIBLE_DEVICES changed python3 ran %d times in all, want 2", n)
	}
}

func TestTorchCUDAAsksAgainAfterAFailure(t *testing.T) {
	ctx := context.Background()
	runs := fakePython(t, 4)
	for i := 0; i < 2; i++ {
		err := TorchCUDA(ctx)
		if !errors.Is(err, ErrNoTorch) || !strings.Contains(err.Error(), "sees no GPU") {
			t.Fatalf("check %d: %v, want ErrNoTorch with python's reason", i, err)
		}
	}
	if n := runs(); n != 2 {
		t.Errorf("python3 ran %d times for two failing checks, want 2", n)
	}
}
