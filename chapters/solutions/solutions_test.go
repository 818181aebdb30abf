package solutions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/lab/exercise"
)

// TestEveryChapterHasSolutions holds that each chapter with exercises has
// an embedded solutions file that parses and matches its blank answer
// cells, and that no solutions file is left without its chapter.
func TestEveryChapterHasSolutions(t *testing.T) {
	chapters, err := filepath.Glob("../*.md")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, n := range Names() {
		have[n] = true
	}
	for _, ch := range chapters {
		name := strings.TrimSuffix(filepath.Base(ch), ".md")
		src, err := os.ReadFile(ch)
		if err != nil {
			t.Fatal(err)
		}
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
		got, sol, err := Find(name)
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
	names := Names()
	if len(names) == 0 {
		t.Skip("no solutions embedded")
	}
	first := names[0]
	for _, ref := range []string{first, first + ".md", "chapters/" + first + ".md", "notebooks/" + first + ".ipynb", strings.SplitN(first, "-", 2)[0]} {
		n, src, err := Find(ref)
		if err != nil || n != first || len(src) == 0 {
			t.Errorf("Find(%q) = %q, %d bytes, %v", ref, n, len(src), err)
		}
	}
	if _, _, err := Find("99-nothing"); !errors.Is(err, ErrNoSolutions) {
		t.Errorf("unknown chapter: %v", err)
	}
	if _, _, err := Find("collectives"); !errors.Is(err, ErrNoSolutions) {
		t.Errorf("a name without its number: %v", err)
	}
}
