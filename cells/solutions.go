package cells

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/commlab/commlab/exercise"
	"github.com/commlab/commlab/kernel/session"
	"github.com/commlab/commlab/notebook/runner"
	"github.com/commlab/commlab/trainer/solutions"
)

// trainerSolutions is solution mode's source: the trainer's solutions
// files, read by exercise, from a folder the trainer names (dir) or, when
// dir is empty, the clone's trainer folder found from each chapter's path
// (trainer/solutions.Locate). The binary carries none. The runner applies
// them; a live kernel never gets them.
type trainerSolutions struct{ dir string }

var _ runner.Solutions = trainerSolutions{}

// TrainerSolutions reads the trainer's solutions from dir (a solutions
// folder, or a trainer folder holding solutions/); "" finds the clone's
// trainer folder from each chapter's path. It replaces View's
// Solutions for `commlab run --solutions DIR`. A relative dir is taken
// from the current folder now: a run moves into each notebook's folder.
func TrainerSolutions(dir string) runner.Solutions {
	if dir != "" {
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
	}
	return trainerSolutions{dir: dir}
}

// book is one chapter's solutions as the session applies them.
type book struct{ *exercise.Solutions }

var _ session.SolutionBook = book{}

func (b book) For(cell string) (answer, code string, ok bool) {
	sol, ok := b.Solutions.For(cell)
	return sol.Name, sol.Code, ok
}

func (b book) Answers() []string { return b.Names() }

// ForRun finds the solutions of the chapter or notebook at path (solutionsFor)
// when its cells have a blank answer cell, and holds them against the cells.
func (t trainerSolutions) ForRun(path string, cells []string) (session.SolutionBook, string, error) {
	if !hasBlank(cells) {
		return nil, "", nil
	}
	sols, from, err := t.solutionsFor(path)
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

// solutionsFor reads the trainer's solutions of a chapter or notebook:
// NAME.md (the file's name) in the trainer's folder. It returns where they
// came from.
func (t trainerSolutions) solutionsFor(path string) (*exercise.Solutions, string, error) {
	var dir string
	var err error
	if t.dir != "" {
		dir, err = solutions.Dir(t.dir)
	} else {
		dir, err = solutions.Locate(path)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	name, src, err := solutions.Find(dir, base)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	from := filepath.Join(dir, name+".md")
	sols, err := exercise.ParseSolutions(src)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", from, err)
	}
	return sols, from, nil
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

// SolutionsFlag is `commlab run`'s --solutions: alone, the trainer's
// solutions come from the clone's trainer folder; --solutions=DIR (or
// --solutions DIR, see SolutionsArgs) names the folder.
type SolutionsFlag struct {
	On  bool
	Dir string
}

func (f *SolutionsFlag) String() string {
	if f == nil || !f.On {
		return ""
	}
	return f.Dir
}

// Set takes "true" (the flag alone), "false", or a folder.
func (f *SolutionsFlag) Set(v string) error {
	switch v {
	case "true":
		f.On, f.Dir = true, ""
	case "false":
		f.On, f.Dir = false, ""
	default:
		f.On, f.Dir = true, v
	}
	return nil
}

// IsBoolFlag lets --solutions stand alone.
func (f *SolutionsFlag) IsBoolFlag() bool { return true }

// Solutions is the source of a run's solutions the flag asks for.
func (f *SolutionsFlag) Solutions() runner.Solutions { return TrainerSolutions(f.Dir) }

// SolutionsArgs joins `--solutions DIR` into `--solutions=DIR` when DIR is
// a folder, so the flag (a boolean one, to stand alone) takes it: the
// notebooks and chapters a run takes are files, never folders.
func SolutionsArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if (a == "--solutions" || a == "-solutions") && i+1 < len(args) {
			if info, err := os.Stat(args[i+1]); err == nil && info.IsDir() {
				out = append(out, a+"="+args[i+1])
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}
