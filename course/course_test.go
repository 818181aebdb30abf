package course

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/exercise"
	"github.com/commlab/commlab/notebook"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// clearSolutions is what nbgrader's ClearSolutions does to a code cell
// with the course's settings: each line from one holding BEGIN SOLUTION to
// one holding END SOLUTION goes, and the empty Go stub ("") takes its
// place.
func clearSolutions(src string) string {
	var out []string
	in := false
	for _, line := range strings.Split(src, "\n") {
		switch {
		case strings.Contains(line, "BEGIN SOLUTION"):
			in = true
			out = append(out, "")
		case strings.Contains(line, "END SOLUTION"):
			in = false
		case !in:
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// TestChaptersBecomeAssignments holds, for every chapter with exercises,
// that its source version runs the trainer's answer in each solution
// cell, that nbgrader's clearing gives back the chapter's blank, that
// every other cell is locked, and that each check cell is worth 1 point.
func TestChaptersBecomeAssignments(t *testing.T) {
	as, err := Chapters()
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 7 {
		t.Fatalf("%d assignments, want one per chapter with exercises (7)", len(as))
	}
	for _, a := range as {
		t.Run(a.Name, func(t *testing.T) {
			solutionCells, checks := 0, 0
			for i, c := range a.Source.Cells {
				m, ok := CellMetadata(c)
				if !ok {
					t.Fatalf("cell %d has no nbgrader metadata", i+1)
				}
				switch {
				case m.Solution:
					solutionCells++
					if !strings.Contains(c.Source, "// BEGIN SOLUTION\n") || strings.Count(c.Source, "END SOLUTION") != 2 {
						t.Errorf("cell %d (%s) lacks its solution regions:\n%s", i+1, m.GradeID, c.Source)
					}
					name, blank := exercise.BlankAnswer(clearSolutions(c.Source))
					if !blank || name != m.GradeID {
						t.Errorf("cell %d: the learner's version is %q, not the blank of %s", i+1, clearSolutions(c.Source), m.GradeID)
					}
				case m.Grade:
					checks++
					if m.Points != 1 || !m.Locked || !exercise.IsCheck(c.Source) {
						t.Errorf("cell %d (%s): grade cell %+v", i+1, m.GradeID, m)
					}
				case !m.Locked:
					t.Errorf("cell %d (%s) is neither an answer, a check nor locked", i+1, m.GradeID)
				}
			}
			if solutionCells == 0 || checks == 0 || a.Points != float64(checks) {
				t.Errorf("%d solution cells, %d checks, %g points", solutionCells, checks, a.Points)
			}
		})
	}
}

const tinyChapter = "---\njupyter:\n  kernelspec:\n    display_name: Go (commlab)\n    language: go\n    name: commlab\n---\n\n# t\n\n"

func TestSourceRefuses(t *testing.T) {
	sols, err := exercise.ParseSolutions([]byte("## answer1\n\n```go\nanswer1 := 2.0\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	const (
		blank    = "```go nbgrader={\"grade\": false, \"grade_id\": \"answer1\", \"locked\": false, \"schema_version\": 3, \"solution\": true, \"task\": false}\nanswer1 := 0.0 // your answer\n```\n\n"
		bare     = "```go\nanswer1 := 0.0 // your answer\n```\n\n"
		check    = "```go nbgrader={\"grade\": true, \"grade_id\": \"check-answer1\", \"locked\": true, \"points\": 1, \"schema_version\": 3, \"solution\": false, \"task\": false}\nexercise.Number(\"a\", answer1, 2, 0, \"\")\n```\n"
		unscored = "```go\nexercise.Number(\"a\", answer1, 2, 0, \"\")\n```\n"
		twoPts   = "```go nbgrader={\"grade\": true, \"grade_id\": \"check-answer1\", \"locked\": true, \"points\": 2, \"schema_version\": 3, \"solution\": false, \"task\": false}\nexercise.Number(\"a\", answer1, 2, 0, \"\")\n```\n"
	)
	for _, tc := range []struct {
		name, md, want string
	}{
		{"a blank without metadata", bare + check, "needs nbgrader"},
		{"a check without metadata", blank + unscored, "a check cell needs"},
		{"a check of 2 points", blank + twoPts, `"points": 1`},
		{"a grade cell that checks nothing", blank + strings.Replace(check, "exercise.Number(\"a\", answer1, 2, 0, \"\")", "fmt.Println(answer1)", 1), "checks nothing"},
		{"no solution for the blank", strings.ReplaceAll(blank, "answer1", "answer9") + check, "no solution"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Source("t", []byte(tinyChapter+tc.md), sols)
			if !errors.Is(err, ErrCourse) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want ErrCourse with %q", err, tc.want)
			}
		})
	}
	a, err := Source("t", []byte(tinyChapter+blank+check), sols)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Source.Cells[1].Source; clearSolutions(got) != "\nanswer1 := 0.0 // your answer\n" || !strings.Contains(got, "answer1 := 2.0") {
		t.Errorf("source answer cell:\n%s", got)
	}
	bad, _ := exercise.ParseSolutions([]byte("## answer1\n\n```go\nanswer1 := 2.0 /* a comment */\n```\n"))
	if _, err := Source("t", []byte(tinyChapter+blank+check), bad); !errors.Is(err, ErrCourse) || !strings.Contains(err.Error(), "*/") {
		t.Errorf("a solution with a block comment: %v", err)
	}
}

// TestWrite writes the course of one chapter and compares its
// nbgrader_config.py with the golden file.
func TestWrite(t *testing.T) {
	as, err := Chapters("01-collectives")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	written, err := Write(dir, Options{CourseID: "team", Exchange: "/srv/nbgrader/exchange"}, as)
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 2 {
		t.Fatalf("wrote %v", written)
	}
	nb, err := notebook.ReadFile(filepath.Join(dir, "source", "01-collectives", "01-collectives.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if lang := nb.Metadata["kernelspec"].(map[string]any)["language"]; lang != "go" {
		t.Errorf("kernelspec language %v: nbgrader picks the code stub by it", lang)
	}
	got, err := os.ReadFile(filepath.Join(dir, "nbgrader_config.py"))
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "nbgrader_config.py.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("nbgrader_config.py:\n%s\nwant (go test -update):\n%s", got, want)
	}
	if _, err := Chapters("00-tour"); err == nil {
		t.Error("the tour has no exercises, yet became an assignment")
	}
}
