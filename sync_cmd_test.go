package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSyncCLICheckAndWrite(t *testing.T) {
	dir := t.TempDir()
	ch, nbs := filepath.Join(dir, "chapters"), filepath.Join(dir, "notebooks")
	os.MkdirAll(ch, 0o755)
	src, err := os.ReadFile("lab/testdata/params.md")
	if err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(ch, "01-x.md")
	os.WriteFile(md, src, 0o644)
	args := []string{"--chapters", ch, "--notebooks", nbs}
	if code, stdout, _ := labCLI(t, append([]string{"sync", "--check"}, args...)...); code != 1 || !strings.Contains(stdout, "stale") {
		t.Errorf("check before sync: exit %d, %q", code, stdout)
	}
	if code, stdout, stderr := labCLI(t, append([]string{"sync"}, args...)...); code != 0 || !strings.Contains(stdout, "wrote "+filepath.Join(nbs, "01-x.ipynb")) {
		t.Errorf("sync: exit %d, %q %q", code, stdout, stderr)
	}
	if code, _, stderr := labCLI(t, append([]string{"sync", "--check"}, args...)...); code != 0 {
		t.Errorf("check after sync: exit %d, %s", code, stderr)
	}
	later := time.Now().Add(time.Hour)
	os.WriteFile(md, []byte(strings.Replace(string(src), "n := 8", "n := 7", 1)), 0o644)
	os.Chtimes(md, later, later)
	if code, _, stderr := labCLI(t, append([]string{"sync", "--check"}, args...)...); code != 1 || !strings.Contains(stderr, "disagree") {
		t.Errorf("check after an edit: exit %d, %s", code, stderr)
	}
	if code, _, _ := labCLI(t, "sync", "extra"); code != 2 {
		t.Errorf("extra argument: exit %d", code)
	}
}
