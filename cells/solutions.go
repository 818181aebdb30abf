package cells

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/commlab/commlab/chapters/solutions"
	"github.com/commlab/commlab/exercise"
	"github.com/commlab/commlab/kernel/session"
	"github.com/commlab/commlab/notebook/runner"
)

// trainerSolutions is solution mode's source: the trainer's solutions
// files, read by exercise, found beside a chapter or embedded
// (chapters/solutions). The session and the runner apply them.
type trainerSolutions struct{}

var _ runner.Solutions = trainerSolutions{}

// book is one chapter's solutions as the session applies them.
type book struct{ *exercise.Solutions }

var _ session.SolutionBook = book{}

func (b book) For(cell string) (answer, code string, ok bool) {
	sol, ok := b.Solutions.For(cell)
	return sol.Name, sol.Code, ok
}

func (b book) Answers() []string { return b.Names() }

// Chapters lists the chapters with embedded solutions.
func (trainerSolutions) Chapters() []string { return solutions.Names() }

// Load reads the solutions ref means: a solutions file at that path, or
// the embedded solutions of a chapter named by its name, number or path
// (chapters/solutions.Find). It returns what the solutions belong to.
func (trainerSolutions) Load(ref string) (string, session.SolutionBook, error) {
	name, sols, err := load(ref)
	if err != nil {
		return "", nil, err
	}
	return name, book{sols}, nil
}

func load(ref string) (string, *exercise.Solutions, error) {
	ref = strings.TrimSpace(ref)
	var fileErr error
	if src, err := os.ReadFile(ref); err == nil {
		sols, err := exercise.ParseSolutions(src)
		if err == nil {
			return ref, sols, nil
		}
		fileErr = fmt.Errorf("%s: %w", ref, err)
	}
	name, src, err := solutions.Find(ref)
	if err != nil {
		if fileErr != nil {
			return "", nil, fmt.Errorf("%w (and not a solutions file: %w)", err, fileErr)
		}
		return "", nil, err
	}
	sols, err := exercise.ParseSolutions(src)
	if err != nil {
		return "", nil, fmt.Errorf("embedded solutions of %s: %w", name, err)
	}
	return name, sols, nil
}

// ForRun finds the solutions of the chapter or notebook at path (solutionsFor)
// when its cells have a blank answer cell, and holds them against the cells.
func (trainerSolutions) ForRun(path string, cells []string) (session.SolutionBook, string, error) {
	if !hasBlank(cells) {
		return nil, "", nil
	}
	sols, from, err := solutionsFor(path)
	if err != nil {
		return nil, "", err
	}
	if err := sols.Match(cells); err != nil {
		return nil, from, err
	}
	return book{sols}, from, nil
}

// Unused is the error for solutions whose blank cell never ran as shipped
// during a run, nil when every one ran.
func (trainerSolutions) Unused(b session.SolutionBook, ran []string) error {
	did := map[string]bool{}
	for _, u := range ran {
		did[u] = true
	}
	var unused []string
	for _, n := range b.Answers() {
		if !did[n] {
			unused = append(unused, n)
		}
	}
	if len(unused) == 0 {
		return nil
	}
	return fmt.Errorf("%w: the solution(s) of %s never ran: no blank answer cell for them ran as shipped", exercise.ErrSolutions, strings.Join(unused, ", "))
}

// solutionsFor finds the trainer's solutions of a chapter or notebook:
// solutions/NAME.md in the file's own folder when it exists (so an edited
// solutions file counts without a rebuild), else the solutions embedded in
// the binary for the chapter of that name. It returns where they came from.
func solutionsFor(path string) (*exercise.Solutions, string, error) {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	beside := filepath.Join(filepath.Dir(path), "solutions", base+".md")
	if src, err := os.ReadFile(beside); err == nil {
		sols, err := exercise.ParseSolutions(src)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", beside, err)
		}
		return sols, beside, nil
	}
	name, sols, err := load(base)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return sols, "embedded " + name, nil
}

// hasBlank reports whether cells have a blank answer cell as a chapter
// ships it (exercise.BlankAnswer).
func hasBlank(cells []string) bool {
	for _, c := range cells {
		if _, ok := exercise.BlankAnswer(c); ok {
			return true
		}
	}
	return false
}
