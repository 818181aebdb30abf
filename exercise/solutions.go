package exercise

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"sort"
	"strings"
)

// A shipped chapter leaves each answer cell blank: one line that sets the
// answer variable to its zero value, with a comment saying what to write.
//
//	answer1 := 0.0 // your expression, in seconds
//	answer3 := ""  // your answer: PIX, PXB, PHB, NODE or SYS
//
// The checks say "not answered yet" for these values, so a blank chapter
// runs to the end. The trainer's answers live apart, in a solutions file
// (ParseSolutions), one entry per answer variable; in solution mode the
// runner and the kernel run an entry's code instead of the blank cell it
// names, and only instead of that cell as shipped: an answer a learner
// typed is never replaced.

// blankLine is the shipped blank: NAME := zero value, then an optional
// comment. 0.0, 0 and "" are the zero values the checks take for blank.
var blankLine = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*:=\s*(0\.0|0|"")\s*(//.*)?$`)

// BlankAnswer reports whether cell is a blank answer cell as a chapter
// ships it, and the answer variable it sets. Surrounding blank lines and
// spaces do not count; anything else does, so a cell a learner changed is
// not blank.
func BlankAnswer(cell string) (name string, ok bool) {
	line := strings.TrimSpace(cell)
	if strings.ContainsAny(line, "\n\r") {
		return "", false
	}
	m := blankLine.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// Solution is the trainer's answer to one exercise: the code that replaces
// the blank cell setting Name.
type Solution struct {
	Name string
	Code string
	// Line is where the code starts in the solutions file, 1-based.
	Line int
}

// Solutions are one chapter's solutions, in file order.
type Solutions struct {
	// Title is the file's first-level heading ("" when it has none).
	Title string
	List  []Solution
}

// ErrSolutions marks a solutions file that cannot be read: every error of
// ParseSolutions and of Solutions.Match wraps it.
var ErrSolutions = errors.New("exercise: bad solutions")

// ParseSolutions reads a solutions file: Markdown in which every
// second-level heading is the name of an answer variable and the one Go
// code block under it (a ```go fence) is the code that replaces that
// variable's blank cell. Prose between them is for the trainer. The code
// must set the variable at its top level (NAME := ... or NAME = ...).
//
//	# Solutions: 1. Collectives and the cost model
//
//	## answer1
//
//	Thirty steps of 5 us, plus 1.875 x 256 MiB at 50 GB/s.
//
//	```go
//	answer1 := 2*(16-1)*5e-6 + 2*float64(16-1)/16*float64(256<<20)/50e9
//	```
func ParseSolutions(src []byte) (*Solutions, error) {
	s := &Solutions{}
	seen := map[string]int{}
	var cur *Solution
	var code []string
	inFence, fenced := false, false
	fenceLine := 0
	finish := func() error {
		if cur == nil {
			return nil
		}
		if !fenced {
			return fmt.Errorf("%w: line %d: %s has no ```go code block", ErrSolutions, cur.Line, cur.Name)
		}
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), " \t\r")
		trimmed := strings.TrimSpace(line)
		if inFence {
			if strings.HasPrefix(trimmed, "```") && strings.Trim(trimmed, "`") == "" {
				inFence = false
				if cur != nil && fenced && cur.Code == "" {
					cur.Code = strings.Join(code, "\n")
					if err := checkSolution(*cur); err != nil {
						return nil, err
					}
				}
				code = nil
				continue
			}
			code = append(code, line)
			continue
		}
		if strings.HasPrefix(trimmed, "```") {
			info := strings.TrimSpace(strings.TrimLeft(trimmed, "`"))
			lang, _, _ := strings.Cut(info, " ")
			inFence, fenceLine = true, n
			if cur == nil {
				continue // an example before the first entry is prose
			}
			if lang != "go" {
				return nil, fmt.Errorf("%w: line %d: the code block of %s is %q, want ```go", ErrSolutions, n, cur.Name, info)
			}
			if fenced {
				return nil, fmt.Errorf("%w: line %d: %s has a second code block; one per answer", ErrSolutions, n, cur.Name)
			}
			fenced = true
			cur.Line = n + 1
			continue
		}
		if t, ok := strings.CutPrefix(trimmed, "# "); ok && s.Title == "" && cur == nil {
			s.Title = strings.TrimSpace(t)
			continue
		}
		if name, ok := strings.CutPrefix(trimmed, "## "); ok {
			if err := finish(); err != nil {
				return nil, err
			}
			name = strings.Trim(strings.TrimSpace(name), "`")
			if !token.IsIdentifier(name) {
				return nil, fmt.Errorf("%w: line %d: heading %q is not an answer variable's name", ErrSolutions, n, name)
			}
			if first, dup := seen[name]; dup {
				return nil, fmt.Errorf("%w: line %d: %s again (first at line %d)", ErrSolutions, n, name, first)
			}
			seen[name] = n
			s.List = append(s.List, Solution{Name: name, Line: n})
			cur, fenced = &s.List[len(s.List)-1], false
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSolutions, err)
	}
	if inFence {
		return nil, fmt.Errorf("%w: line %d: code block not closed", ErrSolutions, fenceLine)
	}
	if err := finish(); err != nil {
		return nil, err
	}
	if len(s.List) == 0 {
		return nil, fmt.Errorf("%w: no solutions (want ## NAME headings, each with a ```go block)", ErrSolutions)
	}
	return s, nil
}

