package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/notebook"
)

func labCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	prev := runCaptureOutput
	runCaptureOutput = false
	defer func() { runCaptureOutput = prev }()
	var stdout, stderr bytes.Buffer
	code := dispatch(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestRunCLIExecutesAndWritesCopies(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := labCLI(t, "run", "notebook/runner/testdata/params.md", "--out", out, "-p", "n=21", "--html")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if !strings.Contains(stdout, "ok      notebook/runner/testdata/params.md") {
		t.Errorf("stdout = %q", stdout)
	}
	data, err := os.ReadFile(filepath.Join(out, "params.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if err := notebook.Validate(data); err != nil {
		t.Error(err)
	}
	if !strings.Contains(string(data), "ring of 21") || !strings.Contains(string(data), "injected-parameters") {
		t.Errorf("executed notebook lacks the parameter's effect")
	}
	for _, f := range []string{"params.html", "index.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if src, _ := os.ReadFile("notebook/runner/testdata/params.md"); strings.Contains(string(src), "injected") {
		t.Error("the source changed")
	}
}

func TestRunCLIFailedCell(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := labCLI(t, "run", "--out", out, "notebook/runner/testdata/fails.md")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{"cell 4, line 2: panic: assignment to entry in nil map", `>   2 | m["boom"] = x`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if code, _, _ := labCLI(t, "run", "--out", out, "--allow-errors", "notebook/runner/testdata/fails.md"); code != 0 {
		t.Errorf("--allow-errors: exit %d", code)
	}
}

func TestRunCLIUsageErrors(t *testing.T) {
	out := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "no notebooks given"},
		{[]string{"run", "--bogus", "x.md"}, "flag provided but not defined"},
		{[]string{"run", "-p", "novalue", "x.md"}, "want name=value"},
		{[]string{"run", "--out", out, "-p", "n=eight", "notebook/runner/testdata/params.md"}, "parameter n is int"},
		{[]string{"run", "--out", out, "-p", "zzz=1", "notebook/runner/testdata/params.md"}, `unknown parameter "zzz"`},
		{[]string{"run", "--out", out, "-p", "n=1", "notebook/runner/testdata/params.md", "notebook/runner/testdata/fails.md"}, "no code cell tagged"},
		{[]string{"run", "--out", out, "missing.md"}, "no such file"},
	}
	for _, tt := range tests {
		code, stdout, stderr := labCLI(t, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tt.args, code, stderr, tt.want)
		}
		if stdout != "" {
			t.Errorf("%v: something ran: %q", tt.args, stdout)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("usage errors wrote %v", entries)
	}
}

// The tour runs top to bottom on any machine, GPU or not.
func TestRunCLITourRuns(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := labCLI(t, "run", "--out", out, "--cell-timeout", "1m", "--html", "chapters/00-tour.md")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	nb, err := notebook.ReadFile(filepath.Join(out, "00-tour.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			kinds = append(kinds, o.Type)
			if o.Type == notebook.Error {
				t.Errorf("cell %s failed: %s", c.ID, o.EValue)
			}
		}
	}
	page, err := os.ReadFile(filepath.Join(out, "00-tour.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "<table>", "A tour of commlab"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the tour's page lacks %q", want)
		}
	}
	for _, external := range []string{`src="http`, `href="http`, "<link ", "<script src"} {
		if strings.Contains(string(page), external) {
			t.Errorf("the tour's page loads something from elsewhere: %q", external)
		}
	}
	all := strings.Join(kinds, " ")
	for _, want := range []string{"stream", "execute_result", "display_data"} {
		if !strings.Contains(all, want) {
			t.Errorf("the tour shows no %s output (%s)", want, all)
		}
	}
}

func TestRunCLITimeouts(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "sleep.md")
	os.WriteFile(src, []byte("```go\nimport \"time\"\ntime.Sleep(20 * time.Second)\n```\n\n```go\nx := 1\n```\n"), 0o644)
	tests := []struct {
		flag, want string
	}{
		{"--cell-timeout=300ms", "cell timed out after 300ms"},
		{"--timeout=300ms", "took longer than --timeout 300ms"},
	}
	for _, tt := range tests {
		code, _, stderr := labCLI(t, "run", "--out", filepath.Join(dir, "out"), tt.flag, src)
		if code != 1 || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "cell 1: Interrupted") {
			t.Errorf("%s: exit %d, stderr %s", tt.flag, code, stderr)
		}
	}
}

