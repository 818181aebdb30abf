// Package golden compares what a parser test produced with its
// testdata/*.golden file, and rewrites the file under `go test -update`.
// It owns nothing else: each parser test decides what it renders.
package golden

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Check compares got with the golden file at path; with -update it writes
// got there instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s; run go test -update and review the diff", path)
	}
}
