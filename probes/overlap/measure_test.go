package overlap

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes/measure"
)

// fakeCheckingPython puts a python3 on PATH that logs each run's first argument
// ("-c" for a check, the script's path for a step) and exits with code;
// a check that fails says why.
func fakeCheckingPython(t *testing.T, checkCode int) (log func() []string) {
	t.Helper()
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	script := "#!/bin/sh\necho \"$1\" >> " + runs + "\n" +
		"if [ \"$1\" = -c ]; then\n"
	if checkCode != 0 {
		script += " echo 'torch 2.11.0 sees no GPU'\n"
	}
	script += " exit " + string(rune('0'+checkCode)) + "\nfi\nexit 0\n"
	if err := os.WriteFile(filepath.Join(dir, "python3"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	return func() []string {
		b, _ := os.ReadFile(runs)
		return strings.Fields(string(b))
	}
}

// The run starts beside the check: where the check passes, every invocation ran
// (here a python3 that writes nothing, so auto mode falls back for want of
// a summary, not for want of PyTorch).
func TestMeasureStartsTheRunBesideTheCheck(t *testing.T) {
	runs := fakeCheckingPython(t, 0)
	m, err := Measure(context.Background(), measure.ModeAuto, Config{}, RecordedName)
	if err != nil {
		t.Fatal(err)
	}
	if m.Live || strings.Contains(m.Fallback, "no PyTorch") {
		t.Errorf("fallback %q, want the live run's failure", m.Fallback)
	}
	checks, procs := 0, 0
	for _, r := range runs() {
		if r == "-c" {
			checks++
		} else {
			procs++
		}
	}
	if checks != 1 || procs != len(Invocations) {
		t.Errorf("%d checks and %d invocations ran, want 1 and %d", checks, procs, len(Invocations))
	}
}

// A check that fails cancels the run before falling back, and the banner
// gives the check's reason.
func TestMeasureCancelsTheRunWhenTheCheckFails(t *testing.T) {
	fakeCheckingPython(t, 4)
	m, err := Measure(context.Background(), measure.ModeAuto, Config{}, RecordedName)
	if err != nil {
		t.Fatal(err)
	}
	if m.Live || !strings.Contains(m.Fallback, "sees no GPU") {
		t.Errorf("fallback %q, want the check's reason", m.Fallback)
	}
	if _, err := Measure(context.Background(), measure.ModeLive, Config{}, RecordedName); err == nil || !strings.Contains(err.Error(), "sees no GPU") {
		t.Errorf("live mode: %v, want the check's failure", err)
	}
}
