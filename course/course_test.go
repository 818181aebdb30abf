package course

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/commlab/commlab/exercise"
	"github.com/commlab/commlab/internal/golden"
)

// fromNotebooks is ToNotebook for the tests: the chapter's notebook in
// notebooks/, which CI holds in sync with its markdown (commlab sync --check).
func fromNotebooks(name string, _ []byte) ([]byte, error) {
	return os.ReadFile(filepath.Join("..", "notebooks", name+".ipynb"))
}

// sourceCells reads an assignment's notebook back.
func sourceCells(t *testing.T, a *Assignment) []cell {
	t.Helper()
	var nb struct {
		Cells    []cell         `json:"cells"`
		Metadata map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal(a.Notebook, &nb); err != nil {
		t.Fatal(err)
	}
	return nb.Cells
}

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
	as, err := Chapters(fromNotebooks, "../trainer")
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 8 {
		t.Fatalf("%d assignments, want one per chapter with exercises (8)", len(as))
	}
	for _, a := range as {
		t.Run(a.Name, func(t *testing.T) {
			solutionCells, checks := 0, 0
			for i, c := range sourceCells(t, a) {
				src := c.source()
				m, ok := CellMetadata(c.metadata())
				if !ok {
					t.Fatalf("cell %d has no nbgrader metadata", i+1)
				}
				switch {
				case m.Solution:
					solutionCells++
					if !strings.Contains(src, "// BEGIN SOLUTION\n") || strings.Count(src, "END SOLUTION") != 2 {
						t.Errorf("cell %d (%s) lacks its solution regions:\n%s", i+1, m.GradeID, src)
					}
					name, blank := exercise.BlankAnswer(clearSolutions(src))
					if !blank || name != m.GradeID {
						t.Errorf("cell %d: the learner's version is %q, not the blank of %s", i+1, clearSolutions(src), m.GradeID)
					}
				case m.Grade:
					checks++
					if strings.Contains(clearHiddenTests(src), "HIDDEN TESTS") {
						t.Errorf("cell %d (%s): a hidden test region nbgrader cannot clear:\n%s", i+1, m.GradeID, src)
					}
					if m.Points != 1 || !m.Locked || !exercise.IsCheck(src) {
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

// tinyNotebook is a chapter's notebook of the code cells given, each
// "META\nSOURCE" (META the cell's nbgrader JSON, or empty).
func tinyNotebook(t *testing.T, cells ...string) []byte {
	t.Helper()
	var cs []map[string]any
	for _, c := range cells {
		meta, src, _ := strings.Cut(c, "\n")
		m := map[string]any{}
		if meta != "" {
			var nbg map[string]any
			if err := json.Unmarshal([]byte(meta), &nbg); err != nil {
				t.Fatal(err)
			}
			m["nbgrader"] = nbg
		}
		cs = append(cs, map[string]any{"cell_type": "code", "id": "c" + strconv.Itoa(len(cs)), "metadata": m, "source": src, "outputs": []any{}, "execution_count": nil})
	}
	b, err := json.Marshal(map[string]any{"cells": cs, "metadata": map[string]any{"kernelspec": map[string]any{"language": "go", "name": "commlab"}}, "nbformat": 4, "nbformat_minor": 5})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSourceRefuses(t *testing.T) {
	sols, err := exercise.ParseSolutions([]byte("## answer1\n\n```go\nanswer1 := 2.0\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	const (
		blankMeta = `{"grade": false, "grade_id": "answer1", "locked": false, "schema_version": 3, "solution": true, "task": false}`
		checkMeta = `{"grade": true, "grade_id": "check-answer1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}`
		twoPoints = `{"grade": true, "grade_id": "check-answer1", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}`
		blankSrc  = "answer1 := 0.0 // your answer"
		checkSrc  = `exercise.Number("a", answer1, 2, 0, "")`
	)
	blank, check := blankMeta+"\n"+blankSrc, checkMeta+"\n"+checkSrc
	for _, tc := range []struct {
		name  string
		cells []string
		want  string
	}{
		{"a blank without metadata", []string{"\n" + blankSrc, check}, "needs nbgrader"},
		{"a check without metadata", []string{blank, "\n" + checkSrc}, "a check cell needs"},
		{"a check of 2 points", []string{blank, twoPoints + "\n" + checkSrc}, `"points": 1`},
		{"a grade cell that checks nothing", []string{blank, checkMeta + "\nfmt.Println(answer1)"}, "checks nothing"},
		{"no solution for the blank", []string{strings.ReplaceAll(blank, "answer1", "answer9"), check}, "no solution"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Source("t", tinyNotebook(t, tc.cells...), sols)
			if !errors.Is(err, ErrCourse) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want ErrCourse with %q", err, tc.want)
			}
		})
	}
	a, err := Source("t", tinyNotebook(t, blank, check), sols)
	if err != nil {
		t.Fatal(err)
	}
	if got := sourceCells(t, a)[0].source(); clearSolutions(got) != "\nanswer1 := 0.0 // your answer\n" || !strings.Contains(got, "answer1 := 2.0") {
		t.Errorf("source answer cell:\n%s", got)
	}
	bad, _ := exercise.ParseSolutions([]byte("## answer1\n\n```go\nanswer1 := 2.0 /* a comment */\n```\n"))
	if _, err := Source("t", tinyNotebook(t, blank, check), bad); !errors.Is(err, ErrCourse) || !strings.Contains(err.Error(), "*/") {
		t.Errorf("a solution with a block comment: %v", err)
	}
}

// clearHiddenTests is what nbgrader's ClearHiddenTests does to a grade
// cell with the course's settings: each line from one holding BEGIN
// HIDDEN TESTS to one holding END HIDDEN TESTS goes.
func clearHiddenTests(src string) string {
	var out []string
	in := false
	for _, line := range strings.Split(src, "\n") {
		switch {
		case strings.Contains(line, "BEGIN HIDDEN TESTS"):
			in = true
		case strings.Contains(line, "END HIDDEN TESTS"):
			in = false
		case !in:
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// TestSourceHidesReferences holds that an exercise whose reference the
// trainer holds back gets the reference's code in the check cell's hidden
// tests, that the learner's version (hidden tests cleared) is the chapter's
// check again, and that the blank reference cell stays as shipped.
func TestSourceHidesReferences(t *testing.T) {
	sols, err := exercise.ParseSolutions([]byte("## answer1\n\n```go\nanswer1 := \"PHB\"\n```\n\n## ref1\n\n```go\nref1 := \"PHB\"\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	const (
		blank    = `{"grade": false, "grade_id": "answer1", "locked": false, "schema_version": 3, "solution": true, "task": false}` + "\nanswer1 := \"\" // your answer"
		ref      = `{"grade": false, "grade_id": "ref1", "locked": true, "schema_version": 3, "solution": false, "task": false}` + "\nref1 := \"\" // the trainer's reference"
		checkSrc = `exercise.Choice("a", answer1, ref1, []string{"PIX", "PHB"}, "").Withheld()`
		check    = `{"grade": true, "grade_id": "check-answer1", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}` + "\n" + checkSrc
	)
	a, err := Source("t", tinyNotebook(t, blank, ref, check), sols)
	if err != nil {
		t.Fatal(err)
	}
	cs := sourceCells(t, a)
	if got := cs[1].source(); got != "ref1 := \"\" // the trainer's reference" {
		t.Errorf("the reference cell became %q", got)
	}
	got := cs[2].source()
	if !strings.Contains(got, "// BEGIN HIDDEN TESTS") || !strings.Contains(got, "ref1 := \"PHB\"") {
		t.Errorf("the check cell lacks the hidden reference:\n%s", got)
	}
	if cleared := clearHiddenTests(got); cleared != checkSrc {
		t.Errorf("the learner's check is\n%s\nwant\n%s", cleared, checkSrc)
	}
	if a.Points != 1 {
		t.Errorf("%g points", a.Points)
	}
	if _, err := Source("t", tinyNotebook(t, blank, check, ref), sols); !errors.Is(err, ErrCourse) || !strings.Contains(err.Error(), "no check cell after it") {
		t.Errorf("a reference after its check: %v", err)
	}
}

// TestWrite writes the course of one chapter and compares its
// nbgrader_config.py with the golden file.
func TestWrite(t *testing.T) {
	as, err := Chapters(fromNotebooks, "../trainer/solutions", "01-collectives")
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
	raw, err := os.ReadFile(filepath.Join(dir, "source", "01-collectives", "01-collectives.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Metadata struct {
			Kernelspec map[string]any `json:"kernelspec"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &nb); err != nil {
		t.Fatal(err)
	}
	if lang := nb.Metadata.Kernelspec["language"]; lang != "go" {
		t.Errorf("kernelspec language %v: nbgrader picks the code stub by it", lang)
	}
	got, err := os.ReadFile(filepath.Join(dir, "nbgrader_config.py"))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "nbgrader_config.py.golden"), got)
	if _, err := Chapters(fromNotebooks, "../trainer/solutions", "99-nothing"); err == nil {
		t.Error("a chapter without solutions became an assignment")
	}
	if _, err := Chapters(fromNotebooks, t.TempDir(), "01-collectives"); err == nil || !strings.Contains(err.Error(), "no solutions for this chapter") {
		t.Errorf("a trainer folder without the chapter's solutions: %v", err)
	}
}
