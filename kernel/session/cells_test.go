package session

import (
	"maps"
	"reflect"
	"slices"
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
		"ByName":    reflect.ValueOf(func() map[string]*LabRun { return map[string]*LabRun{"a": &labLatin.Runs[0]} }),
		"Find":      reflect.ValueOf(func(runs []LabRun) *LabRun { return &runs[len(runs)-1] }),
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
		{"pointer element of a map", []string{"byName := session.ByName()", "r := byName[\"a\"]\nr.Name"}, []string{"", "=> a\n"}},
		{"pointer result of a call on an element", []string{"res := session.Load()", "r := session.Find(res.Runs[0:2])\nr.Name"}, []string{"", "=> b\n"}},
		{"interpreted slices keep working", []string{"type P struct{ A int }\nps := []P{{1}, {2}}", "p := ps[1]\np.A"}, []string{"", "=> 2\n"}},
	})
}

// genericCalls calls every name completion offers after slices., maps. and
// cmp. (TestCompletionOffersWhatCanBeCalled holds that list to this one).
var genericCalls = map[string]cellCase{
	"slices.Sort":             {cells: []string{"xs := []float64{3, 1, 2}\nslices.Sort(xs)\nxs"}, want: []string{"=> [1 2 3]\n"}},
	"slices.SortFunc":         {cells: []string{"type P struct{ N string; A int }\nps := []P{{\"b\", 2}, {\"a\", 1}}\nslices.SortFunc(ps, func(a, b P) int { return cmp.Compare(a.A, b.A) })\nps[0].N"}, want: []string{"=> a\n"}},
	"slices.SortStableFunc":   {cells: []string{"xs := []string{\"bb\", \"a\", \"cc\"}\nslices.SortStableFunc(xs, func(a, b string) int { return len(a) - len(b) })\nxs"}, want: []string{"=> [a bb cc]\n"}},
	"slices.IsSorted":         {cells: []string{"slices.IsSorted([]int{1, 2, 2})"}, want: []string{"=> true\n"}},
	"slices.IsSortedFunc":     {cells: []string{"slices.IsSortedFunc([]int{3, 1}, func(a, b int) int { return b - a })"}, want: []string{"=> true\n"}},
	"slices.BinarySearch":     {cells: []string{"slices.BinarySearch([]float64{1, 2, 4}, 3)"}, want: []string{"=> 2 false\n"}},
	"slices.BinarySearchFunc": {cells: []string{"slices.BinarySearchFunc([]string{\"a\", \"bbb\"}, 3, func(s string, n int) int { return len(s) - n })"}, want: []string{"=> 1 true\n"}},
	"slices.Index":            {cells: []string{"slices.Index([]string{\"a\", \"b\"}, \"b\")"}, want: []string{"=> 1\n"}},
	"slices.IndexFunc":        {cells: []string{"slices.IndexFunc([]int{1, 4}, func(v int) bool { return v > 2 })"}, want: []string{"=> 1\n"}},
	"slices.Contains":         {cells: []string{"slices.Contains([]int{1, 4}, 4)"}, want: []string{"=> true\n"}},
	"slices.ContainsFunc":     {cells: []string{"slices.ContainsFunc([]int{1}, func(v int) bool { return v > 2 })"}, want: []string{"=> false\n"}},
	"slices.Equal":            {cells: []string{"slices.Equal([]int{1}, []int{1})"}, want: []string{"=> true\n"}},
	"slices.EqualFunc":        {cells: []string{"slices.EqualFunc([]int{1}, []string{\"1\"}, func(a int, b string) bool { return fmt.Sprint(a) == b })"}, want: []string{"=> true\n"}},
	"slices.Compare":          {cells: []string{"slices.Compare([]int{1, 2}, []int{1, 3})"}, want: []string{"=> -1\n"}},
	"slices.CompareFunc":      {cells: []string{"slices.CompareFunc([]int{1}, []int{1, 2}, func(a, b int) int { return a - b })"}, want: []string{"=> -1\n"}},
	"slices.Max":              {cells: []string{"slices.Max([]float64{1, 7, 2})"}, want: []string{"=> 7\n"}},
	"slices.Min":              {cells: []string{"slices.Min([]int{4, 2, 9})"}, want: []string{"=> 2\n"}},
	"slices.MaxFunc":          {cells: []string{"slices.MaxFunc([]string{\"a\", \"ccc\"}, func(a, b string) int { return len(a) - len(b) })"}, want: []string{"=> ccc\n"}},
	"slices.MinFunc":          {cells: []string{"slices.MinFunc([]string{\"bb\", \"a\"}, func(a, b string) int { return len(a) - len(b) })"}, want: []string{"=> a\n"}},
	"slices.Reverse":          {cells: []string{"xs := []int{1, 2, 3}\nslices.Reverse(xs)\nxs"}, want: []string{"=> [3 2 1]\n"}},
	"slices.Insert":           {cells: []string{"slices.Insert([]int{1, 2}, 1, 5, 6)"}, want: []string{"=> [1 5 6 2]\n"}},
	"slices.Delete":           {cells: []string{"slices.Delete([]int{1, 2, 3}, 0, 1)"}, want: []string{"=> [2 3]\n"}},
	"slices.DeleteFunc":       {cells: []string{"slices.DeleteFunc([]int{1, 2, 3}, func(v int) bool { return v%2 == 1 })"}, want: []string{"=> [2]\n"}},
	"slices.Replace":          {cells: []string{"slices.Replace([]int{1, 2, 3}, 1, 2, 7, 8)"}, want: []string{"=> [1 7 8 3]\n"}},
	"slices.Compact":          {cells: []string{"slices.Compact([]int{1, 1, 2, 2, 1})"}, want: []string{"=> [1 2 1]\n"}},
	"slices.CompactFunc":      {cells: []string{"slices.CompactFunc([]string{\"a\", \"A\", \"b\"}, strings.EqualFold)"}, want: []string{"=> [a b]\n"}},
	"slices.Clone":            {cells: []string{"a := []int{1}\nfunc() []int { b := slices.Clone(a); b[0] = 2; return a }()"}, want: []string{"=> [1]\n"}},
	"slices.Grow":             {cells: []string{"cap(slices.Grow([]int{1}, 10)) >= 11"}, want: []string{"=> true\n"}},
	"slices.Clip":             {cells: []string{"cap(slices.Clip(make([]int, 1, 5)))"}, want: []string{"=> 1\n"}},
	"slices.Repeat":           {cells: []string{"slices.Repeat([]int{1, 2}, 2)"}, want: []string{"=> [1 2 1 2]\n"}},
	"maps.Clone":              {cells: []string{"m := map[string]int{\"a\": 1}\nfunc() int { c := maps.Clone(m); c[\"a\"] = 2; return m[\"a\"] }()"}, want: []string{"=> 1\n"}},
	"maps.Copy":               {cells: []string{"m := map[int]int{}\nmaps.Copy(m, map[int]int{1: 2})\nm"}, want: []string{"=> map[1:2]\n"}},
	"maps.Equal":              {cells: []string{"maps.Equal(map[int]int{1: 2}, map[int]int{1: 2})"}, want: []string{"=> true\n"}},
	"maps.EqualFunc":          {cells: []string{"maps.EqualFunc(map[int]int{1: 2}, map[int]string{1: \"2\"}, func(a int, b string) bool { return fmt.Sprint(a) == b })"}, want: []string{"=> true\n"}},
	"maps.DeleteFunc":         {cells: []string{"m := map[int]int{1: 1, 2: 2}\nmaps.DeleteFunc(m, func(k, v int) bool { return k == 1 })\nm"}, want: []string{"=> map[2:2]\n"}},
	"cmp.Compare":             {cells: []string{"cmp.Compare(1, 2)", "import \"cmp\"\ncmp.Compare(\"b\", \"a\")"}, want: []string{"=> -1\n", "=> 1\n"}},
	"cmp.Ordered":             {cells: []string{"func Big[T cmp.Ordered](a, b T) T { if a > b { return a }; return b }\nBig(\"x\", \"y\")"}, want: []string{"=> y\n"}},
}

