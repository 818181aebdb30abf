package course

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/commlab/commlab/chapters"
	"github.com/commlab/commlab/chapters/solutions"
	"github.com/commlab/commlab/exercise"
	"github.com/commlab/commlab/notebook"
	"github.com/commlab/commlab/notebook/literate"
)

// ErrCourse marks a chapter whose exercises cannot become an assignment:
// a blank answer cell without nbgrader's solution metadata or without a
// solution, a check cell without points, a solution nbgrader's regions
// cannot hold.
var ErrCourse = errors.New("course: bad assignment")

// Metadata is nbgrader's cell metadata (schema version 3), as a chapter's
// cell carries it under "nbgrader".
type Metadata struct {
	GradeID  string
	Solution bool    // the learner writes this cell
	Grade    bool    // autograded: a test cell, scored by its output
	Locked   bool    // restored from the source version before grading
	Points   float64 // a grade cell's points
}

// Map is m as the notebook stores it.
func (m Metadata) Map() map[string]any {
	out := map[string]any{"grade": m.Grade, "grade_id": m.GradeID, "locked": m.Locked,
		"schema_version": 3, "solution": m.Solution, "task": false}
	if m.Grade {
		out["points"] = m.Points
	}
	return out
}

// CellMetadata reads a cell's nbgrader metadata; ok is false when it has
// none.
func CellMetadata(c *notebook.Cell) (m Metadata, ok bool) {
	raw, ok := c.Metadata["nbgrader"].(map[string]any)
	if !ok {
		return Metadata{}, false
	}
	m.GradeID, _ = raw["grade_id"].(string)
	m.Solution, _ = raw["solution"].(bool)
	m.Grade, _ = raw["grade"].(bool)
	m.Locked, _ = raw["locked"].(bool)
	switch p := raw["points"].(type) {
	case float64:
		m.Points = p
	case int:
		m.Points = float64(p)
	case int64:
		m.Points = float64(p)
	}
	return m, true
}

// Assignment is one chapter as an nbgrader assignment.
type Assignment struct {
	Name   string // the chapter's name, "01-collectives": the assignment and its notebook
	Source *notebook.Notebook
	Points float64 // what the assignment's test cells give in all
}

// Source makes the nbgrader source notebook of a chapter (its literate
// markdown) with the trainer's solutions: each solution cell holds its
// answer inside solution regions around the chapter's blank, every cell
// without nbgrader metadata is locked. It checks that the chapter's
// metadata and its exercises agree.
func Source(name string, chapter []byte, sols *exercise.Solutions) (*Assignment, error) {
	nb, err := literate.Parse(chapter)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCourse, name, err)
	}
	if err := sols.Match(codeSources(nb)); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCourse, name, err)
	}
	nb.EnsureIDs()
	a := &Assignment{Name: name, Source: nb}
	seen := map[string]bool{}
	for i, c := range nb.Cells {
		m, has := CellMetadata(c)
		blankName, blank := "", false
		if c.Type == notebook.Code {
			blankName, blank = exercise.BlankAnswer(c.Source)
		}
		check := c.Type == notebook.Code && exercise.IsCheck(c.Source)
		where := fmt.Sprintf("%s: cell %d", name, i+1)
		switch {
		case blank && (!has || !m.Solution || m.GradeID != blankName):
			return nil, fmt.Errorf("%w: %s: the blank answer cell of %s needs nbgrader={... \"grade_id\": %q, \"solution\": true ...}", ErrCourse, where, blankName, blankName)
		case check && (!has || !m.Grade || m.Points != 1 || !m.Locked):
			// In the grader's view a check cell's result is the share of
			// its checks that are right: nbgrader's partial credit of 1 point.
			return nil, fmt.Errorf("%w: %s: a check cell needs nbgrader={... \"grade\": true, \"locked\": true, \"points\": 1 ...}", ErrCourse, where)
		case has && m.Solution && !blank:
			return nil, fmt.Errorf("%w: %s: a solution cell (%s) that is not a blank answer cell as a chapter ships it", ErrCourse, where, m.GradeID)
		case has && m.Grade && !check:
			return nil, fmt.Errorf("%w: %s: a grade cell (%s) that checks nothing", ErrCourse, where, m.GradeID)
		}
		if !has {
			c.Metadata["nbgrader"] = Metadata{GradeID: c.ID, Locked: true}.Map()
			continue
		}
		if m.GradeID == "" || seen[m.GradeID] {
			return nil, fmt.Errorf("%w: %s: grade_id %q empty or not unique", ErrCourse, where, m.GradeID)
		}
		seen[m.GradeID] = true
		a.Points += m.Points
		if blank {
			sol, _ := sols.For(c.Source)
			src, err := solutionCell(c.Source, sol)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrCourse, where, err)
			}
			c.Source = src
		}
	}
	return a, nil
}

