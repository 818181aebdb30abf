package kernel

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/commlab/commlab/kernel/session"
)

// A shipped notebook carries exactly the language_info the kernel
// reports, so that a front end opening it finds nothing to change and
// autosave does not rewrite the tracked file.
func TestNotebooksCarryTheKernelsLanguageInfo(t *testing.T) {
	reply, err := json.Marshal((&Kernel{}).kernelInfo()["language_info"])
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(reply, &want); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join("..", "notebooks", "*.ipynb"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no notebooks: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var nb struct {
			Metadata struct {
				LanguageInfo map[string]any `json:"language_info"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(b, &nb); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !reflect.DeepEqual(nb.Metadata.LanguageInfo, want) {
			t.Errorf("%s: language_info %v, the kernel reports %v (run commlab sync)", f, nb.Metadata.LanguageInfo, want)
		}
	}
}

// The version in language_info is the module's Go language version, not
// the toolchain's, so that it is the same for every build.
func TestLanguageVersionIsTheModules(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	if m == nil || string(m[1]) != session.GoLanguageVersion {
		t.Errorf("go.mod says go %s, session.GoLanguageVersion is %s", m[1], session.GoLanguageVersion)
	}
}
