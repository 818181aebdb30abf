package cells_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/cells"
	"github.com/commlab/commlab/kernel/session"
	"github.com/commlab/commlab/notebook/runner"
)

// secondRunParameter is, per chapter, the one parameter a reader changes
// before running the chapter again in the same kernel (the Parameters
// section invites it).
var secondRunParameter = map[string][2]string{
	"00-tour.md":         {"n", "4"},
	"01-collectives.md":  {"bigSize", "4GB"},
	"02-interconnect.md": {"gdrLevel", "PHB"},
	"03-rdma.md":         {"nics", "4"},
	"04-nccl.md":         {"gpus", "4"},
	"05-pytorch.md":      {"fraction", "0.25"},
	"06-nccl-tests.md":   {"hangScenario", "size"},
	"07-inference.md":    {"batch", "16"},
}

// TestChaptersRunTwice runs every chapter, then, in the same session,
// runs it again after changing one parameter, as a reader does with Run
// All: the second run must show no error either.
func TestChaptersRunTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every chapter twice")
	}
	abs, _ := filepath.Abs(filepath.Join("..", "chapters"))
	files, err := filepath.Glob(filepath.Join(abs, "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no chapters: %v", err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(strings.TrimSuffix(name, ".md"), func(t *testing.T) {
			param, ok := secondRunParameter[name]
			if !ok {
				t.Fatalf("no parameter to change for %s: add one to secondRunParameter", name)
			}
			dir := filepath.Dir(f)
			opts := cells.View().Session()
			opts.Dir, opts.AbandonInterrupted = dir, true
			sess, err := session.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			// Recorded runs, as CI's: the chapter's mode parameter, if it has one.
			first := map[string]string{}
			if job, err := runner.NewJob(f, map[string]string{"measurements": "recorded"}); err == nil && job != nil {
				first["measurements"] = "recorded"
			} else if _, err := runner.NewJob(f, map[string]string{"mode": "recorded"}); err == nil {
				first["mode"] = "recorded"
			}
			second := map[string]string{param[0]: param[1]}
			for k, v := range first {
				second[k] = v
			}
			for i, params := range []map[string]string{first, second} {
				job, err := runner.NewJob(f, params)
				if err != nil {
					t.Fatal(err)
				}
				res, err := runner.Run(context.Background(), sess, job.Notebook, runner.Options{CellTimeout: 5 * time.Minute, Name: name, AllowErrors: true})
				if err != nil {
					t.Fatalf("run %d: %v", i+1, err)
				}
				for _, c := range job.Notebook.Cells {
					for _, o := range c.Outputs {
						if o.Type == "error" {
							t.Errorf("run %d (%s=%s): %s: %s\n%s", i+1, param[0], param[1], o.EName, o.EValue, firstLines(c.Source, 3))
						}
					}
				}
				if res.Executed != res.Cells {
					t.Errorf("run %d: ran %d of %d cells", i+1, res.Executed, res.Cells)
				}
			}
		})
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
