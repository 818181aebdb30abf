package session

import (
	"reflect"
	"testing"
)

// cellCase is a run of cells in one fresh session and the outputs each must
// give (see runCells for the notation).
type cellCase struct {
	name  string
	cells []string
	want  []string
}

func runCellCases(t *testing.T, opts Options, tests []cellCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			got := runCells(t, s, tt.cells...)
			for i := range tt.want {
				if got[i] != tt.want[i] {
					t.Errorf("cell %d %q:\n got %q\nwant %q", i, tt.cells[i], got[i], tt.want[i])
				}
			}
		})
	}
}

// TestFunctionLiteralsAndGoroutines holds that what works at the top of a
// cell works inside a function literal and a goroutine too: automatic
// imports, range over an integer, min and max.
func TestFunctionLiteralsAndGoroutines(t *testing.T) {
	runCellCases(t, Options{}, []cellCase{
		{"auto import in a goroutine", []string{"done := make(chan string)\ngo func() { done <- strings.ToUpper(\"x\") }()\n<-done"},
			[]string{"=> X\n"}},
		{"range over an integer in a goroutine", []string{"done := make(chan int)\ngo func() { s := 0; for i := range 4 { s += i }; done <- s }()\n<-done"},
			[]string{"=> 6\n"}},
		{"goroutine arguments are evaluated first", []string{"done := make(chan int)\nn := 5\ngo func(k int) { s := 0; for i := range k { s += i }; done <- max(s, 1) }(n)\nn = 0\n<-done"},
			[]string{"=> 10\n"}},
		{"variadic goroutine over lines keeps line numbers", []string{"done := make(chan int)\nxs := []int{1, 2}\ngo func(a ...int) { done <- len(a) }(\n\txs...,\n)\n<-done\nnope"},
			[]string{"!CompileError: 7:1: undefined: nope\n"}},
		{"auto import in a function literal", []string{"f := func() int { s := 0; for i := range 3 { s += i }; return strings.Count(\"aa\", \"a\") + s }\nf()"},
			[]string{"=> 5\n"}},
		{"goroutine of a builtin", []string{"m := map[int]int{1: 1}\ndone := make(chan bool)\ngo clear(m)\ngo func() { for len(m) > 0 { runtime.Gosched() }; done <- true }()\n<-done"},
			[]string{"=> true\n"}},
	})
}

// A compiled package for the tests (cells name it session): slices of structs holding structs, as
// costmodel and the parsers return.
type LabParams struct{ Bytes int }

type LabRun struct {
	Name   string
	Params LabParams
	Times  []float64
}

type LabResult struct{ Runs []LabRun }

func (r LabResult) First() LabRun { return r.Runs[0] }

var labLatin = &LabResult{Runs: []LabRun{{Name: "a", Params: LabParams{Bytes: 8}, Times: []float64{1, 2}}, {Name: "b"}}}

var labPackages = map[string]map[string]reflect.Value{
	"github.com/commlab/commlab/kernel/session/session": {
		"LabParams": reflect.ValueOf((*LabParams)(nil)),
		"LabRun":    reflect.ValueOf((*LabRun)(nil)),
		"LabResult": reflect.ValueOf((*LabResult)(nil)),
		"Load":      reflect.ValueOf(func() LabResult { return *labLatin }),
		"Runs":      reflect.ValueOf(func() []LabRun { return labLatin.Runs }),
		"Latest":    reflect.ValueOf(&labLatin).Elem(),
		"Count":     reflect.ValueOf(func() int { return 3 }),
	},
}

// TestElementsOfCompiledSlices holds that an element of a slice of compiled
// structs can be named like any value.
func TestElementsOfCompiledSlices(t *testing.T) {
	runCellCases(t, Options{Packages: labPackages}, []cellCase{
		{"element in the same cell", []string{"runs := session.Runs()\nr0 := runs[0]\nr0.Name"}, []string{"=> a\n"}},
		{"element in a later cell", []string{"runs := session.Runs()", "r0 := runs[1]", "r0.Name"}, []string{"", "", "=> b\n"}},
		{"field of an element", []string{"res := session.Load()", "pp := res.Runs[0].Params\npp.Bytes"}, []string{"", "=> 8\n"}},
		{"package variable", []string{"r := session.Latest.Runs[0]\nr.Times[1:]"}, []string{"=> [2]\n"}},
		{"method result", []string{"res := session.Load()\nn := res.First().Times[0]\nn * 2"}, []string{"=> 2\n"}},
		{"standard library", []string{"r := unicode.Latin.R16[0]\nr.Lo", "rs := unicode.Latin.R16", "x := rs[1]\nx.Lo"}, []string{"=> 65\n", "", "=> 97\n"}},
		{"var of an element", []string{"runs := session.Runs()", "var r = runs[0]\nr.Name"}, []string{"", "=> a\n"}},
		{"var reading an earlier variable", []string{"y := 2", "var x = y * 3\nx", "func get() int { return x }\nget()"}, []string{"", "=> 6\n", "=> 6\n"}},
		{"var before a function that uses it", []string{"var count = len(unicode.Latin.R16)\nfunc inc() int { count++; return count }\ninc()"}, []string{"=> 32\n"}},
		{"range over a compiled integer", []string{"s := 0\nfor i := range session.Count() { s += i }\ns", "f := func() (t int) { for i := range session.Count() { t += i }; return }\nf()"}, []string{"=> 3\n", "=> 3\n"}},
		{"interpreted slices keep working", []string{"type P struct{ A int }\nps := []P{{1}, {2}}", "p := ps[1]\np.A"}, []string{"", "=> 2\n"}},
	})
}
