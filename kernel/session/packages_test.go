package session_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/commlab/commlab/cells"
	"github.com/commlab/commlab/kernel/session"
)

// The program's generated tables (package cells) stand in for any
// program's: gonum's packages reach each other as a program's do.

// TestPackagesLoadPerImport holds that a session hands yaegi a compiled
// package's table only when a cell imports it (so starting a session does
// not grow with the number of preloaded packages), and that every way a
// package comes in (import, auto-import, an interpreter rebuilt after a
// redefinition, %reset) still finds it.
func TestPackagesLoadPerImport(t *testing.T) {
	s, err := session.New(session.Options{Packages: cells.Symbols})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	// Straight to yaegi, past the session's import path: not loaded yet.
	if err := session.EvalDirect(s, `import "gonum.org/v1/gonum/floats"`); err == nil {
		t.Fatal("the floats table was handed to the interpreter before any cell imported it")
	}
	// Completion and auto-import know every preloaded package all along.
	if m, _, _ := s.Complete("mat.NewDen", len("mat.NewDen")); !slices.Contains(m, "NewDense") && !slices.Contains(m, "mat.NewDense") {
		t.Errorf("completing mat.NewDen before any import: %v", m)
	}
	tests := []struct{ cell, want string }{
		{`import "gonum.org/v1/gonum/floats"` + "\nfloats.Sum([]float64{1, 2})", "=> 3\n"},
		{"stat.Mean([]float64{2, 4}, nil)", "=> 3\n"}, // auto-imported
		{"type pair struct{ a int }\nvar keep = pair{a: 1}", ""},
		{"type pair struct{ a, b int }", ""}, // redefined: the interpreter is rebuilt
		{"floats.Max([]float64{1, 5}) + stat.Mean([]float64{1}, nil)", "=> 6\n"},
		{"%reset", ""},
		{"floats.Min([]float64{4, 7})", "=> 4\n"},
	}
	for _, tt := range tests {
		if got := session.RunCells(t, s, tt.cell)[0]; !strings.HasSuffix(got, tt.want) || strings.Contains(got, "!") {
			t.Errorf("cell %q: got %q, want %q", tt.cell, got, tt.want)
		}
	}
}

// TestReachablePackages: importing a package brings the preloaded packages
// its API reaches, where yaegi looks for interface wrappers.
func TestReachablePackages(t *testing.T) {
	tests := []struct {
		path string
		want []string // among the result
		not  []string
	}{
		{"gonum.org/v1/plot/plotter", []string{"gonum.org/v1/plot/plotter", "gonum.org/v1/plot", "gonum.org/v1/plot/vg/draw", "gonum.org/v1/plot/vg"}, []string{"gonum.org/v1/gonum/mat"}},
		{"gonum.org/v1/gonum/stat", []string{"gonum.org/v1/gonum/mat"}, []string{"gonum.org/v1/plot"}},
		{"github.com/commlab/commlab/units", []string{"github.com/commlab/commlab/units"}, []string{"github.com/commlab/commlab/probes"}},
		{"fmt", nil, []string{"fmt"}},
	}
	for _, tt := range tests {
		got := session.Reachable(cells.Symbols, tt.path)
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("reachable(%s) = %v, lacks %s", tt.path, got, w)
			}
		}
		for _, n := range tt.not {
			if slices.Contains(got, n) {
				t.Errorf("reachable(%s) = %v, has %s", tt.path, got, n)
			}
		}
	}
}
