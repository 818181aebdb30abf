package cells

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/commlab/commlab/exercise"
	"github.com/commlab/commlab/notebook"
)

// HasBlankAnswers reports whether nb has a blank answer cell as a chapter
// ships it (exercise.BlankAnswer).
func HasBlankAnswers(nb *notebook.Notebook) bool {
	var cells []string
	for _, c := range nb.Cells {
		if c.Type == notebook.Code {
			cells = append(cells, c.Source)
		}
	}
	return hasBlank(cells)
}

// ExerciseVerdicts collects the verdicts of an executed notebook's check
// cells (what exercise's checks carry under exercise.MIMEType), in
// order.
func ExerciseVerdicts(nb *notebook.Notebook) []exercise.Verdict {
	var all []exercise.Verdict
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			raw, ok := o.Data[exercise.MIMEType]
			if !ok {
				continue
			}
			b, err := json.Marshal(raw)
			if err != nil {
				continue
			}
			var v struct {
				Checks []exercise.Verdict `json:"checks"`
			}
			if json.Unmarshal(b, &v) == nil {
				all = append(all, v.Checks...)
			}
		}
	}
	return all
}

// ErrExercises: an executed notebook's exercises do not say what a run
// expected of them.
var ErrExercises = errors.New("lab: exercises")

// ExpectExercises holds that every verdict has the status want ("right"
// after a run with solutions, "not answered yet" for a notebook as
// shipped) and that there is at least one (callers ask only of notebooks
// with blank answer cells); the error names each check that differs.
func ExpectExercises(verdicts []exercise.Verdict, want string) error {
	if len(verdicts) == 0 {
		return fmt.Errorf("%w: no exercise checks ran (expected every one %s)", ErrExercises, want)
	}
	var off []string
	for _, v := range verdicts {
		if v.Status != want {
			off = append(off, fmt.Sprintf("%q says %s", v.Name, v.Status))
		}
	}
	if len(off) > 0 {
		return fmt.Errorf("%w: %d of %d not %s: %s", ErrExercises, len(off), len(verdicts), want, strings.Join(off, "; "))
	}
	return nil
}

// SummarizeExercises counts verdicts by status: "3 right, 1 wrong".
func SummarizeExercises(verdicts []exercise.Verdict) string {
	order := []string{"right", "wrong", "not answered yet", "cannot check"}
	count := map[string]int{}
	for _, v := range verdicts {
		count[v.Status]++
	}
	var parts []string
	for _, st := range order {
		if count[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[st], st))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// ExerciseExpectation is the status --expect-exercises asks of every
// check ("" for none), given the flag's value and whether the run has
// --solutions.
func ExerciseExpectation(flag string, solutions bool) (string, error) {
	switch strings.TrimSpace(flag) {
	case "":
		if solutions {
			return "right", nil
		}
		return "", nil
	case "right":
		return "right", nil
	case "blank", "not answered yet":
		if solutions {
			return "", fmt.Errorf("--expect-exercises blank contradicts --solutions, after which every check says right")
		}
		return "not answered yet", nil
	}
	return "", fmt.Errorf("--expect-exercises %q: want right or blank", flag)
}

// ExerciseReport is the exercise line of a headless run (runner.Batch's
// Exercises): the summary of an executed notebook's checks, shown when it
// has checks or, with want set, blank answer cells; and the error when
// the checks do not all say want ("" expects nothing).
func ExerciseReport(want string) func(nb *notebook.Notebook) (summary string, show bool, err error) {
	return func(nb *notebook.Notebook) (string, bool, error) {
		verdicts := ExerciseVerdicts(nb)
		if len(verdicts) == 0 && (want == "" || !HasBlankAnswers(nb)) {
			return "", false, nil
		}
		if want == "" {
			return SummarizeExercises(verdicts), true, nil
		}
		return SummarizeExercises(verdicts), true, ExpectExercises(verdicts, want)
	}
}
