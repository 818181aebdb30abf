package session

import (
	"errors"
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

// testSolutions finds trainerBook under the name "ch1".
type testSolutions struct{}

func (testSolutions) Load(ref string) (string, SolutionBook, error) {
	if ref == "ch1" || ref == "1" {
		return "ch1", trainerBook, nil
	}
	return "", nil, errors.New("solutions: no solutions for this chapter: " + ref)
}

func (testSolutions) Chapters() []string { return []string{"ch1"} }

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

// TestSolutionsMagic holds %solutions over the program's Solutions: on, off,
// its report, and a chapter it does not know.
func TestSolutionsMagic(t *testing.T) {
	s, err := New(Options{Solutions: testSolutions{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	out := runCells(t, s,
		"%solutions",
		"%solutions ch1",
		"answer1 := 0.0 // your expression\n",
		"answer1",
		"%solutions off",
		"answer1 := 0.0 // your expression",
		"answer1",
		"%solutions 99-no-such-chapter",
		"%solutions 1",
	)
	checks := []struct {
		cell int
		want string
	}{
		{0, "solution mode is off; %solutions CHAPTER turns it on (chapters with solutions: ch1)"},
		{1, "solution mode is on for ch1: the blank answer cells of answer1, word run their solutions"},
		{2, "solution for answer1"},
		{3, "=> 42\n"},
		{4, "solution mode is off"},
		{6, "=> 0\n"},
		{7, `!MagicError: %solutions: session: solutions: no solutions for this chapter: 99-no-such-chapter`},
		{8, "solution mode is on for ch1"},
	}
	for _, c := range checks {
		if !strings.Contains(out[c.cell], c.want) {
			t.Errorf("cell %d: %q lacks %q", c.cell, out[c.cell], c.want)
		}
	}
	// A session the program gave no solutions says so.
	if out := runCells(t, newTestSession(t), "%solutions", "%solutions 1"); !strings.Contains(out[0], "no solutions to run") || !strings.Contains(out[1], "!MagicError: %solutions: session: this session has no solutions to run") {
		t.Errorf("without solutions: %q", out)
	}
}
