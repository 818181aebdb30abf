package cells_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/cells"
	"github.com/commlab/commlab/notebook"
	"github.com/commlab/commlab/notebook/runner"
)

// TestExerciseCells runs check cells as a chapter has them, through the
// kernel's session and symbol tables: each shows its verdict box, and a
// wrong or blank answer leaves the run ok.
func TestExerciseCells(t *testing.T) {
	res, nb, _, err := runner.RunFile(context.Background(), mustJob(t, "testdata/exercise.md", nil), runner.FileOptions{
		Options: runner.Options{CellTimeout: time.Minute},
		OutDir:  t.TempDir(),
		Cells:   cells.View(),
	})
	if err != nil {
		t.Fatalf("RunFile: %v", err)
	}
	if st := res.Status(false); st != "ok" || res.Executed != 4 {
		t.Fatalf("status %s, executed %d", st, res.Executed)
	}
	code := codeCells(nb)
	want := []struct{ html, text string }{
		1: {`exercise-right`, "✓ right: ring all_reduce, 16 GPUs, 256 MB: 19.35 ms"},
		2: {`got <b>125,000</b>: too low by a few times; bits against bytes`, "✗ wrong: crossover, 8 GPUs, bytes"},
		3: {`1 of 2 right`, "… not answered yet: bound by"},
	}
	for i := 1; i < len(want); i++ {
		o := code[i].Outputs
		if len(o) != 1 || o[0].Type != notebook.ExecuteResult {
			t.Fatalf("cell %d outputs: %+v", i+1, o)
		}
		html, _ := o[0].Data["text/html"].(string)
		text, _ := o[0].Data["text/plain"].(string)
		if !strings.Contains(html, want[i].html) || !strings.Contains(text, want[i].text) {
			t.Errorf("cell %d:\nhtml %s\ntext %s\nwant %q and %q", i+1, html, text, want[i].html, want[i].text)
		}
	}
}

func TestExerciseExpectation(t *testing.T) {
	tests := []struct {
		flag      string
		solutions bool
		want      string
		err       bool
	}{
		{"", false, "", false},
		{"", true, "right", false},
		{"right", false, "right", false},
		{"blank", false, "not answered yet", false},
		{"blank", true, "", true},
		{"wrong", false, "", true},
	}
	for _, tc := range tests {
		got, err := cells.ExerciseExpectation(tc.flag, tc.solutions)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("ExerciseExpectation(%q, %v) = %q, %v", tc.flag, tc.solutions, got, err)
		}
	}
}

func TestExerciseReportWithoutChecks(t *testing.T) {
	nb := &notebook.Notebook{}
	if _, show, err := cells.ExerciseReport("right")(nb); show || err != nil {
		t.Errorf("a notebook without checks or blanks: show %v, err %v", show, err)
	}
}
