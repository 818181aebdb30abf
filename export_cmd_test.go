package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExportCLI(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := labCLI(t, "export", "--out", out); code != 1 || !strings.Contains(stderr, "no notebooks") {
		t.Errorf("empty dir: exit %d, %s", code, stderr)
	}
	if code, _, stderr := labCLI(t, "run", "--out", out, "--allow-errors", "lab/testdata/fails.md"); code != 0 {
		t.Fatalf("run: %d %s", code, stderr)
	}
	code, stdout, stderr := labCLI(t, "export", "--out", out, "lab/export/testdata/executed.ipynb")
	if code != 0 {
		t.Fatalf("export: exit %d, %s", code, stderr)
	}
	if !strings.Contains(stdout, "1 pages") {
		t.Errorf("stdout = %q", stdout)
	}
	index, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	// The index lists the exported notebook and the one run earlier.
	for _, want := range []string{`href="executed.html"`, `href="fails.html"`, "status-failed", "status-errors"} {
		if !strings.Contains(string(index), want) {
			t.Errorf("index lacks %q:\n%s", want, index)
		}
	}
	if code, _, _ := labCLI(t, "export", "--out", out); code != 0 {
		t.Errorf("export of DIR: exit %d", code)
	}
	if code, _, stderr := labCLI(t, "export", "-h"); code != 0 || !strings.Contains(stderr, "usage: commlab export") {
		t.Errorf("export -h: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "fails.html")); err != nil {
		t.Error(err)
	}
}
