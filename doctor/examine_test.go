package doctor

import (
	"os"
	"path/filepath"
	"testing"
)

func TestExamineFilesAndBaseline(t *testing.T) {
	read := func() *Report {
		ev, err := ReadFiles(Files{Recorded: "h200x2"})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Examine(ev, Gather{}, false)
		if err != nil || r == nil {
			t.Fatalf("Examine: %v", err)
		}
		return r
	}
	r := read()
	path := filepath.Join(t.TempDir(), "report.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	again := read()
	if err := again.CompareBaselineFile(path); err != nil {
		t.Fatalf("CompareBaselineFile: %v", err)
	}
	if again.ExitCode != r.ExitCode {
		t.Errorf("the same machine against itself: exit %d, was %d", again.ExitCode, r.ExitCode)
	}
	if err := again.CompareBaselineFile(filepath.Join(t.TempDir(), "missing.json")); !os.IsNotExist(err) {
		t.Errorf("a missing baseline: %v", err)
	}
}