func codeSources(nb *notebook.Notebook) []string {
	var cells []string
	for _, c := range nb.Cells {
		if c.Type == notebook.Code {
			cells = append(cells, c.Source)
		}
	}
	return cells
}

// solutionCell is the source version of a blank answer cell: the answer
// runs, the blank sits in a comment that generate_assignment uncovers.
func solutionCell(blank string, sol exercise.Solution) (string, error) {
	for _, bad := range []string{"*/", "/*", "BEGIN SOLUTION", "END SOLUTION"} {
		if strings.Contains(sol.Code, bad) || strings.Contains(blank, bad) {
			return "", fmt.Errorf("the solution of %s holds %q, which the solution regions cannot", sol.Name, bad)
		}
	}
	return "// BEGIN SOLUTION\n" + strings.TrimSpace(sol.Code) +
		"\n/* END SOLUTION: the learner's version has the blank below\n" + strings.TrimSpace(blank) +
		"\nBEGIN SOLUTION */\n// END SOLUTION", nil
}

// Chapters makes the assignments of the chapters named (all with
// exercises when none is), from the chapters and solutions this binary
// carries.
func Chapters(names ...string) ([]*Assignment, error) {
	if len(names) == 0 {
		names = solutions.Names()
	}
	var out []*Assignment
	for _, ref := range names {
		name, solSrc, err := solutions.Find(ref)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrCourse, ref, err)
		}
		sols, err := exercise.ParseSolutions(solSrc)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrCourse, name, err)
		}
		md, err := chapters.Read(name + ".md")
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrCourse, name, err)
		}
		a, err := Source(name, md, sols)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// Options are the course's settings in nbgrader_config.py.
type Options struct {
	CourseID string // nbgrader's course id; "commlab" when empty
	Exchange string // the exchange folder every learner can write to; nbgrader's default when empty
}

// Write writes the course into dir: nbgrader_config.py and, for each
// assignment, source/NAME/NAME.ipynb. It returns the files written.
func Write(dir string, opts Options, assignments []*Assignment) ([]string, error) {
	var written []string
	cfg := filepath.Join(dir, "nbgrader_config.py")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("course: %w", err)
	}
	if err := notebook.WriteFileAtomic(cfg, []byte(Config(opts))); err != nil {
		return nil, fmt.Errorf("course: %w", err)
	}
	written = append(written, cfg)
	for _, a := range assignments {
		p := filepath.Join(dir, "source", a.Name, a.Name+".ipynb")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return written, fmt.Errorf("course: %w", err)
		}
		if err := notebook.WriteFile(p, a.Source); err != nil {
			return written, fmt.Errorf("course: %w", err)
		}
		written = append(written, p)
	}
	return written, nil
}

// Config is the course's nbgrader_config.py: the Go code stub (empty:
// the blank line outside the solution regions is the learner's cell),
// the grader's view of the checks for the kernels nbgrader starts, and
// the exchange.
func Config(opts Options) string {
	id := opts.CourseID
	if id == "" {
		id = "commlab"
	}
	var b strings.Builder
	b.WriteString("# nbgrader_config.py of a commlab course, written by `commlab course`.\n")
	b.WriteString("import os\n\nc = get_config()  # noqa: F821\n")
	fmt.Fprintf(&b, "c.CourseDirectory.course_id = %s\n", pyString(id))
	if opts.Exchange != "" {
		fmt.Fprintf(&b, "c.Exchange.root = %s\n", pyString(opts.Exchange))
	}
	b.WriteString(`# Go solution regions: the lines from BEGIN SOLUTION to END SOLUTION go,
# and the blank answer line between two regions stays as the learner's cell.
c.ClearSolutions.code_stub = {"go": ""}
c.ClearSolutions.begin_solution_delimeter = "BEGIN SOLUTION"
c.ClearSolutions.end_solution_delimeter = "END SOLUTION"
# The kernels nbgrader starts (autograde) show each wrong answer's
# reference on the feedback page and give each check cell's score.
os.environ["COMMLAB_EXERCISE_VIEW"] = "grader"
c.Execute.timeout = 600
`)
	return b.String()
}

// pyString quotes s as a Python string literal.
func pyString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
