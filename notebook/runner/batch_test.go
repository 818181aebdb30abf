package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/notebook"
)

func TestBatchReportsEachFile(t *testing.T) {
	dir := t.TempDir()
	files := []string{writeChapter(t, "ok.md"), "testdata/fails.md"}
	b := Batch{Files: files, Jobs: []*Job{mustJob(t, files[0], nil), mustJob(t, files[1], nil)}, File: FileOptions{OutDir: dir},
		Exercises: func(*notebook.Notebook) (string, bool, error) { return "1 wrong", true, errors.New("not right") }}
	var stdout, stderr bytes.Buffer
	if failed := b.Run(context.Background(), &stdout, &stderr); !failed {
		t.Fatal("a failed cell did not fail the batch")
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "ok      "+files[0]+"  1/1 cells") || lines[1] != "        exercises: 1 wrong" ||
		!strings.HasPrefix(lines[2], "failed  testdata/fails.md  3/4 cells") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	// The exercise error is reported for the file that ran through; the
	// failed cell is shown with its line marked.
	for _, want := range []string{"commlab run: " + files[0] + ": not right\n", "testdata/fails.md: ", "  >   2 | m[\"boom\"] = x\n"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if strings.Contains(stderr.String(), "testdata/fails.md: not right") {
		t.Errorf("exercise error reported for a failed file:\n%s", stderr.String())
	}
}

func TestBatchStoppedByContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := writeChapter(t, "ok.md")
	b := Batch{Files: []string{src}, Jobs: []*Job{mustJob(t, src, nil)}, File: FileOptions{OutDir: t.TempDir()}}
	var stdout, stderr bytes.Buffer
	if !b.Run(ctx, &stdout, &stderr) || !strings.HasSuffix(stderr.String(), "commlab run: interrupted\n") {
		t.Errorf("cancelled batch: stdout %q stderr %q", stdout.String(), stderr.String())
	}
}

func TestRelPath(t *testing.T) {
	if got := RelPath("/nowhere/else"); got != "/nowhere/else" {
		t.Errorf("RelPath outside the working directory = %q", got)
	}
}

// writeChapter writes a one-cell chapter that runs without error.
func writeChapter(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte("# Runs\n\n```go\nx := 1\n_ = x\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