// checkSolution holds that a solution's code is Go statements that set
// its variable at their top level.
func checkSolution(sol Solution) error {
	if strings.TrimSpace(sol.Code) == "" {
		return fmt.Errorf("%w: line %d: the code of %s is empty", ErrSolutions, sol.Line, sol.Name)
	}
	fset := token.NewFileSet()
	// The prefix keeps the code's own line numbers in the parser's errors.
	f, err := parser.ParseFile(fset, "", "package p; func _() {\n"+sol.Code+"\n}", 0)
	if err != nil {
		return fmt.Errorf("%w: %s (line %d): %w", ErrSolutions, sol.Name, sol.Line, err)
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	for _, st := range body.List {
		switch st := st.(type) {
		case *ast.AssignStmt:
			for _, lhs := range st.Lhs {
				if id, ok := lhs.(*ast.Ident); ok && id.Name == sol.Name {
					return nil
				}
			}
		case *ast.DeclStmt:
			if g, ok := st.Decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, spec := range g.Specs {
					for _, id := range spec.(*ast.ValueSpec).Names {
						if id.Name == sol.Name {
							return nil
						}
					}
				}
			}
		}
	}
	return fmt.Errorf("%w: line %d: the code of %s never sets %s at its top level", ErrSolutions, sol.Line, sol.Name, sol.Name)
}

// Names lists the answer variables s has solutions for, in file order.
func (s *Solutions) Names() []string {
	if s == nil {
		return nil
	}
	names := make([]string, len(s.List))
	for i, sol := range s.List {
		names[i] = sol.Name
	}
	return names
}

// For returns the solution that replaces cell: cell must be a blank answer
// cell as shipped (BlankAnswer) whose variable s has a solution for.
func (s *Solutions) For(cell string) (Solution, bool) {
	if s == nil {
		return Solution{}, false
	}
	name, ok := BlankAnswer(cell)
	if !ok {
		return Solution{}, false
	}
	for _, sol := range s.List {
		if sol.Name == name {
			return sol, true
		}
	}
	return Solution{}, false
}

// Match holds the solutions against a chapter's cells: every blank answer
// cell needs a solution, and every solution a blank cell. The error names
// each blank without a solution ("missing") and each solution without a
// blank ("unknown").
func (s *Solutions) Match(cells []string) error {
	blanks := map[string]bool{}
	var missing []string
	for _, c := range cells {
		name, ok := BlankAnswer(c)
		if !ok || blanks[name] {
			continue
		}
		blanks[name] = true
		if _, has := s.For(c); !has {
			missing = append(missing, name)
		}
	}
	var unknown []string
	for _, name := range s.Names() {
		if !blanks[name] {
			unknown = append(unknown, name)
		}
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "no solution for the blank answer cell(s) "+strings.Join(missing, ", "))
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		parts = append(parts, "solution(s) for "+strings.Join(unknown, ", ")+" but no blank answer cell sets them")
	}
	if len(parts) > 0 {
		return fmt.Errorf("%w: %s", ErrSolutions, strings.Join(parts, "; "))
	}
	return nil
}

// checkCall is a call of this package's checks in a cell's source.
var checkCall = regexp.MustCompile(`\bexercise\.(Number|Quantity|Duration|Bytes|Rate|Choice)\(|\bexercise\.Checks\{`)

// IsCheck says whether a cell checks an answer with this package. Its
// why-texts explain the answer, so chapters fold its code (the exported
// page and JupyterLab show the verdict; the reader opens the code after
// answering).
func IsCheck(cell string) bool { return checkCall.MatchString(cell) }
