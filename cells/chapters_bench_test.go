package cells_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/commlab/commlab/cells"
	"github.com/commlab/commlab/notebook/runner"
)

// BenchmarkChapters runs every chapters/*.md headless, as `commlab run
// --html` does (a fresh session per chapter, the notebook and its page
// written before each cell, then the index), and reports seconds per run
// of all chapters, on their recorded runs (measurements=recorded), which
// is what the chapters are budgeted: under 60 s on 2 cores (`make bench`
// runs it with -cpu 2). It is a benchmark, not a test, so CI never
// depends on the machine's speed.
func BenchmarkChapters(b *testing.B) {
	files, err := filepath.Glob(filepath.Join("..", "chapters", "*.md"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no chapters in ../chapters: %v", err)
	}
	ctx := context.Background()
	perChapter := make([]time.Duration, len(files))
	for b.Loop() {
		out := b.TempDir()
		var written []string
		for i, f := range files {
			// Recorded runs even on a GPU machine, where the chapter
			// takes the measurements parameter (chapter 1 on); others
			// run as they are.
			job, err := runner.NewJob(f, map[string]string{"measurements": "recorded"})
			if err != nil {
				job, err = runner.NewJob(f, nil)
			}
			if err != nil {
				b.Fatal(err)
			}
			begin := time.Now()
			res, _, path, err := runner.RunFile(ctx, job, runner.FileOptions{
				Options:       runner.Options{CellTimeout: 10 * time.Minute, Name: f},
				OutDir:        out,
				CaptureOutput: true,
				HTML:          true,
				Cells:         cells.View(),
			})
			perChapter[i] += time.Since(begin)
			if err != nil {
				b.Fatalf("%s: %v", f, err)
			}
			if res.Executed != res.Cells {
				b.Fatalf("%s: ran %d of %d cells", f, res.Executed, res.Cells)
			}
			written = append(written, path)
		}
		if _, _, err := runner.ExportHTML(written, out, cells.View()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/run")
	b.ReportMetric(float64(len(files)), "chapters")
	for i, f := range files {
		b.Logf("%s: %.2f s", filepath.Base(f), perChapter[i].Seconds()/float64(b.N))
	}
}
