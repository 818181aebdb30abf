package runner

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/commlab/commlab/kernel/session"
	"github.com/commlab/commlab/notebook"
)

func folderDid(t *testing.T, acts []FolderAction) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, a := range acts {
		out[a.Path] = a.Did
	}
	return out
}

// testChapters stand in for the chapters a program embeds
// (Cells.Chapters): literate sources at the top, and a file beside them.
var testChapters = fstest.MapFS{
	"00-tour.md":                  {Data: []byte("# Tour\n\n```go\nx := 1\n```\n")},
	"01-collectives.md":           {Data: []byte("# Collectives\n\n```go\ny := 2\n```\n")},
	"02-interconnect.md":          {Data: []byte("# Interconnect\n\nProse only.\n")},
	"solutions/01-collectives.md": {Data: []byte("# Solutions\n")},
}

// A lab folder gets every chapter and its notebook; a second run changes
// nothing; a file the user changed is kept (or overwritten with force);
// commlab's own earlier copy is updated.
func TestWriteFolder(t *testing.T) {
	dir := t.TempDir()
	acts, err := WriteFolder(dir, testChapters, false)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"00-tour", "01-collectives", "02-interconnect"}
	did := folderDid(t, acts)
	if did["chapters/solutions/01-collectives.md"] != FolderWrote || len(acts) != 7 {
		t.Errorf("the file beside the chapters: %v", did)
	}
	for _, n := range names {
		md, nb := "chapters/"+n+".md", "notebooks/"+n+".ipynb"
		if did[md] != FolderWrote || did[nb] != FolderWrote {
			t.Errorf("%s: %s, %s", n, did[md], did[nb])
		}
		parsed, err := notebook.ReadFile(filepath.Join(dir, filepath.FromSlash(nb)))
		if err != nil {
			t.Fatalf("%s: %v", nb, err)
		}
		li, _ := json.Marshal(parsed.Metadata["language_info"])
		want, _ := json.Marshal(session.LanguageInfo())
		if string(li) != string(want) {
			t.Errorf("%s: language_info %s, want the kernel's %s", nb, li, want)
		}
	}

	acts, err = WriteFolder(dir, testChapters, false)
	if err != nil {
		t.Fatal(err)
	}
	for p, d := range folderDid(t, acts) {
		if d != FolderUnchanged {
			t.Errorf("second run: %s %s", p, d)
		}
	}

	mine := filepath.Join(dir, "chapters", names[1]+".md")
	if err := os.WriteFile(mine, []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	acts, _ = WriteFolder(dir, testChapters, false)
	if d := folderDid(t, acts)["chapters/"+names[1]+".md"]; d != FolderKept {
		t.Errorf("changed chapter: %s, want kept", d)
	}
	if b, _ := os.ReadFile(mine); string(b) != "my notes\n" {
		t.Error("the user's chapter was overwritten")
	}
	acts, _ = WriteFolder(dir, testChapters, true)
	if d := folderDid(t, acts)["chapters/"+names[1]+".md"]; d != FolderOverwrote {
		t.Errorf("changed chapter with force: %s, want overwrote", d)
	}

	// An older commlab wrote this copy and the user left it alone.
	old := filepath.Join(dir, "chapters", names[2]+".md")
	if err := os.WriteFile(old, []byte("last release's text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	man, err := readManifest(filepath.Join(dir, FolderManifest))
	if err != nil {
		t.Fatal(err)
	}
	man.Files["chapters/"+names[2]+".md"] = digest([]byte("last release's text\n"))
	if err := writeManifest(filepath.Join(dir, FolderManifest), man); err != nil {
		t.Fatal(err)
	}
	acts, _ = WriteFolder(dir, testChapters, false)
	if d := folderDid(t, acts)["chapters/"+names[2]+".md"]; d != FolderUpdated {
		t.Errorf("commlab's old copy: %s, want updated", d)
	}
}

// A damaged record stops the run before anything is written over.
func TestWriteFolderBadManifest(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FolderManifest), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteFolder(dir, testChapters, false); err == nil || !strings.Contains(err.Error(), FolderManifest) {
		t.Errorf("err = %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "chapters", "*")); len(m) != 0 {
		t.Errorf("wrote %v", m)
	}
}

// WriteLab counts what it did, and names a file it kept.
func TestWriteLab(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := WriteLab(dir, testChapters, false, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if want := "lab     " + dir + ": 7 files (7 wrote)\n"; stdout.String() != want || stderr.Len() != 0 {
		t.Errorf("first write: stdout %q (want %q), stderr %q", stdout.String(), want, stderr.String())
	}
	md := filepath.Join(dir, "chapters", "00-tour.md")
	if err := os.WriteFile(md, []byte("# Mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if err := WriteLab(dir, testChapters, false, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "1 kept, 6 unchanged") || !strings.Contains(stderr.String(), "commlab lab: kept "+md+": you changed it") {
		t.Errorf("second write: stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}
