// Package golden runs the parsers' golden-file tests: it finds the
// fixtures, renders each through the test's own function, compares the
// result with its testdata/*.golden file, and rewrites the file under
// `go test -update`. Each parser test decides what it renders.
package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
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

// Inputs returns the fixture files that patterns match (filepath.Glob
// patterns, in order), and fails t when there are fewer than min.
func Inputs(t testing.TB, min int, patterns ...string) []string {
	t.Helper()
	var out []string
	for _, p := range patterns {
		m, err := filepath.Glob(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < min {
		t.Fatalf("%d fixtures match %v, want at least %d", len(out), patterns, min)
	}
	return out
}

// Each runs one subtest per input: render turns the input's bytes into
// what its golden file (named by goldenPath) must hold, and Check compares.
func Each(t *testing.T, inputs []string, goldenPath func(input string) string, render func(t *testing.T, data []byte) []byte) {
	t.Helper()
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			Check(t, goldenPath(in), render(t, data))
		})
	}
}

// ReplaceExt names the golden file of testdata/x.log testdata/x.golden.
func ReplaceExt(input string) string {
	return strings.TrimSuffix(input, filepath.Ext(input)) + ".golden"
}

// AppendExt names the golden file of testdata/x.txt testdata/x.txt.golden.
func AppendExt(input string) string { return input + ".golden" }

// JSON renders v as the golden files hold it: indented, one newline at
// the end.
func JSON(t testing.TB, v any, indent string) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", indent)
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}
