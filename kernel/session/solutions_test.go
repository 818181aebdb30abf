package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/exercise"
)

const trainerSolutions = "# Solutions\n\n## answer1\n\n```go\nanswer1 := 2 * 21.0\n```\n\n## word\n\n```go\nword := \"SYS\"\n```\n"

// TestSolutionMode holds that solution mode replaces exactly the shipped
// blank answer cells that have a solution, says so, and counts them.
func TestSolutionMode(t *testing.T) {
	sols, err := exercise.ParseSolutions([]byte(trainerSolutions))
	if err != nil {
		t.Fatal(err)
	}
	s := newTestSession(t)
	s.SetSolutions("test chapter", sols)
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

func TestSolutionsMagic(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sol.md")
	if err := os.WriteFile(file, []byte(trainerSolutions), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newTestSession(t)
	out := runCells(t, s,
		"%solutions",
		"%solutions "+file,
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
		{0, "solution mode is off; %solutions CHAPTER turns it on"},
		{1, "solution mode is on for " + file + ": the blank answer cells of answer1, word run their solutions"},
		{2, "solution for answer1"},
		{3, "=> 42\n"},
		{4, "solution mode is off"},
		{6, "=> 0\n"},
		{7, `!MagicError: %solutions: session: solutions: no solutions for this chapter: "99-no-such-chapter"`},
		{8, "solution mode is on for 01-collectives"},
	}
	for _, c := range checks {
		if !strings.Contains(out[c.cell], c.want) {
			t.Errorf("cell %d: %q lacks %q", c.cell, out[c.cell], c.want)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.md")
	if err := os.WriteFile(bad, []byte("## the answer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := runCells(t, s, "%solutions "+bad); !strings.Contains(out[0], "not a solutions file") || !strings.Contains(out[0], "not an answer variable's name") {
		t.Errorf("bad file: %q", out[0])
	}
}
