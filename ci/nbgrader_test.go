package ci

import (
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/course"
	"github.com/commlab/commlab/exercise"
	"github.com/commlab/commlab/notebook"
)

// The nbgrader test is a trainer's whole cycle for chapter 1 with
// nbgrader of the venv (ci/requirements.txt) and a temporary exchange:
// `commlab course` writes the course, nbgrader makes the learner's version
// (every solution gone, the chapter's blanks back) and releases it; two
// learners, each with a home and an nbgrader_config.py of their own,
// fetch it, answer and submit (alice every exercise right, bob the first
// right, the second wrong, the rest blank); the trainer collects,
// autogrades through the commlab kernel and writes each learner a
// feedback page; the scores are read back from nbgrader's export.

const (
	gradedChapter = "01-collectives"
	// One point per check cell: chapter 1 has five.
	gradedPoints = "5.0"
)

// nbgraderStep runs one nbgrader command of the venv in dir with home as
// HOME, failing the test with its output.
func nbgraderStep(t *testing.T, venv, dir, home string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(venv, "bin", "nbgrader"), args...)
	cmd.Dir = dir
	cmd.Env = jupyterEnv(venv, home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nbgrader %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// answer writes the learner's answers into their fetched notebook: for
// each solution cell (by grade_id), the code given; the others stay blank.
func answer(t *testing.T, path string, answers map[string]string) {
	t.Helper()
	nb, err := notebook.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range nb.Cells {
		if m, ok := course.CellMetadata(c.Metadata); ok && m.Solution {
			if code, ok := answers[m.GradeID]; ok {
				c.Source = code
			}
		}
	}
	if err := notebook.WriteFile(path, nb); err != nil {
		t.Fatal(err)
	}
}

func TestNbgraderCycle(t *testing.T) {
	venv := requireVenv(t, "nbgrader")
	in := installInVenv(t, venv)
	dir := t.TempDir()
	courseDir, exchange := filepath.Join(dir, "course"), filepath.Join(dir, "exchange")
	if err := os.MkdirAll(exchange, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(exchange, 0o777); err != nil { // past the umask: every learner writes here
		t.Fatal(err)
	}
	trainerHome := filepath.Join(dir, "trainer")

	gen := exec.Command(in.bin, "course", "--out", courseDir, "--exchange", exchange, gradedChapter)
	if out, err := gen.CombinedOutput(); err != nil || !strings.Contains(string(out), "assignment "+gradedChapter+": 5 points") {
		t.Fatalf("commlab course: %v\n%s", err, out)
	}
	nbgraderStep(t, venv, courseDir, trainerHome, "generate_assignment", gradedChapter, "--force")

	// The learner's version: no solution and no held-back reference left,
	// each answer cell the chapter's blank, and it runs headless blank
	// and with --solutions. Alice's full score then shows that autograde
	// put the hidden references back.
	release := filepath.Join(courseDir, "release", gradedChapter, gradedChapter+".ipynb")
	released, err := notebook.ReadFile(release)
	if err != nil {
		t.Fatal(err)
	}
	// The trainer's folder: the binary carries no solutions, and the
	// learner's version, out of the clone, names the folder to run them.
	solDir, err := filepath.Abs(filepath.Join("..", "trainer", "solutions"))
	if err != nil {
		t.Fatal(err)
	}
	solSrc, err := os.ReadFile(filepath.Join(solDir, gradedChapter+".md"))
	if err != nil {
		t.Fatal(err)
	}
	sols, err := exercise.ParseSolutions(solSrc)
	if err != nil {
		t.Fatal(err)
	}
	blanks, references := 0, 0
	for _, c := range released.Cells {
		if strings.Contains(c.Source, "SOLUTION") || strings.Contains(c.Source, "HIDDEN TESTS") {
			t.Errorf("the learner's version keeps a solution or hidden test region:\n%s", c.Source)
		}
		for _, sol := range sols.List {
			if strings.Contains(c.Source, strings.TrimSpace(sol.Code)) {
				t.Errorf("the learner's version holds the answer of %s", sol.Name)
			}
		}
		if m, ok := course.CellMetadata(c.Metadata); ok && m.Solution {
			if name, ok := exercise.BlankAnswer(c.Source); !ok || name != m.GradeID {
				t.Errorf("answer cell %s of the learner's version is %q, not the chapter's blank", m.GradeID, c.Source)
			}
			blanks++
		} else if name, ok := exercise.BlankAnswer(c.Source); ok && m.Locked && name == m.GradeID {
			references++ // a reference the trainer holds back: graded through hidden tests
		}
	}
	if blanks+references != len(sols.List) || references == 0 {
		t.Errorf("%d answer cells and %d blank references in the learner's version, want %d in all, a reference among them", blanks, references, len(sols.List))
	}
	for _, args := range [][]string{{"--expect-exercises", "blank"}, {"--solutions", solDir}} {
		run := exec.Command(in.bin, append([]string{"run", "--out", filepath.Join(dir, "run"), release}, args...)...)
		if out, err := run.CombinedOutput(); err != nil {
			t.Errorf("commlab run %s on the learner's version: %v\n%s", strings.Join(args, " "), err, out)
		}
	}

	nbgraderStep(t, venv, courseDir, trainerHome, "release_assignment", gradedChapter)
	right := map[string]string{}
	for _, sol := range sols.List {
		right[sol.Name] = sol.Code
	}
	learners := []struct {
		name    string
		answers map[string]string
		score   string
	}{
		{"alice", right, gradedPoints},
		// 2 x 6 x 8 µs x 100 GB/s: the crossover counted twice.
		{"bob", map[string]string{"answer1": right["answer1"], "answer2": "answer2 := 2 * 6 * 8e-6 * 100e9"}, "1.0"},
	}
	for _, l := range learners {
		home := filepath.Join(dir, l.name)
		cfg := "c = get_config()  # noqa: F821\nc.CourseDirectory.course_id = \"commlab\"\nc.Exchange.root = \"" + exchange + "\"\n"
		if err := os.MkdirAll(home, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "nbgrader_config.py"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		nbgraderStep(t, venv, home, home, "fetch_assignment", gradedChapter)
		answer(t, filepath.Join(home, gradedChapter, gradedChapter+".ipynb"), l.answers)
		// One Unix account for both in CI: each submits under their name.
		nbgraderStep(t, venv, home, home, "submit", gradedChapter, "--student", l.name)
	}

	nbgraderStep(t, venv, courseDir, trainerHome, "collect", gradedChapter)
	nbgraderStep(t, venv, courseDir, trainerHome, "autograde", gradedChapter)
	nbgraderStep(t, venv, courseDir, trainerHome, "generate_feedback", gradedChapter)
	grades := filepath.Join(dir, "grades.csv")
	nbgraderStep(t, venv, courseDir, trainerHome, "export", "--to", grades)

	f, err := os.Open(grades)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 1 {
		t.Fatalf("grades.csv: %v %v", rows, err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	scores := map[string][2]string{}
	for _, r := range rows[1:] {
		scores[r[col["student_id"]]] = [2]string{r[col["score"]], r[col["max_score"]]}
	}
	for _, l := range learners {
		if got := scores[l.name]; got != [2]string{l.score, gradedPoints} {
			t.Errorf("%s scored %v, want %s of %s", l.name, got, l.score, gradedPoints)
		}
		page, err := os.ReadFile(filepath.Join(courseDir, "feedback", l.name, gradedChapter, gradedChapter+".html"))
		if err != nil {
			t.Errorf("%s has no feedback page: %v", l.name, err)
			continue
		}
		// The feedback page is the trainer's view: a wrong answer's
		// reference shows there, and only there.
		if wrongs := strings.Contains(string(page), "trainer:</em> expected"); wrongs != (l.name == "bob") {
			t.Errorf("%s's feedback page shows a reference: %v", l.name, wrongs)
		}
	}
}
