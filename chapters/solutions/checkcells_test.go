package solutions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/lab/exercise"
	"github.com/commlab/commlab/lab/export"
	"github.com/commlab/commlab/lab/literate"
	"github.com/commlab/commlab/lab/notebook"
)

// TestCheckCellsFolded holds that every exercise's check cell has its code
// folded (jupyter.source_hidden): JupyterLab, Notebook 7 and the exported
// page then show its verdict, not its hints, until the reader opens it.
func TestCheckCellsFolded(t *testing.T) {
	chapters, err := filepath.Glob("../*.md")
	if err != nil || len(chapters) == 0 {
		t.Fatalf("chapters: %v", err)
	}
	checks := 0
	for _, ch := range chapters {
		src, err := os.ReadFile(ch)
		if err != nil {
			t.Fatal(err)
		}
		nb, err := literate.Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", ch, err)
		}
		for _, c := range nb.Cells {
			if c.Type != notebook.Code || !exercise.IsCheck(c.Source) {
				continue
			}
			checks++
			if !export.SourceHidden(c) {
				first, _, _ := strings.Cut(strings.TrimSpace(c.Source), "\n")
				t.Errorf("%s: the check cell starting %q shows its code: mark its fence jupyter={\"source_hidden\": true}", filepath.Base(ch), first)
			}
		}
	}
	if checks == 0 {
		t.Error("no check cell found: the pattern no longer matches the chapters")
	}
}
