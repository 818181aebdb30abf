package course

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/commlab/commlab/atomicfile"
	"github.com/commlab/commlab/chapters"
	"github.com/commlab/commlab/exercise"
	"github.com/commlab/commlab/trainer/solutions"
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

// CellMetadata reads the nbgrader metadata of a cell's metadata; ok is
// false when it has none.
func CellMetadata(meta map[string]any) (m Metadata, ok bool) {
	raw, ok := meta["nbgrader"].(map[string]any)
	if !ok {
		return Metadata{}, false
	}
	m.GradeID, _ = raw["grade_id"].(string)
	m.Solution, _ = raw["solution"].(bool)
	m.Grade, _ = raw["grade"].(bool)
	m.Locked, _ = raw["locked"].(bool)
	m.Points, _ = raw["points"].(float64)
	return m, true
}

// Assignment is one chapter as an nbgrader assignment.
type Assignment struct {
	Name     string // the chapter's name, "01-collectives": the assignment and its notebook
	Notebook []byte // the source notebook, nbformat 4 JSON
	Points   float64
}

// cell is the part of an nbformat cell the course reads and writes.
type cell map[string]any

func (c cell) kind() string { s, _ := c["cell_type"].(string); return s }

func (c cell) metadata() map[string]any {
	m, ok := c["metadata"].(map[string]any)
	if !ok {
		m = map[string]any{}
		c["metadata"] = m
	}
	return m
}

// source is the cell's source, which nbformat stores as a string or a
// list of lines.
func (c cell) source() string {
	switch s := c["source"].(type) {
	case string:
		return s
	case []any:
		var b strings.Builder
		for _, line := range s {
			l, _ := line.(string)
			b.WriteString(l)
		}
		return b.String()
	}
	return ""
}

// setSource stores src as Jupyter writes it: lines, each with its newline.
func (c cell) setSource(src string) {
	lines := []any{}
	for l := range strings.Lines(src) {
		lines = append(lines, l)
	}
	c["source"] = lines
}

// Source makes the nbgrader source notebook of a chapter (its notebook,
// nbformat JSON) with the trainer's solutions: each solution cell holds its
// answer inside solution regions around the chapter's blank, every cell
// without nbgrader metadata is locked. It checks that the chapter's
// metadata and its exercises agree.
func Source(name string, chapterNotebook []byte, sols *exercise.Solutions) (*Assignment, error) {
	var nb map[string]any
	if err := json.Unmarshal(chapterNotebook, &nb); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCourse, name, err)
	}
	rawCells, _ := nb["cells"].([]any)
	var code []string
	cells := make([]cell, 0, len(rawCells))
	for _, rc := range rawCells {
		c, ok := rc.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: %s: a cell is not an object", ErrCourse, name)
		}
		cells = append(cells, c)
		if cell(c).kind() == "code" {
			code = append(code, cell(c).source())
		}
	}
	if err := sols.Match(code); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCourse, name, err)
	}
	a := &Assignment{Name: name}
	seen := map[string]bool{}
	// hidden is the code of the reference cells met since the last check
	// cell: the next check cell runs it in nbgrader's hidden tests.
	var hidden []exercise.Solution
	for i, c := range cells {
		src := c.source()
		m, has := CellMetadata(c.metadata())
		blankName, blank := "", false
		if c.kind() == "code" {
			blankName, blank = exercise.BlankAnswer(src)
		}
		check := c.kind() == "code" && exercise.IsCheck(src)
		where := fmt.Sprintf("%s: cell %d", name, i+1)
		reference := blank && has && !m.Solution && !m.Grade && m.Locked && m.GradeID == blankName
		switch {
		case reference:
			sol, _ := sols.For(src)
			hidden = append(hidden, sol)
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
		if check && len(hidden) > 0 {
			withTests, err := hiddenTests(src, hidden)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrCourse, where, err)
			}
			c.setSource(withTests)
			hidden = nil
		}
		if !has {
			id, _ := c["id"].(string)
			if id == "" {
				id = fmt.Sprintf("cell-%d", i+1)
			}
			c.metadata()["nbgrader"] = Metadata{GradeID: id, Locked: true}.Map()
			continue
		}
		if m.GradeID == "" || seen[m.GradeID] {
			return nil, fmt.Errorf("%w: %s: grade_id %q empty or not unique", ErrCourse, where, m.GradeID)
		}
		seen[m.GradeID] = true
		a.Points += m.Points
		if blank && !reference {
			sol, _ := sols.For(src)
			withAnswer, err := solutionCell(src, sol)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrCourse, where, err)
			}
			c.setSource(withAnswer)
		}
	}
	if len(hidden) > 0 {
		return nil, fmt.Errorf("%w: %s: the reference cell of %s has no check cell after it", ErrCourse, name, hidden[0].Name)
	}
	out, err := json.MarshalIndent(nb, "", " ")
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCourse, name, err)
	}
	a.Notebook = append(out, '\n')
	return a, nil
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

