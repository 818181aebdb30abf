package session

import (
	"context"
	"fmt"
)

// Solution mode: with a solution book set, a cell the book has a solution
// for (a blank answer cell as a chapter ships it) runs the solution
// instead, and says so in its output. The headless runner sets a book for
// a trainer's run (`commlab run --solutions`). A live kernel has no way to
// set one: the trainer's answers stay outside the learner's notebook and
// kernel, and %solutions says so. The session knows no exercise format:
// the book decides which cells it replaces; a book replaces only a cell as
// shipped, never an answer a learner typed.

// A SolutionBook is one chapter's solutions as solution mode applies them.
type SolutionBook interface {
	// For returns the answer cell sets and the code that runs instead
	// of it; ok is false for a cell that runs as it is.
	For(cell string) (answer, code string, ok bool)
	// Answers lists the answers the book has code for, in its order.
	Answers() []string
}

// solutionState is a session's solution mode.
type solutionState struct {
	chapter string // what the solutions belong to, in the cells' output
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

// noSolutions is what %solutions answers: a learner's kernel has no
// command that runs or prints the trainer's answers.
const noSolutions = "%solutions: the trainer's solutions are not in this kernel: they stay in the trainer's folder, " +
	"outside the learner's notebook and kernel. A trainer runs a chapter with them headless " +
	"(commlab run --solutions) or works in nbgrader's source version of the course.\n"

// magicSolutions is %solutions, kept so that a notebook that calls it
// learns why nothing happens: a live session never runs the trainer's
// solutions.
func magicSolutions(s *Session, _ context.Context, _ string) error {
	s.streamSinkDirect("stdout", noSolutions)
	return nil
}
