package solutions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/chapters"
	"github.com/commlab/commlab/exercise"
	"github.com/commlab/commlab/notebook"
	"github.com/commlab/commlab/notebook/export"
	"github.com/commlab/commlab/notebook/literate"
)

// TestEveryChapterHasSolutions holds that each chapter with exercises has
// a solutions file in this folder that parses and matches its blank answer
// cells, and that no solutions file is left without its chapter.
func TestEveryChapterHasSolutions(t *testing.T) {
	have := map[string]bool{}
	names, err := Names(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		have[n] = true
	}
	for _, ch := range readChapters(t) {
		name, src := ch.name, ch.src
		cells := goCells(string(src))
		blanks := 0
		for _, c := range cells {
			if _, ok := exercise.BlankAnswer(c); ok {
				blanks++
			}
		}
		if blanks == 0 {
			if have[name] {
				t.Errorf("%s has solutions but no blank answer cell", name)
			}
			continue
		}
		got, sol, err := Find(".", name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		delete(have, got)
		s, err := exercise.ParseSolutions(sol)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if err := s.Match(cells); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for n := range have {
		t.Errorf("solutions/%s.md has no chapter", n)
	}
}

// TestCheckCellsFolded holds that every exercise's check cell has its code
// folded (jupyter.source_hidden): JupyterLab, Notebook 7 and the exported
// page then show its verdict, not its hints, until the reader opens it.
func TestCheckCellsFolded(t *testing.T) {
	checks := 0
	for _, ch := range readChapters(t) {
		nb, err := literate.Parse(ch.src)
		if err != nil {
			t.Fatalf("%s: %v", ch.name, err)
		}
		for _, c := range nb.Cells {
			if c.Type != notebook.Code || !exercise.IsCheck(c.Source) {
				continue
			}
			checks++
			if !export.SourceHidden(c) {
				first, _, _ := strings.Cut(strings.TrimSpace(c.Source), "\n")
				t.Errorf("%s: the check cell starting %q shows its code: mark its fence jupyter={\"source_hidden\": true}", ch.name, first)
			}
		}
	}
	if checks == 0 {
		t.Error("no check cell found: the pattern no longer matches the chapters")
	}
}

// chapter is one chapter's name ("01-collectives") and source.
type chapter struct {
	name string
	src  []byte
}

// readChapters reads every chapter of the clone.
func readChapters(t *testing.T) []chapter {
	t.Helper()
	paths, err := filepath.Glob("../../chapters/*.md")
	if err != nil || len(paths) == 0 {
		t.Fatalf("chapters: %d found, %v", len(paths), err)
	}
	var out []chapter
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, chapter{name: strings.TrimSuffix(filepath.Base(p), ".md"), src: src})
	}
	return out
}

// goCells returns the code of a chapter's ```go cells.
func goCells(md string) []string {
	var cells []string
	var cur []string
	in := false
	for _, line := range strings.Split(md, "\n") {
		switch {
		case !in && strings.HasPrefix(line, "```go"):
			in, cur = true, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			cells = append(cells, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, line)
		}
	}
	return cells
}

func TestFind(t *testing.T) {
	names, err := Names(".")
	if err != nil || len(names) == 0 {
		t.Fatalf("names %v, %v", names, err)
	}
	first := names[0]
	for _, ref := range []string{first, first + ".md", "chapters/" + first + ".md", "notebooks/" + first + ".ipynb", strings.SplitN(first, "-", 2)[0]} {
		n, src, err := Find(".", ref)
		if err != nil || n != first || len(src) == 0 {
			t.Errorf("Find(%q) = %q, %d bytes, %v", ref, n, len(src), err)
		}
	}
	if _, _, err := Find(".", "99-nothing"); !errors.Is(err, ErrNoSolutions) {
		t.Errorf("unknown chapter: %v", err)
	}
	if _, _, err := Find(".", "collectives"); !errors.Is(err, ErrNoSolutions) {
		t.Errorf("a name without its number: %v", err)
	}
	if _, _, err := Find(filepath.Join(t.TempDir(), "none"), "1"); !errors.Is(err, ErrNoFolder) {
		t.Errorf("no folder: %v", err)
	}
}

// TestLocate holds that a chapter, a notebook or a folder of the clone
// finds this folder, that a trainer folder names it too, and that a path
// outside any clone says so.
func TestLocate(t *testing.T) {
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{"../../chapters/01-collectives.md", "../../notebooks/01-collectives.ipynb", "../..", "."} {
		got, err := Locate(from)
		if err != nil || got != here {
			t.Errorf("Locate(%q) = %q, %v; want %q", from, got, err, here)
		}
	}
	if got, err := Dir(".."); err != nil || got != filepath.Join("..", "solutions") {
		t.Errorf("Dir(trainer folder) = %q, %v", got, err)
	}
	if got, err := Dir("."); err != nil || got != "." {
		t.Errorf("Dir(solutions folder) = %q, %v", got, err)
	}
	outside := filepath.Join(t.TempDir(), "01-collectives.md")
	if _, err := Locate(outside); !errors.Is(err, ErrNoFolder) || !strings.Contains(err.Error(), "--solutions DIR") {
		t.Errorf("outside a clone: %v", err)
	}
}

// TestBinaryCarriesNone holds that the chapters embedded in the binary
// hold no solutions: the trainer's answers stay in this folder.
func TestBinaryCarriesNone(t *testing.T) {
	for _, f := range chapters.Files() {
		if !strings.HasSuffix(f, ".md") || strings.Contains(f, "/") {
			t.Errorf("the binary embeds %s", f)
		}
	}
}
