package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFirstDifference(t *testing.T) {
	for _, tt := range []struct{ got, want, says string }{
		{"a\nb\n", "a\nc\n", "line 2"},
		{"a\n", "a\n\n", "2 lines, want 3"},
	} {
		if err := firstDifference([]byte(tt.got), []byte(tt.want)); err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("firstDifference(%q, %q) = %v, want it to say %q", tt.got, tt.want, err, tt.says)
		}
	}
}

func TestWriteThenCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "x.golden")
	if err := write(path, []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left behind: %v", err)
	}
	Check(t, path, []byte("one\n"))
}

func TestNames(t *testing.T) {
	if got := ReplaceExt("testdata/x.log"); got != "testdata/x.golden" {
		t.Errorf("ReplaceExt = %q", got)
	}
	if got := AppendExt("testdata/x.txt"); got != "testdata/x.txt.golden" {
		t.Errorf("AppendExt = %q", got)
	}
}
