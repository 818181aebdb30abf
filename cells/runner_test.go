package cells_test

import (
	"testing"

	"github.com/commlab/commlab/notebook"
	"github.com/commlab/commlab/notebook/runner"
)

// The runner's own tests use a stand-in for what cells see; these run
// chapters' cells through it with View, as `commlab run` does.

func mustJob(t *testing.T, path string, params map[string]string) *runner.Job {
	t.Helper()
	job, err := runner.NewJob(path, params)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

func codeCells(nb *notebook.Notebook) []*notebook.Cell {
	var out []*notebook.Cell
	for _, c := range nb.Cells {
		if c.Type == notebook.Code {
			out = append(out, c)
		}
	}
	return out
}
