package session

import (
	"slices"
	"testing"
)

func TestComplete(t *testing.T) {
	s := newTestSession(t)
	runCells(t, s, "type Point struct{ X, y int }\nfunc (p Point) Norm() int { return p.X }", "pt := Point{X: 1}", "import \"strings\"", "ringTime := 3.5")
	tests := []struct {
		code string
		want []string // must all be present
		not  []string
	}{
		{"strings.ToUp", []string{"ToUpper", "ToUpperSpecial"}, []string{"ToLower"}},
		{"ring", []string{"ringTime"}, nil},
		{"fo", []string{"for"}, nil},
		{"appe", []string{"append"}, nil},
		{"pt.", []string{"X", "y", "Norm"}, nil},
		{"localVar := 1\nloc", []string{"localVar"}, nil},
		{"math.Sq", []string{"Sqrt"}, nil}, // known package, not imported yet
		{"display.HT", nil, nil},
	}
	for _, tt := range tests {
		got, start, end := s.Complete(tt.code, len(tt.code))
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("Complete(%q) = %v, missing %q", tt.code, got, w)
			}
		}
		for _, n := range tt.not {
			if slices.Contains(got, n) {
				t.Errorf("Complete(%q) = %v, should not offer %q", tt.code, got, n)
			}
		}
		if end != len(tt.code) || start > end {
			t.Errorf("Complete(%q) range [%d,%d)", tt.code, start, end)
		}
	}
}

func TestIsComplete(t *testing.T) {
	tests := []struct{ code, status, indent string }{
		{"x := 1", Complete, ""},
		{"func f() {\n", Incomplete, "    "},
		{"for {\n  if true {", Incomplete, "        "},
		{"s := `raw", Incomplete, ""},
		{"x := )", Invalid, ""},
		{"}", Invalid, ""},
		{"", Complete, ""},
	}
	for _, tt := range tests {
		status, indent := IsComplete(tt.code)
		if status != tt.status || indent != tt.indent {
			t.Errorf("IsComplete(%q) = %q %q, want %q %q", tt.code, status, indent, tt.status, tt.indent)
		}
	}
}

func TestInspect(t *testing.T) {
	s := newTestSession(t)
	runCells(t, s, "// double doubles.\nfunc double(v int) int { return 2 * v }", "n := 4")
	tests := []struct{ code, wantSig string }{
		{"strings.ToUpper", "func strings.ToUpper(string) string"},
		{"double", "func double(v int) int"},
		{"n", "var n int = 4"},
		{"len", "builtin len"},
	}
	for _, tt := range tests {
		in, ok := s.Inspect(tt.code, len(tt.code))
		if !ok || in.Signature != tt.wantSig {
			t.Errorf("Inspect(%q) = %+v %v, want signature %q", tt.code, in, ok, tt.wantSig)
		}
	}
	if _, ok := s.Inspect("nothingHere", 11); ok {
		t.Error("Inspect of an unknown name found something")
	}
}

func TestHistory(t *testing.T) {
	s := newTestSession(t)
	runCells(t, s, "a := 1", "b := 2", "a + b")
	if h := s.History("tail", 2, 0, 0, ""); len(h) != 2 || h[1].Input != "a + b" || h[1].Line != 3 {
		t.Errorf("tail = %+v", h)
	}
	if h := s.History("range", 0, 2, 3, ""); len(h) != 1 || h[0].Input != "b := 2" {
		t.Errorf("range = %+v", h)
	}
	if h := s.History("search", 0, 0, 0, "? := ?"); len(h) != 2 {
		t.Errorf("search = %+v", h)
	}
}

func FuzzSplitAndRewrite(f *testing.F) {
	for _, seed := range []string{"x := 1", "func f() {}\nf()", "import \"fmt\"\nfmt.Println(1)", "for i := range 3 {}", "go f(a, b...)",
		"type T struct{}\nfunc (t T) M() {}", "min(1, 2.5)", "clear(m)", "}{", "`", "func (", "var (\n a = 1\n)"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, cell string) {
		items, _ := splitCell(cell)
		for _, g := range groupItems(items) {
			src := g.source(cell)
			_, _ = rewrite(g.kind, src, true, scopeInfo{
				defined: func(string) bool { return false }, imported: func(string) bool { return false },
			})
		}
		IsComplete(cell)
	})
}
