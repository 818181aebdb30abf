package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Bad input to commlab probe c10d is exit 2 with one line; the recorded
// run prints what each part found.
func TestProbeC10d(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	for _, args := range [][]string{
		{"probe", "c10d", "--load", missing},
		{"probe", "c10d", "--backend", "mpi"},
		{"probe", "c10d", "--parts", "store,magic"},
		{"probe", "c10d", "--recorded", "torch-c10d-nowhere"},
	} {
		code, stdout, stderr := labCLI(t, args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, one line", args, code, stdout, stderr)
		}
	}
	code, stdout, stderr := labCLI(t, "probe", "c10d", "--recorded")
	if code != 0 || stderr != "" {
		t.Fatalf("recorded: exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"CPU only, PyTorch 2.11.0", "store: 2 ranks", "coalesce: 2 ranks", "Timed out waiting 5000ms", "wait_tensor"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("recorded summary lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = labCLI(t, "probe", "c10d", "--script")
	if code != 0 || !strings.Contains(stdout, "def rank_timeout(") {
		t.Errorf("--script: exit %d, %d bytes", code, len(stdout))
	}
}