// TestGenericStandardLibrary holds that the generic functions of slices,
// maps and cmp can be called, imported or not.
func TestGenericStandardLibrary(t *testing.T) {
	var tests []cellCase
	for _, name := range slices.Sorted(maps.Keys(genericCalls)) {
		c := genericCalls[name]
		c.name = name
		tests = append(tests, c)
	}
	tests = append(tests,
		cellCase{"imported slices", []string{"import \"slices\"\nslices.Min([]int{4, 2})"}, []string{"=> 2\n"}},
		cellCase{"min and max next to cmp", []string{"import \"cmp\"\nmin(3, 1) + max(2, cmp.Compare(1, 1))"}, []string{"=> 3\n"}},
	)
	runCellCases(t, Options{}, tests)
}

// TestIteratorsAreNamed holds that a function returning an iterator is
// reported with the loop to write instead.
func TestIteratorsAreNamed(t *testing.T) {
	runCellCases(t, Options{}, []cellCase{
		{"maps.Keys", []string{"m := map[int]int{}\nmaps.Keys(m)"},
			[]string{"!CompileError: 2:1: maps.Keys returns an iterator (range over func), which the interpreter cannot run: write `for k := range m { ... }`\n"}},
		{"in a range", []string{"for v := range slices.Values([]int{1}) {\n}"},
			[]string{"!CompileError: 1:16: slices.Values returns an iterator (range over func), which the interpreter cannot run: write `for _, v := range s { ... }`\n"}},
		{"in a function", []string{"func f(xs []int) []int { return slices.Sorted(slices.Values(xs)) }"},
			[]string{"!CompileError: 1:33: slices.Sorted returns an iterator (range over func), which the interpreter cannot run: write `s := slices.Clone(src); slices.Sort(s)`\n"}},
		{"strings", []string{"strings.SplitSeq(\"a,b\", \",\")"},
			[]string{"!CompileError: 1:1: strings.SplitSeq returns an iterator (range over func), which the interpreter cannot run: write `for _, part := range strings.Split(s, sep) { ... }`\n"}},
		{"a variable named maps is not the package", []string{"type K struct{}\nfunc (K) Keys() int { return 1 }\nmaps := K{}\nmaps.Keys()"}, []string{"=> 1\n"}},
	})
}

// TestCompletionOffersWhatCanBeCalled holds that completion after slices.,
// maps. and cmp. offers exactly names a test above calls.
func TestCompletionOffersWhatCanBeCalled(t *testing.T) {
	s := newTestSession(t)
	for _, pkg := range []string{"slices", "maps", "cmp"} {
		got, _, _ := s.Complete(pkg+".", len(pkg)+1)
		if len(got) == 0 {
			t.Errorf("%s.: nothing offered", pkg)
		}
		for _, name := range got {
			if _, ok := genericCalls[pkg+"."+name]; !ok {
				t.Errorf("%s.%s is offered but no test calls it", pkg, name)
			}
		}
		for _, name := range slices.Collect(maps.Keys(iterators[pkg])) {
			if slices.Contains(got, name) {
				t.Errorf("%s.%s returns an iterator but is offered", pkg, name)
			}
		}
	}
}
