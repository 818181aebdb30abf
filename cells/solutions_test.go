package cells_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/cells"
	"github.com/commlab/commlab/exercise"
	"github.com/commlab/commlab/notebook/runner"
	"github.com/commlab/commlab/trainer/solutions"
)

// TestSolutionsRun runs a chapter as shipped (every check not answered
// yet) and with its solutions (every check right), through RunFile as
// `commlab run` does.
func TestSolutionsRun(t *testing.T) {
	for _, tt := range []struct {
		solutions bool
		want      string
	}{{false, "not answered yet"}, {true, "right"}} {
		res, nb, _, err := runner.RunFile(context.Background(), mustJob(t, "testdata/blanks.md", nil), runner.FileOptions{
			Options:   runner.Options{CellTimeout: time.Minute},
			OutDir:    t.TempDir(),
			Cells:     cells.View(),
			Solutions: tt.solutions,
		})
		if err != nil || res.Status(false) != "ok" {
			t.Fatalf("solutions %v: %v (%v)", tt.solutions, err, res)
		}
		v := cells.ExerciseVerdicts(nb)
		if len(v) != 3 {
			t.Fatalf("solutions %v: verdicts %+v", tt.solutions, v)
		}
		if err := cells.ExpectExercises(v, tt.want); err != nil {
			t.Errorf("solutions %v: %v", tt.solutions, err)
		}
		if tt.solutions {
			if out := nb.Cells[3].Outputs; len(out) == 0 || !strings.Contains(out[0].Text, "solution for answer1 (blanks)") {
				t.Errorf("the blank cell does not say its solution ran: %+v", out)
			}
		}
	}
}

func TestSolutionsErrors(t *testing.T) {
	run := func(path string) error {
		_, _, _, err := runner.RunFile(context.Background(), mustJob(t, path, nil), runner.FileOptions{
			Options: runner.Options{CellTimeout: time.Minute}, OutDir: t.TempDir(), Solutions: true, Cells: cells.View()})
		return err
	}
	err := run("testdata/blanks-unknown.md")
	if !errors.Is(err, exercise.ErrSolutions) {
		t.Fatalf("unknown and missing: %v", err)
	}
	for _, want := range []string{"no solution for the blank answer cell(s) answer3", "solution(s) for answer9 but no blank answer cell sets them", "testdata/trainer/solutions/blanks-unknown.md"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}

	// A blank cell a learner changed is no longer blank: its solution has
	// no cell to replace.
	dir := t.TempDir()
	src, _ := os.ReadFile("testdata/blanks.md")
	edited := strings.Replace(string(src), "exercise.Duration(", "answer1 = 0.0 // changed in the check cell\nexercise.Duration(", 1)
	edited = strings.Replace(edited, "answer1 := 0.0 // your expression, in seconds", "answer1 := 0.0 // your expression, in seconds\nvar unrelated = 1", 1)
	if err := os.WriteFile(filepath.Join(dir, "blanks.md"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "trainer", "solutions"), 0o755); err != nil {
		t.Fatal(err)
	}
	sol, _ := os.ReadFile("testdata/trainer/solutions/blanks.md")
	if err := os.WriteFile(filepath.Join(dir, "trainer", "solutions", "blanks.md"), sol, 0o644); err != nil {
		t.Fatal(err)
	}
	err = run(filepath.Join(dir, "blanks.md"))
	if !errors.Is(err, exercise.ErrSolutions) || !strings.Contains(err.Error(), "answer1") {
		t.Fatalf("edited blank: %v", err)
	}

	// No trainer's folder for a notebook with blanks: the binary carries
	// no solutions to fall back on.
	other := filepath.Join(t.TempDir(), "77-none.md")
	if err := os.WriteFile(other, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(other); err == nil || !strings.Contains(err.Error(), "no trainer's folder") || !strings.Contains(err.Error(), "--solutions DIR") {
		t.Errorf("no trainer's folder: %v", err)
	}

	// A folder the trainer names: found there, or said missing there.
	runFrom := func(dir, path string) error {
		view := cells.View()
		view.Solutions = cells.TrainerSolutions(dir)
		_, _, _, err := runner.RunFile(context.Background(), mustJob(t, path, nil), runner.FileOptions{
			Options: runner.Options{CellTimeout: time.Minute}, OutDir: t.TempDir(), Solutions: true, Cells: view})
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "77-none.md"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runFrom(filepath.Join(dir, "trainer"), filepath.Join(dir, "77-none.md")); !errors.Is(err, solutions.ErrNoSolutions) {
		t.Errorf("a chapter the named folder lacks: %v", err)
	}
	if err := runFrom("testdata/trainer/solutions", other); err == nil || !strings.Contains(err.Error(), "77-none") {
		t.Errorf("a chapter the named folder lacks: %v", err)
	}
	if err := runFrom("testdata/trainer", "testdata/blanks.md"); err != nil {
		t.Errorf("the named trainer folder: %v", err)
	}
}

// TestSolutionsArgs holds that --solutions takes the folder after it and
// leaves a chapter after it alone.
func TestSolutionsArgs(t *testing.T) {
	got := cells.SolutionsArgs([]string{"--solutions", "testdata/trainer", "testdata/blanks.md", "-solutions", "testdata/blanks.md"})
	want := []string{"--solutions=testdata/trainer", "testdata/blanks.md", "-solutions", "testdata/blanks.md"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %q, want %q", got, want)
	}
	var f cells.SolutionsFlag
	for _, v := range []string{"true", "trainer"} {
		if err := f.Set(v); err != nil || !f.On {
			t.Errorf("Set(%q): %+v, %v", v, f, err)
		}
	}
	if f.Dir != "trainer" {
		t.Errorf("dir %q", f.Dir)
	}
}

func TestExpectExercises(t *testing.T) {
	v := []exercise.Verdict{{Name: "a", Status: "right"}, {Name: "b", Status: "wrong"}, {Name: "c", Status: "right"}}
	err := cells.ExpectExercises(v, "right")
	if !errors.Is(err, cells.ErrExercises) || !strings.Contains(err.Error(), `1 of 3 not right: "b" says wrong`) {
		t.Errorf("got %v", err)
	}
	if err := cells.ExpectExercises(nil, "right"); !errors.Is(err, cells.ErrExercises) {
		t.Errorf("none: %v", err)
	}
	if s := cells.SummarizeExercises(append(v, exercise.Verdict{Name: "d", Status: "not answered yet"})); s != "2 right, 1 wrong, 1 not answered yet" {
		t.Errorf("summary %q", s)
	}
}
