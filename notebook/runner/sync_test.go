package runner

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/kernel/session"
	"github.com/commlab/commlab/notebook"
)

func TestSync(t *testing.T) {
	dir := t.TempDir()
	ch, nbs := filepath.Join(dir, "chapters"), filepath.Join(dir, "notebooks")
	if err := os.MkdirAll(ch, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("testdata/params.md")
	if err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(ch, "01-params.md")
	ipynb := filepath.Join(nbs, "01-params.ipynb")
	if err := os.WriteFile(md, src, 0o644); err != nil {
		t.Fatal(err)
	}
	// A new chapter: check fails, sync writes the notebook.
	if _, err := Sync(ch, nbs, true); !errors.Is(err, ErrOutOfSync) {
		t.Fatalf("check of a chapter without notebook: %v", err)
	}
	acts, err := Sync(ch, nbs, false)
	if err != nil || len(acts) != 1 || acts[0].Write != ipynb {
		t.Fatalf("sync = %+v, %v", acts, err)
	}
	if acts, err := Sync(ch, nbs, true); err != nil || len(acts) != 0 {
		t.Fatalf("check after sync = %+v, %v", acts, err)
	}
	// The notebook is edited in JupyterLab (newer): the chapter follows.
	nb, err := notebook.ReadFile(ipynb)
	if err != nil {
		t.Fatal(err)
	}
	// Running it in JupyterLab alone changes nothing a chapter keeps.
	one := 1
	nb.Cells[2].ExecutionCount = &one
	nb.Cells[2].Outputs = []*notebook.Output{{Type: notebook.Stream, Name: "stdout", Text: "ring of 8\n"}}
	nb.Cells[2].Metadata["execution"] = map[string]any{"iopub.execute_input": "2026-11-29T09:00:00Z"}
	nb.Metadata["language_info"] = session.LanguageInfo() // what the kernel told JupyterLab
	if err := notebook.WriteFile(ipynb, nb); err != nil {
		t.Fatal(err)
	}
	if acts, err := Sync(ch, nbs, true); err != nil || len(acts) != 0 {
		t.Fatalf("check after a run in JupyterLab = %+v, %v", acts, err)
	}
	// Another kernel's language_info (an older build, another Go kernel)
	// would be rewritten by the next front end to open it: out of sync.
	nb.Metadata["language_info"] = map[string]any{"name": "go", "version": "1.21.0"}
	if err := notebook.WriteFile(ipynb, nb); err != nil {
		t.Fatal(err)
	}
	if acts, _ := Sync(ch, nbs, true); len(acts) != 1 || acts[0].Reason != "language_info differs from the kernel's" {
		t.Fatalf("check with a foreign language_info = %+v", acts)
	}
	if acts, err := Sync(ch, nbs, false); err != nil || len(acts) != 1 {
		t.Fatalf("sync of the language_info = %+v, %v", acts, err)
	}
	if nb, err = notebook.ReadFile(ipynb); err != nil || !sameJSON(nb.Metadata["language_info"], session.LanguageInfo()) {
		t.Fatalf("language_info after sync: %v, %v", nb.Metadata["language_info"], err)
	}
	nb.Cells[0].Source = "# Edited in JupyterLab"
	if err := notebook.WriteFile(ipynb, nb); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Minute)
	os.Chtimes(ipynb, future, future)
	if _, err := Sync(ch, nbs, true); !errors.Is(err, ErrOutOfSync) {
		t.Fatalf("check after a notebook edit: %v", err)
	}
	acts, err = Sync(ch, nbs, false)
	if err != nil || len(acts) != 1 || acts[0].Write != md || !strings.HasPrefix(acts[0].Reason, "notebook newer") {
		t.Fatalf("sync = %+v, %v", acts, err)
	}
	got, _ := os.ReadFile(md)
	if !strings.Contains(string(got), "# Edited in JupyterLab") || !strings.Contains(string(got), "```go tags=[\"parameters\"]") ||
		strings.Contains(string(got), "language_info") || strings.Contains(string(got), "execution") {
		t.Errorf("chapter after sync:\n%s", got)
	}
	// The chapter is edited (newer): the notebook follows, ids kept.
	later := future.Add(time.Minute)
	if err := os.WriteFile(md, []byte(strings.Replace(string(got), "n := 8", "n := 9", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(md, later, later)
	if acts, err = Sync(ch, nbs, false); err != nil || len(acts) != 1 || acts[0].Write != ipynb {
		t.Fatalf("sync = %+v, %v", acts, err)
	}
	nb2, err := notebook.ReadFile(ipynb)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(nb2.Cells[1].Source, "n := 9") || nb2.Cells[1].ID != nb.Cells[1].ID {
		t.Errorf("notebook after sync: %q id %s", nb2.Cells[1].Source, nb2.Cells[1].ID)
	}
	// A notebook without chapter gets one.
	if err := os.Rename(md, filepath.Join(dir, "moved.md")); err != nil {
		t.Fatal(err)
	}
	if acts, err = Sync(ch, nbs, false); err != nil || len(acts) != 1 || acts[0].Reason != "no chapter" {
		t.Fatalf("sync = %+v, %v", acts, err)
	}
	if _, err := os.Stat(md); err != nil {
		t.Error(err)
	}
}

func TestWriteSyncActions(t *testing.T) {
	actions := []SyncAction{{Name: "00-tour", Write: "notebooks/00-tour.ipynb", Reason: "chapter newer"}}
	var wrote, stale bytes.Buffer
	WriteSyncActions(&wrote, actions, false)
	WriteSyncActions(&stale, actions, true)
	if wrote.String() != "wrote notebooks/00-tour.ipynb (chapter newer)\n" || stale.String() != "stale notebooks/00-tour.ipynb (chapter newer)\n" {
		t.Errorf("wrote %q, stale %q", wrote.String(), stale.String())
	}
}