func TestExportCLI(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := labCLI(t, "export", "--out", out); code != 2 || !strings.Contains(stderr, "no notebooks") {
		t.Errorf("empty dir: exit %d, %s", code, stderr)
	}
	if code, _, stderr := labCLI(t, "run", "--out", out, "--allow-errors", "notebook/runner/testdata/fails.md"); code != 0 {
		t.Fatalf("run: %d %s", code, stderr)
	}
	code, stdout, stderr := labCLI(t, "export", "--out", out, "notebook/export/testdata/executed.ipynb")
	if code != 0 {
		t.Fatalf("export: exit %d, %s", code, stderr)
	}
	if !strings.Contains(stdout, "1 pages") {
		t.Errorf("stdout = %q", stdout)
	}
	index, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	// The index lists the exported notebook and the one run earlier.
	for _, want := range []string{`href="executed.html"`, `href="fails.html"`, "status-failed", "status-errors"} {
		if !strings.Contains(string(index), want) {
			t.Errorf("index lacks %q:\n%s", want, index)
		}
	}
	if code, _, _ := labCLI(t, "export", "--out", out); code != 0 {
		t.Errorf("export of DIR: exit %d", code)
	}
	if code, _, stderr := labCLI(t, "export", "-h"); code != 0 || !strings.Contains(stderr, "usage: commlab export") {
		t.Errorf("export -h: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "fails.html")); err != nil {
		t.Error(err)
	}
}

// Issue 12: export --out NEWDIR creates the folder.
func TestExportCLICreatesOutDir(t *testing.T) {
	out := filepath.Join(t.TempDir(), "new", "dir")
	code, stdout, stderr := labCLI(t, "export", "--out", out, "notebook/export/testdata/executed.ipynb")
	if code != 0 || !strings.Contains(stdout, "1 pages") {
		t.Fatalf("export: exit %d, %q %q", code, stdout, stderr)
	}
	for _, f := range []string{"executed.html", "index.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestSyncCLICheckAndWrite(t *testing.T) {
	dir := t.TempDir()
	ch, nbs := filepath.Join(dir, "chapters"), filepath.Join(dir, "notebooks")
	os.MkdirAll(ch, 0o755)
	src, err := os.ReadFile("notebook/runner/testdata/params.md")
	if err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(ch, "01-x.md")
	os.WriteFile(md, src, 0o644)
	args := []string{"--chapters", ch, "--notebooks", nbs}
	if code, stdout, _ := labCLI(t, append([]string{"sync", "--check"}, args...)...); code != 1 || !strings.Contains(stdout, "stale") {
		t.Errorf("check before sync: exit %d, %q", code, stdout)
	}
	if code, stdout, stderr := labCLI(t, append([]string{"sync"}, args...)...); code != 0 || !strings.Contains(stdout, "wrote "+filepath.Join(nbs, "01-x.ipynb")) {
		t.Errorf("sync: exit %d, %q %q", code, stdout, stderr)
	}
	if code, _, stderr := labCLI(t, append([]string{"sync", "--check"}, args...)...); code != 0 {
		t.Errorf("check after sync: exit %d, %s", code, stderr)
	}
	later := time.Now().Add(time.Hour)
	os.WriteFile(md, []byte(strings.Replace(string(src), "n := 8", "n := 7", 1)), 0o644)
	os.Chtimes(md, later, later)
	if code, _, stderr := labCLI(t, append([]string{"sync", "--check"}, args...)...); code != 1 || !strings.Contains(stderr, "disagree") {
		t.Errorf("check after an edit: exit %d, %s", code, stderr)
	}
	if code, _, _ := labCLI(t, "sync", "extra"); code != 2 {
		t.Errorf("extra argument: exit %d", code)
	}
}

// Issue 12: while a cell runs, the executed notebook and its page up to
// and including that cell are on disk, the cell marked as the one running,
// so a process that dies in a cell (a fatal error, a kill at a CI time
// limit) leaves them behind. The cell here reads what is on disk.
func TestRunCLIWritesNotebookBeforeEachCell(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	src := filepath.Join(dir, "crash.md")
	chapter := "# Crash\n\n```go tags=[\"parameters\"]\nnb := \"\"\npage := \"\"\n```\n\n```go\nfmt.Println(\"first cell ran\")\n```\n\n" +
		"```go\nfor _, f := range []string{nb, page} {\n\tdata, err := os.ReadFile(f)\n\ts := string(data)\n" +
		"\tfmt.Println(filepath.Base(f), err, strings.Contains(s, \"first cell ran\"), strings.Contains(s, \"the run stopped while this cell ran\"))\n}\n```\n\n" +
		"```go\nfmt.Println(\"not yet\")\n```\n"
	if err := os.WriteFile(src, []byte(chapter), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := labCLI(t, "run", "--out", out, "--html", "-p", "nb="+filepath.Join(out, "crash.ipynb"), "-p", "page="+filepath.Join(out, "crash.html"), src)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "crash.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"crash.ipynb <nil> true true", "crash.html <nil> true true"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("while cell 3 ran, the files on disk were not %q:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), `"Stopped"`) {
		t.Errorf("the finished notebook still marks a cell as stopped:\n%s", data)
	}
}

// A chapter as shipped says "not answered yet" at every exercise, and
// with --solutions every check says right; the verb fails when they do
// not (check-chapters relies on both).
func TestRunCLIExercisesBothWays(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := labCLI(t, "run", "--out", out, "--expect-exercises", "blank", "chapters/03-rdma.md")
	var checks int
	if m := regexp.MustCompile(`exercises: (\d+) not answered yet`).FindStringSubmatch(stdout); m != nil {
		checks, _ = strconv.Atoi(m[1])
	}
	if code != 0 || checks == 0 {
		t.Fatalf("as shipped: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = labCLI(t, "run", "--out", out, "--solutions", "chapters/03-rdma.md")
	if code != 0 || !strings.Contains(stdout, fmt.Sprintf("exercises: %d right", checks)) {
		t.Fatalf("--solutions: exit %d (want all %d checks right)\n%s%s", code, checks, stdout, stderr)
	}
	nb, err := notebook.ReadFile(filepath.Join(out, "03-rdma.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			if strings.HasPrefix(o.Text, "solution for answer") {
				ran++
			}
		}
	}
	if ran == 0 || ran > checks {
		t.Errorf("%d blank cells say their solution ran, want between 1 and the %d checks", ran, checks)
	}
	// The binary carries no solutions: a chapter out of the clone finds
	// none, and runs them from the trainer's folder named.
	src, err := os.ReadFile("chapters/03-rdma.md")
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "03-rdma.md")
	if err := os.WriteFile(outside, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := labCLI(t, "run", "--out", out, "--solutions", outside); code == 0 || !strings.Contains(stderr, "no trainer's folder") {
		t.Errorf("--solutions out of the clone: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr = labCLI(t, "run", "--out", out, "--solutions", "trainer/solutions", outside)
	if code != 0 || !strings.Contains(stdout, fmt.Sprintf("exercises: %d right", checks)) {
		t.Errorf("--solutions trainer/solutions: exit %d\n%s%s", code, stdout, stderr)
	}
	// Expecting right answers of the chapter as shipped fails the run.
	code, _, stderr = labCLI(t, "run", "--out", out, "--expect-exercises", "right", "chapters/03-rdma.md")
	if code != 1 || !strings.Contains(stderr, fmt.Sprintf("%d of %d not right", checks, checks)) {
		t.Errorf("--expect-exercises right on blanks: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := labCLI(t, "run", "--out", out, "--solutions", "--expect-exercises", "blank", "chapters/03-rdma.md"); code != 2 || !strings.Contains(stderr, "contradicts --solutions") {
		t.Errorf("--solutions with blank: exit %d, stderr %q", code, stderr)
	}
}