// hiddenTests is the source version of a check cell whose exercise holds
// its reference back (exercise's Withheld): the trainer's reference code
// runs first, in nbgrader's hidden tests, which generate_assignment
// removes from the learner's version and autograde puts back. The
// chapter's blank reference cell before it stays, so the learner's check
// says "checked when graded"; in the source version and when graded the
// code here sets the reference again.
func hiddenTests(check string, refs []exercise.Solution) (string, error) {
	var b strings.Builder
	b.WriteString("// BEGIN HIDDEN TESTS: the trainer's reference, in neither the learner's version nor the chapter\n")
	for _, r := range refs {
		if strings.Contains(r.Code, "HIDDEN TESTS") || strings.Contains(check, "HIDDEN TESTS") {
			return "", fmt.Errorf("the reference of %s holds \"HIDDEN TESTS\", which nbgrader's regions cannot", r.Name)
		}
		b.WriteString(strings.TrimSpace(r.Code) + "\n")
	}
	b.WriteString("// END HIDDEN TESTS\n")
	return b.String() + check, nil
}

// ToNotebook turns a chapter's literate markdown into its notebook
// (nbformat JSON): the commlab command does it with notebook/literate,
// which the course, on the subject's side, does not import.
type ToNotebook func(name string, markdown []byte) ([]byte, error)

// Chapters makes the assignments of the chapters named (all with
// exercises when none is), from the chapters this binary carries and the
// trainer's solutions in solutionsDir (trainer/solutions.Dir: a solutions
// folder or a trainer folder; the binary carries none).
func Chapters(toNotebook ToNotebook, solutionsDir string, names ...string) ([]*Assignment, error) {
	dir, err := solutions.Dir(solutionsDir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCourse, err)
	}
	if len(names) == 0 {
		if names, err = solutions.Names(dir); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCourse, err)
		}
	}
	var out []*Assignment
	for _, ref := range names {
		name, solSrc, err := solutions.Find(dir, ref)
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
		nb, err := toNotebook(name, md)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrCourse, name, err)
		}
		a, err := Source(name, nb, sols)
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
	if err := atomicfile.Write(cfg, []byte(Config(opts)), 0o644); err != nil {
		return nil, fmt.Errorf("course: %w", err)
	}
	written = append(written, cfg)
	for _, a := range assignments {
		p := filepath.Join(dir, "source", a.Name, a.Name+".ipynb")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return written, fmt.Errorf("course: %w", err)
		}
		if err := atomicfile.Write(p, a.Notebook, 0o644); err != nil {
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
# An exercise that holds its reference back runs it in hidden tests,
# which the learner's version lacks and autograde restores.
c.ClearHiddenTests.begin_test_delimeter = "BEGIN HIDDEN TESTS"
c.ClearHiddenTests.end_test_delimeter = "END HIDDEN TESTS"
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
