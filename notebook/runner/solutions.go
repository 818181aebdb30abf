package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/commlab/commlab/exercise"
	"github.com/commlab/commlab/kernel/session"
	"github.com/commlab/commlab/notebook"
)

// SolutionsFor finds the trainer's solutions of a chapter or notebook:
// solutions/NAME.md in the file's own folder when it exists (so an edited
// solutions file counts without a rebuild), else the solutions embedded in
// the binary for the chapter of that name. It returns where they came from.
func SolutionsFor(path string) (*exercise.Solutions, string, error) {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	beside := filepath.Join(filepath.Dir(path), "solutions", base+".md")
	if src, err := os.ReadFile(beside); err == nil {
		sols, err := exercise.ParseSolutions(src)
		if err != nil {
			return nil, "", fmt.Errorf("lab: %s: %w", beside, err)
		}
		return sols, beside, nil
	}
	name, sols, err := session.LoadSolutions(base)
	if err != nil {
		return nil, "", fmt.Errorf("lab: %s: %w", path, err)
	}
	return sols, "embedded " + name, nil
}

// codeSources lists nb's code cells' sources.
func codeSources(nb *notebook.Notebook) []string {
	var cells []string
	for _, c := range nb.Cells {
		if c.Type == notebook.Code {
			cells = append(cells, c.Source)
		}
	}
	return cells
}

// HasBlankAnswers reports whether nb has a blank answer cell as a chapter
// ships it (exercise.BlankAnswer).
func HasBlankAnswers(nb *notebook.Notebook) bool {
	for _, c := range codeSources(nb) {
		if _, ok := exercise.BlankAnswer(c); ok {
			return true
		}
	}
	return false
}

// unusedSolutions is the error for solutions whose blank cell never ran
// as shipped during a run, nil when every one ran.
func unusedSolutions(sols *exercise.Solutions, used []string) error {
	ran := map[string]bool{}
	for _, u := range used {
		ran[u] = true
	}
	var unused []string
	for _, n := range sols.Names() {
		if !ran[n] {
			unused = append(unused, n)
		}
	}
	if len(unused) == 0 {
		return nil
	}
	return fmt.Errorf("%w: the solution(s) of %s never ran: no blank answer cell for them ran as shipped", exercise.ErrSolutions, strings.Join(unused, ", "))
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
