package recorded_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/commlab/commlab/probes/recorded"
)

func TestHangLabs(t *testing.T) {
	names := recorded.HangLabs()
	if len(names) < 5 {
		t.Fatalf("hang labs %v", names)
	}
	for _, n := range names {
		fsys, err := recorded.HangLab(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"summary.json", "run.json", "PROVENANCE.md"} {
			if _, err := fs.Stat(fsys, f); err != nil {
				t.Errorf("%s: %v", n, err)
			}
		}
	}
	if _, err := recorded.HangLab("hang-nope"); !errors.Is(err, recorded.ErrNotFound) {
		t.Errorf("unknown: %v", err)
	}
}
