package session

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Solution mode: with a solution book set, a cell the book has a solution
// for (a blank answer cell as a chapter ships it) runs the solution
// instead, and says so in its output. The headless runner sets a book for
// `commlab run --solutions`; a trainer sets one in a live notebook with
// %solutions. The session knows no exercise format: the program hands in
// what reads one (Options.Solutions), and the book decides which cells it
// replaces; a book replaces only a cell as shipped, never an answer a
// learner typed.

// A SolutionBook is one chapter's solutions as solution mode applies them.
type SolutionBook interface {
	// For returns the answer cell sets and the code that runs instead
	// of it; ok is false for a cell that runs as it is.
	For(cell string) (answer, code string, ok bool)
	// Answers lists the answers the book has code for, in its order.
	Answers() []string
}

// Solutions finds solution books for %solutions.
type Solutions interface {
	// Load reads the book ref means (a solutions file, or a chapter's
	// solutions by its name, number or path) and says what it belongs
	// to.
	Load(ref string) (belongsTo string, book SolutionBook, err error)
	// Chapters lists the chapters Load finds by name, for %solutions'
	// own report.
	Chapters() []string
}

// solutionState is a session's solution mode.
type solutionState struct {
	chapter string // what the solutions belong to, for %solutions' report
	book    SolutionBook
	used    map[string]bool
}

// SetSolutions turns solution mode on with book (nil turns it off);
// chapter names it in messages.
func (s *Session) SetSolutions(chapter string, book SolutionBook) {
	s.run.Lock()
	defer s.run.Unlock()
	s.setSolutions(chapter, book)
}

func (s *Session) setSolutions(chapter string, book SolutionBook) {
	if book == nil {
		s.solutions = solutionState{}
		return
	}
	s.solutions = solutionState{chapter: chapter, book: book, used: map[string]bool{}}
}

// SolutionsUsed lists the answers whose solution ran instead of their
// blank cell since solution mode was turned on, in the book's order.
func (s *Session) SolutionsUsed() []string {
	s.run.Lock()
	defer s.run.Unlock()
	if s.solutions.book == nil {
		return nil
	}
	var used []string
	for _, name := range s.solutions.book.Answers() {
		if s.solutions.used[name] {
			used = append(used, name)
		}
	}
	return used
}

// solutionFor returns the code to run for a cell: its solution when the
// book has one for it, else the cell itself.
func (s *Session) solutionFor(code string) string {
	if s.solutions.book == nil {
		return code
	}
	answer, sol, ok := s.solutions.book.For(code)
	if !ok {
		return code
	}
	s.solutions.used[answer] = true
	s.streamSinkDirect("stdout", fmt.Sprintf("solution for %s (%s):\n%s\n", answer, s.solutions.chapter, sol))
	return sol
}

// magicSolutions is %solutions: with a chapter (or a solutions file), the
// blank answer cells run afterwards run their solutions; "off" ends it;
// alone, it says what is on.
func magicSolutions(s *Session, _ context.Context, args string) error {
	arg := strings.TrimSpace(args)
	switch arg {
	case "":
		if s.solutions.book == nil {
			if s.opts.Solutions == nil {
				s.streamSinkDirect("stdout", "solution mode is off; this session has no solutions to run\n")
				return nil
			}
			s.streamSinkDirect("stdout", "solution mode is off; %solutions CHAPTER turns it on (chapters with solutions: "+strings.Join(s.opts.Solutions.Chapters(), ", ")+")\n")
			return nil
		}
	case "off":
		s.setSolutions("", nil)
		s.streamSinkDirect("stdout", "solution mode is off: blank answer cells run as they are\n")
		return nil
	default:
		if s.opts.Solutions == nil {
			return magicError("solutions", fmt.Errorf("session: this session has no solutions to run"))
		}
		name, book, err := s.opts.Solutions.Load(arg)
		if err != nil {
			return magicError("solutions", fmt.Errorf("session: %w", err))
		}
		s.setSolutions(name, book)
	}
	names := slices.Clone(s.solutions.book.Answers())
	s.streamSinkDirect("stdout", fmt.Sprintf("solution mode is on for %s: the blank answer cells of %s run their solutions; run the exercises' cells again (Run All Below)\n",
		s.solutions.chapter, strings.Join(names, ", ")))
	return nil
}
