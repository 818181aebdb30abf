package chapters

import (
	"os"
	"path/filepath"
	"testing"
)

// The embedded copies are the files on disk: a binary carries exactly the
// chapters of its source tree.
func TestEmbeddedMatchesDisk(t *testing.T) {
	onDisk, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	names := Names()
	if len(names) == 0 || len(names) != len(onDisk) {
		t.Fatalf("embedded %d chapters, %d on disk", len(names), len(onDisk))
	}
	for _, f := range Files() {
		got, err := Read(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.FromSlash(f))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: embedded copy differs from the file", f)
		}
	}
	if names[0] != "00-tour" {
		t.Errorf("first chapter %q", names[0])
	}
	for _, f := range Files() {
		if filepath.Ext(f) == ".go" && filepath.Dir(f) == "." {
			t.Errorf("%s is listed as a lab file", f)
		}
	}
}
