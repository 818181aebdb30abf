package session

import (
	"reflect"
	"testing"
)

// mapFunc is a generic function whose second type parameter yaegi, which
// infers by position, would take from the first.
const mapFunc = "func Map[T, U any](xs []T, f func(T) U) []U { var r []U; for _, x := range xs { r = append(r, f(x)) }; return r }"

// TestGenericCallsAreTyped holds that a generic function defined in one
// cell is called with the type arguments Go infers, whatever the
// arguments: a function literal, a named function, a compiled function, a
// type defined in the session.
func TestGenericCallsAreTyped(t *testing.T) {
	runCellCases(t, Options{}, []cellCase{
		{"function literal", []string{mapFunc, "Map([]int{1, 2}, func(v int) string { return fmt.Sprint(v*2) })"},
			[]string{"", "=> [2 4]\n"}},
		{"named function of the session", []string{mapFunc, "func half(v int) float64 { return float64(v) / 2 }", "Map([]int{1, 3}, half)"},
			[]string{"", "", "=> [0.5 1.5]\n"}},
		{"compiled function", []string{mapFunc, "Map([]int{1, 2}, strconv.Itoa)", "Map([]string{\"a\"}, strings.ToUpper)"},
			[]string{"", "=> [1 2]\n", "=> [A]\n"}},
		{"type defined in the session", []string{mapFunc, "type P struct{ N string; A int }", "ps := []P{{\"b\", 2}, {\"a\", 1}}",
			"Map(ps, func(p P) string { return p.N })", "Map([]int{7}, func(v int) P { return P{A: v} })[0].A"},
			[]string{"", "", "", "=> [b a]\n", "=> 7\n"}},
		{"inside functions and generic functions", []string{mapFunc,
			"type P struct{ N string }\nfunc names(ps []P) []string { return Map(ps, func(p P) string { return p.N }) }",
			"func show[T any](xs []T) []string { return Map(xs, func(x T) string { return fmt.Sprint(x) }) }",
			"names([]P{{\"x\"}})", "show([]float64{1.5})"},
			[]string{"", "", "", "=> [x]\n", "=> [1.5]\n"}},
		{"declared from a call", []string{mapFunc, "x := Map([]int{1, 2}, func(v int) string { return fmt.Sprint(v * 2) })\nx", "x[1]"},
			[]string{"", "=> [2 4]\n", "=> 4\n"}},
		{"type arguments given in part", []string{mapFunc, "Map[int]([]int{1}, func(v int) string { return \"s\" })"},
			[]string{"", "=> [s]\n"}},
		{"defined and called in one cell", []string{"func Keys[K comparable, V any](m map[K]V) []K { var r []K; for k := range m { r = append(r, k) }; return r }\nKeys(map[string]int{\"a\": 1})"},
			[]string{"=> [a]\n"}},
		{"recursive", []string{"func Sum[T int | float64](xs []T) T { if len(xs) == 0 { return 0 }; return xs[0] + Sum(xs[1:]) }", "Sum([]int{1, 2, 3})", "s := Sum([]float64{1.5, 2})\ns"},
			[]string{"", "=> 6\n", "=> 3.5\n"}},
	})
}

