package session

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/commlab/commlab/chapters/solutions"
	"github.com/commlab/commlab/exercise"
)

// Solution mode: with solutions set, a cell that is a blank answer cell as
// a chapter ships it (exercise.BlankAnswer) and has a solution runs the
// solution instead, and says so in its output. The headless runner sets
// them for `commlab run --solutions`; a trainer sets them in a live
// notebook with %solutions. An answer a learner typed is never replaced.

// solutionState is a session's solution mode.
type solutionState struct {
	chapter string // what the solutions belong to, for %solutions' report
	sols    *exercise.Solutions
	used    map[string]bool
}

// SetSolutions turns solution mode on with sols (nil turns it off);
// chapter names them in messages.
func (s *Session) SetSolutions(chapter string, sols *exercise.Solutions) {
	s.run.Lock()
	defer s.run.Unlock()
	s.setSolutions(chapter, sols)
}

func (s *Session) setSolutions(chapter string, sols *exercise.Solutions) {
	if sols == nil {
		s.solutions = solutionState{}
		return
	}
	s.solutions = solutionState{chapter: chapter, sols: sols, used: map[string]bool{}}
}

// SolutionsUsed lists the answer variables whose solution ran instead of
// their blank cell since solution mode was turned on, in the solutions'
// order.
func (s *Session) SolutionsUsed() []string {
	s.run.Lock()
	defer s.run.Unlock()
	var used []string
	for _, name := range s.solutions.sols.Names() {
		if s.solutions.used[name] {
			used = append(used, name)
		}
	}
	return used
}

// solutionFor returns the code to run for a cell: its solution when the
// cell is a blank answer cell that has one, else the cell itself.
func (s *Session) solutionFor(code string) string {
	sol, ok := s.solutions.sols.For(code)
	if !ok {
		return code
	}
	s.solutions.used[sol.Name] = true
	s.streamSinkDirect("stdout", fmt.Sprintf("solution for %s (%s):\n%s\n", sol.Name, s.solutions.chapter, sol.Code))
	return sol.Code
}

// LoadSolutions reads the solutions ref means: a solutions file at that
// path, or the embedded solutions of a chapter named by its name, number or
// path (chapters/solutions.Find). It returns what the solutions belong to.
func LoadSolutions(ref string) (string, *exercise.Solutions, error) {
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
			return "", nil, fmt.Errorf("session: %w (and not a solutions file: %w)", err, fileErr)
		}
		return "", nil, fmt.Errorf("session: %w", err)
	}
	sols, err := exercise.ParseSolutions(src)
	if err != nil {
		return "", nil, fmt.Errorf("session: embedded solutions of %s: %w", name, err)
	}
	return name, sols, nil
}

// magicSolutions is %solutions: with a chapter (or a solutions file), the
// blank answer cells run afterwards run their solutions; "off" ends it;
// alone, it says what is on.
func magicSolutions(s *Session, _ context.Context, args string) error {
	arg := strings.TrimSpace(args)
	switch arg {
	case "":
		if s.solutions.sols == nil {
			s.streamSinkDirect("stdout", "solution mode is off; %solutions CHAPTER turns it on (chapters with solutions: "+strings.Join(solutions.Names(), ", ")+")\n")
			return nil
		}
	case "off":
		s.setSolutions("", nil)
		s.streamSinkDirect("stdout", "solution mode is off: blank answer cells run as they are\n")
		return nil
	default:
		name, sols, err := LoadSolutions(arg)
		if err != nil {
			return magicError("solutions", err)
		}
		s.setSolutions(name, sols)
	}
	names := slices.Clone(s.solutions.sols.Names())
	s.streamSinkDirect("stdout", fmt.Sprintf("solution mode is on for %s: the blank answer cells of %s run their solutions; run the exercises' cells again (Run All Below)\n",
		s.solutions.chapter, strings.Join(names, ", ")))
	return nil
}
