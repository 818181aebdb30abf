// Package golden is the module's one golden-file test helper and owns its
// one -update flag: it compares what a test renders with a file under
// testdata and, under `go test -update`, rewrites the file instead. It
// also finds fixtures and runs one subtest per fixture. It owns no
// rendering (each test decides what it writes) and imports only the
// standard library, so that any package may use it.
package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// Updating reports whether the test runs under -update.
func Updating() bool { return *update }

// Check compares got with the golden file at path, byte for byte; with
// -update it writes got there instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	CheckFunc(t, path, got, func(got, want []byte) error {
		if bytes.Equal(got, want) {
			return nil
		}
		return firstDifference(got, want)
	})
}

// CheckFunc is Check for files whose equality is not byte equality (a
// rendered image within a tolerance): same reports why got and want
// differ, or nil.
func CheckFunc(t testing.TB, path string, got []byte, same func(got, want []byte) error) {
	t.Helper()
	if *update {
		if err := write(path, got); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if err := same(got, want); err != nil {
		t.Errorf("output differs from %s: %v; run go test -update and review the diff", path, err)
	}
}

// write replaces path through a temporary file, so that a failed run
// leaves the old golden file whole.
func write(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// firstDifference names the first line where got and want part.
func firstDifference(got, want []byte) error {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		if i >= len(g) || i >= len(w) {
			return fmt.Errorf("%d lines, want %d", len(g), len(w))
		}
		if g[i] != w[i] {
			return fmt.Errorf("line %d:\n got  %.300q\n want %.300q", i+1, g[i], w[i])
		}
	}
	return fmt.Errorf("%d bytes, want %d", len(got), len(want))
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
