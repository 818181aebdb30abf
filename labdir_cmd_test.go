package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `commlab lab DIR` writes the chapters a binary carries, and on a second
// run keeps a chapter the user changed, saying so.
func TestLabFolderCLI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mylab")
	var out, errb bytes.Buffer
	if code := dispatch([]string{"lab", dir, "--no-install", "--no-run"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	chapter := filepath.Join(dir, "chapters", "01-collectives.md")
	if _, err := os.Stat(chapter); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "notebooks", "01-collectives.ipynb")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "jupyter notebook "+filepath.Join(dir, "notebooks")) {
		t.Errorf("no word on opening the lab in Jupyter:\n%s", out.String())
	}
	if err := os.WriteFile(chapter, []byte("my own notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := dispatch([]string{"lab", dir, "--no-install", "--no-run"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "kept "+chapter) || !strings.Contains(errb.String(), "--force") {
		t.Errorf("stderr does not say the changed chapter was kept:\n%s", errb.String())
	}
	if b, _ := os.ReadFile(chapter); string(b) != "my own notes\n" {
		t.Error("changed chapter overwritten")
	}
	if code := dispatch([]string{"lab", "a", "b"}, &out, &errb); code != 2 {
		t.Errorf("two folders: exit %d, want 2", code)
	}
}