// TestGenericResultsDeclareVariables holds that a variable declared from a
// generic call, at the top level of a cell or with var, holds the call's
// value, of the call's type.
func TestGenericResultsDeclareVariables(t *testing.T) {
	runCellCases(t, Options{}, []cellCase{
		{"slices.Clone at the top level", []string{"a := []int{3,1,2}\nb := slices.Clone(a)\nslices.Sort(b)\nb", "a"},
			[]string{"=> [1 2 3]\n", "=> [3 1 2]\n"}},
		{"maps.Clone at the top level", []string{"m := map[string]int{\"a\": 1}\nk := maps.Clone(m)\nk[\"b\"] = 2\nk", "m"},
			[]string{"=> map[a:1 b:2]\n", "=> map[a:1]\n"}},
		{"a result of a type parameter", []string{"xs := []int{4, 9, 2}\nmx := slices.Max(xs)\nn := slices.Max(xs) + 1\nmx + n"},
			[]string{"=> 19\n"}},
		{"two results", []string{"func pair[T any](x T) (T, error) { return x, nil }", "v, err := pair(\"s\")\nv + fmt.Sprint(err)", "xs := []int{1, 2, 4}\ni, ok := slices.BinarySearch(xs, 3)\nfmt.Println(i, ok)"},
			[]string{"", "=> s<nil>\n", "2 false\n"}},
		{"in an if and a switch", []string{"a := []int{1, 2, 3}\nif m := slices.Max(a); m > 2 { fmt.Println(m) }\nswitch c := slices.Clone(a); { case len(c) == 3: fmt.Println(c) }"},
			[]string{"3\n[1 2 3]\n"}},
		{"compiled values", []string{"f := strings.Fields(\"b a\")\nslices.Sort(f)\nf", "slices.Index(strings.Fields(\"a b\"), \"b\")", "g := slices.Clone(f)\ng"},
			[]string{"=> [a b]\n", "=> 1\n", "=> [a b]\n"}},
		{"a type defined in the session", []string{"type P struct{ N string; A int }", "ps := []P{{\"b\", 2}, {\"a\", 1}}",
			"q := slices.Clone(ps)\nslices.SortFunc(q, func(a, b P) int { return cmp.Compare(a.A, b.A) })\nq[0].N", "ps[0].N", "best := slices.MaxFunc(ps, func(a, b P) int { return a.A - b.A })\nbest.N"},
			[]string{"", "", "=> a\n", "=> b\n", "=> b\n"}},
		{"a named type of the session", []string{"type Celsius float64", "ts := []Celsius{3, 1}", "m := slices.Max(ts)\nm + 1"},
			[]string{"", "", "=> 4\n"}},
		{"typed var", []string{"var f []int = slices.Clone([]int{1,2})\nf", "var g = slices.Clone(f)", "g"},
			[]string{"=> [1 2]\n", "", "=> [1 2]\n"}},
		{"var over lines", []string{"x := 1\nvar f []int = slices.Clone([]int{x,\n2})\nf"}, []string{"=> [1 2]\n"}},
		{"var in a function", []string{"func h(a []int) []int { var c = slices.Clone(a); var d []int = slices.Clone(c); return d }\nh([]int{5})"},
			[]string{"=> [5]\n"}},
		{"var using a declaration beside it", []string{"func g() int { return 3 }\nvar f = slices.Repeat([]int{1}, g())\nf"},
			[]string{"=> [1 1 1]\n"}},
		{"a function reads a var declared after it", []string{"func g() int { return v }\nvar v = 7", "g()"}, []string{"", "=> 7\n"}},
	})
}

// An unexported type of a compiled package, which a cell cannot name.
type hiddenItem struct{ N int }

// TestGenericCallsThatCannotRun holds that what the interpreter cannot run
// fails in Go's words with what to do instead.
func TestGenericCallsThatCannotRun(t *testing.T) {
	hidden := map[string]map[string]reflect.Value{
		"example.com/hidden/hidden": {
			"Items": reflect.ValueOf(func() []hiddenItem { return []hiddenItem{{1}, {2}} }),
		},
	}
	runCellCases(t, Options{Packages: hidden}, []cellCase{
		{"a compiled type against a type list", []string{"d := []time.Duration{time.Second, time.Minute}\nslices.Max(d)"},
			[]string{"!CompileError: 2:1: cannot use time.Duration as E in slices.Max: the interpreter cannot check a compiled type against constraint cmp.Ordered; convert the values to int64, or call slices.MaxFunc with a comparison\n"}},
		{"a type the cell cannot name", []string{"xs := slices.Clone(hidden.Items())", "len(slices.Clone(hidden.Items()))"},
			[]string{"!CompileError: 1:7: cannot infer the type arguments of slices.Clone for the interpreter, and session.hiddenItem cannot be named in the cell to write them: do it without calling slices.Clone\n",
				"!CompileError: 1:5: cannot infer the type arguments of slices.Clone for the interpreter, and session.hiddenItem cannot be named in the cell to write them: do it without calling slices.Clone\n"}},
		{"a var a declaration beside it uses", []string{"a := []int{1, 2}\nvar f = slices.Clone(a)\nfunc g() int { return len(f) }"},
			[]string{"!CompileError: 2:5: the interpreter cannot initialize package-level variable f from a generic call (slices.Clone) beside declarations that use it: declare f in a cell of its own\n"}},
		{"a var group", []string{"var (\n\ta = slices.Clone([]int{1})\n\tb = 2\n)"},
			[]string{"!CompileError: 1:1: the interpreter cannot initialize a var group from a generic call (slices.Clone): declare the variable on its own, var a = ...\n"}},
		{"a call Go rejects", []string{"w := slices.Clone(1)"},
			[]string{"!CompileError: 1:6: in call to slices.Clone, cannot infer E\n"}},
		{"an iterator keeps its error", []string{"m := map[int]int{}\nk := maps.Keys(m)"},
			[]string{"!CompileError: 2:6: maps.Keys returns an iterator (range over func), which the interpreter cannot run: write `for k := range m { ... }`\n"}},
	})
}
