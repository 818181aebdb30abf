package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/commlab/commlab/probes/cli"

	"github.com/commlab/commlab/course"
	"github.com/commlab/commlab/notebook/literate"
	"github.com/commlab/commlab/trainer/solutions"
)

// chapterNotebook is a chapter's notebook, as course reads it: the
// command joins the notebook machine (literate) and the subject (course).
func chapterNotebook(_ string, md []byte) ([]byte, error) {
	nb, err := literate.Parse(md)
	if err != nil {
		return nil, err
	}
	nb.EnsureIDs()
	return nb.Marshal()
}

var courseUsage = []string{"usage: commlab course [--out DIR] [--course-id ID] [--exchange DIR] [--solutions DIR] [CHAPTER...]",
	"Writes an nbgrader course for a trainer: DIR/nbgrader_config.py and, for each chapter",
	"with exercises (all when none is named), DIR/source/NN-slug/NN-slug.ipynb with the",
	"trainer's answers (read from --solutions DIR, by default the clone's trainer/solutions: the",
	"binary carries none) in nbgrader's solution regions. Then, in DIR:",
	"  nbgrader generate_assignment NN-slug   (the learner's version: the chapter as shipped)",
	"  nbgrader release_assignment NN-slug; learners fetch_assignment and submit",
	"  nbgrader collect NN-slug; nbgrader autograde NN-slug; nbgrader generate_feedback NN-slug"}

func runCourse(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	out := fs.String("out", "course", "the course folder (`DIR`) nbgrader runs in")
	id := fs.String("course-id", "commlab", "nbgrader's course id")
	exchange := fs.String("exchange", "", "nbgrader's exchange folder (`DIR`, writable by every learner); nbgrader's default when empty")
	solutionsDir := fs.String("solutions", "", "the trainer's solutions folder (`DIR`/NN-slug.md, or a trainer folder holding solutions/); empty: trainer/solutions of the clone the current folder is in")
	names, status, ok := cli.Parse(fs, args)
	if !ok {
		return status
	}
	if *solutionsDir == "" {
		dir, err := solutions.Locate(".")
		if err != nil {
			return cli.Fail(fs, stderr, cli.ExitBadInput, "%v", err)
		}
		*solutionsDir = dir
	}
	assignments, err := course.Chapters(chapterNotebook, *solutionsDir, names...)
	if err != nil {
		return cli.Fail(fs, stderr, statusOf(err), "%v", err)
	}
	written, err := course.Write(*out, course.Options{CourseID: *id, Exchange: *exchange}, assignments)
	for _, p := range written {
		fmt.Fprintln(stdout, "wrote", p)
	}
	if err != nil {
		return cli.Fail(fs, stderr, statusOf(err), "%v", err)
	}
	for _, a := range assignments {
		fmt.Fprintf(stdout, "assignment %s: %g points\n", a.Name, a.Points)
	}
	return 0
}
