package session

import (
	"strings"
	"testing"
)

// testBook replaces a cell that is exactly `NAME := 0.0` (or `NAME := ""`)
// and a comment with its code, as a chapter's blank answer cells are
// replaced; the real reading of solutions is the program's (package cells).
type testBook struct {
	names []string
	code  map[string]string
}

func (b testBook) For(cell string) (string, string, bool) {
	line := strings.TrimSpace(cell)
	if i := strings.Index(line, "//"); i >= 0 {
		line = strings.TrimSpace(line[:i])
	}
	name, zero, ok := strings.Cut(line, " := ")
	if !ok || (zero != "0.0" && zero != `""`) {
		return "", "", false
	}
	code, ok := b.code[name]
	return name, code, ok
}

func (b testBook) Answers() []string { return b.names }

var trainerBook = testBook{names: []string{"answer1", "word"}, code: map[string]string{"answer1": "answer1 := 2 * 21.0", "word": `word := "SYS"`}}

// TestSolutionMode holds that solution mode replaces exactly the cells the
// book has a solution for, says so, and counts them.
func TestSolutionMode(t *testing.T) {
	s := newTestSession(t)
	s.SetSolutions("test chapter", trainerBook)
	out := runCells(t, s,
		"answer1 := 0.0 // your expression",
		"answer1",
		`word := "" // your answer`,
		"word",
		"other := 0.0 // a blank with no solution",
		"other",
	)
	if !strings.HasPrefix(out[0], "solution for answer1 (test chapter):\nanswer1 := 2 * 21.0\n") {
		t.Errorf("blank cell output %q", out[0])
	}
	if out[1] != "=> 42\n" || out[3] != "=> SYS\n" || out[5] != "=> 0\n" {
		t.Errorf("values: %q", out)
	}
	if got := strings.Join(s.SolutionsUsed(), ","); got != "answer1,word" {
		t.Errorf("used %q", got)
	}
	// A learner's own answer is never replaced.
	if out := runCells(t, s, "answer1 := 1.5 // mine", "answer1"); out[0] != "" || out[1] != "=> 1.5\n" {
		t.Errorf("learner's answer: %q", out)
	}
	s.SetSolutions("", nil)
	if out := runCells(t, s, "answer1 := 0.0 // your expression", "answer1"); out[1] != "=> 0\n" {
		t.Errorf("after solution mode: %q", out)
	}
	if s.SolutionsUsed() != nil {
		t.Errorf("used after off: %v", s.SolutionsUsed())
	}
}

// TestSolutionsMagic holds that a live session has no command that runs
// or prints the trainer's solutions: %solutions, with or without a
// chapter, says they are not in this kernel, and a blank answer cell run
// afterwards stays blank.
func TestSolutionsMagic(t *testing.T) {
	s := newTestSession(t)
	out := runCells(t, s,
		"%solutions",
		"%solutions 1",
		"answer1 := 0.0 // your expression",
		"answer1",
	)
	for _, i := range []int{0, 1} {
		if !strings.Contains(out[i], "the trainer's solutions are not in this kernel") || strings.Contains(out[i], "MagicError") {
			t.Errorf("cell %d: %q", i, out[i])
		}
	}
	if out[2] != "" || out[3] != "=> 0\n" {
		t.Errorf("the blank ran as %q, %q", out[2], out[3])
	}
}
