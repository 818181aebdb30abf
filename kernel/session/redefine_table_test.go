package session

import (
	"reflect"
	"strings"
	"testing"
)

// holder stands for a preloaded package that keeps what a cell hands it: a
// value (hold.Put, hold.Take) and a callback it calls later, as a widget
// does (hold.OnChange; the test calls it through Session.Call, the way
// the kernel calls a widget's callback).
type holder struct {
	value    any
	callback func()
}

func (h *holder) packages() map[string]map[string]reflect.Value {
	return map[string]map[string]reflect.Value{"example.com/hold/hold": {
		"Put":      reflect.ValueOf(func(v any) { h.value = v }),
		"Take":     reflect.ValueOf(func() any { return h.value }),
		"OnChange": reflect.ValueOf(func(f func()) { h.callback = f }),
	}}
}

// redefinition is one row of the table: cells run once (the first run),
// the redefinition, then cells that use the name; "callback" as a cell
// calls the callback a cell registered, as a widget change would.
type redefinition struct {
	name   string
	before []string
	redef  string
	after  []string
	want   []string // outputs of the after cells
}

func TestRedefinitionTable(t *testing.T) {
	var rows []redefinition
	// Each declaration kind, changing value only and changing type, seen
	// from a later cell, a function declared before, a closure made
	// before, a callback a compiled package holds, and a value a
	// compiled package holds.
	type kind struct {
		name             string
		first, same, new string // declarations of x: first, same type new value, new type
		newShows         string // what the new x prints
	}
	kinds := []kind{
		{":=", "x := 1", "x := 2", `x := "two"`, "two"},
		{"var", "var x = 1", "var x = 2", `var x = "two"`, "two"},
		{"var typed", "var x int = 1", "var x int = 2", `var x string = "two"`, "two"},
		{"const", "const x = 1", "const x = 2", `const x = "two"`, "two"},
	}
	for _, k := range kinds {
		for _, ch := range []struct{ name, redef, shows string }{{"same type", k.same, "2"}, {"new type", k.new, k.newShows}} {
			prefix := k.name + " " + ch.name + ": "
			rows = append(rows,
				redefinition{prefix + "later cell", []string{k.first}, ch.redef, []string{"fmt.Println(x)"}, []string{ch.shows + "\n"}},
				redefinition{prefix + "func declared before", []string{k.first, "func show() { fmt.Println(x) }"}, ch.redef, []string{"show()"}, []string{ch.shows + "\n"}},
				redefinition{prefix + "block local of that name", []string{k.first}, ch.redef, []string{"for i := 0; i < 1; i++ {\n\tx := 2.5\n\tfmt.Println(x, i)\n}", "fmt.Println(x)"}, []string{"2.5 0\n", ch.shows + "\n"}},
			)
		}
	}
	rows = append(rows,
		// Functions.
		redefinition{"func new signature: later cell", []string{"func f() int { return 1 }"}, `func f(s string) string { return s + "!" }`, []string{`f("a")`}, []string{"=> a!\n"}},
		redefinition{"func new signature: caller declared before", []string{"func f() int { return 1 }", "func g() int { return f() }"}, `func f(s string) string { return s + "!" }`, []string{`f("a")`, "g()"}, []string{"=> a!\n", "!panic: g no longer compiles since f changed (not enough arguments in call to f): run its cell again\n"}},
		redefinition{"func new signature then back: caller declared before compiles again", []string{"func f() int { return 1 }", "func g() int { return f() }", `func f(s string) string { return s }`}, "func f() int { return 3 }", []string{"g()"}, []string{"=> 3\n"}},
		redefinition{"func new signature, then a type redefined: the stub survives the rebuild", []string{"type T struct{ A int }", "func f() int { return 1 }", "func g() int { return f() }", `func f(s string) string { return s }`}, "type T struct{ A, B int }", []string{"T{1, 2}", "g()"}, []string{"=> {1 2}\n", "!panic: g no longer compiles since f changed (not enough arguments in call to f): run its cell again\n"}},
		redefinition{"func same signature: caller declared before", []string{"func f() int { return 1 }", "func g() int { return f() }"}, `func f() int { return 2 }`, []string{"g()"}, []string{"=> 2\n"}},
		redefinition{"func new signature: closure made before", []string{"func f() int { return 1 }", "c := func() int { return f() }"}, `func f(s string) string { return s }`, []string{"c()"}, []string{"=> 1\n"}},
		redefinition{"func: callback held by a compiled package", []string{"func f() int { return 1 }", "hold.OnChange(func() { fmt.Println(f()) })"}, `func f() int { return 2 }`, []string{"callback"}, []string{"1\n"}},
		redefinition{"func new signature: callback held by a compiled package", []string{"func f() int { return 1 }", "hold.OnChange(func() { fmt.Println(f()) })"}, `func f(s string) string { return s }`, []string{"callback", "1"}, []string{"1\n", "=> 1\n"}},
		redefinition{"func to variable", []string{"func f() int { return 1 }"}, `f := 3`, []string{"f"}, []string{"=> 3\n"}},
		redefinition{"variable to func", []string{"f := 3"}, `func f() int { return 4 }`, []string{"f()"}, []string{"=> 4\n"}},
		// Types.
		redefinition{"type new fields: later cell", []string{"type T struct{ A int }"}, "type T struct{ A, B int }", []string{"T{1, 2}"}, []string{"=> {1 2}\n"}},
		redefinition{"type new fields: func declared before", []string{"type T struct{ A int }", "func mk() T { return T{A: 1} }"}, "type T struct{ A, B int }", []string{"mk()"}, []string{"=> {1 0}\n"}},
		redefinition{"type new kind: variable of the old type", []string{"type T struct{ A int }", "v := T{1}"}, "type T []int", []string{"T{1, 2}", "v"}, []string{"=> [1 2]\n", "!CompileError: 1:1: undefined: v (the session dropped it when T was redefined: run the cell that defines it again)\n"}},
		redefinition{"type to variable", []string{"type T struct{ A int }"}, "T := 5", []string{"T"}, []string{"=> 5\n"}},
		redefinition{"variable to type", []string{"T := 5"}, "type T struct{ A int }", []string{"T{2}"}, []string{"=> {2}\n"}},
		redefinition{"type: closure made before", []string{"type T struct{ A int }", "mk := func() T { return T{A: 7} }"}, "type T struct{ A, B int }", []string{"mk().A"}, []string{"!CompileError: 1:1: undefined: mk (the session dropped it when T was redefined: run the cell that defines it again)\n"}},
		redefinition{"type: callback held by a compiled package", []string{"type T struct{ A int }", "hold.OnChange(func() { fmt.Println(T{A: 3}) })"}, "type T struct{ A, B int }", []string{"callback"}, []string{"{3}\n"}},
		redefinition{"type: value held by a compiled package", []string{"type T struct{ A int }", "hold.Put(T{4})"}, "type T struct{ A, B int }", []string{"_, ok := hold.Take().(T)\nok", "fmt.Println(hold.Take())"}, []string{"=> false\n", "{4}\n"}},
		// Methods.
		redefinition{"method changed: later cell", []string{"type C struct{ v int }", "func (c C) Get() int { return c.v }"}, "func (c C) Get() int { return c.v * 10 }", []string{"C{3}.Get()"}, []string{"=> 30\n"}},
		redefinition{"method new signature", []string{"type C struct{ v int }", "func (c C) Get() int { return c.v }"}, "func (c C) Get(k int) int { return c.v * k }", []string{"C{3}.Get(5)"}, []string{"=> 15\n"}},
		redefinition{"method added: value made before", []string{"type C struct{ v int }", "c := C{4}"}, "func (c C) Twice() int { return 2 * c.v }", []string{"c.Twice()"}, []string{"=> 8\n"}},
		redefinition{"method set changed: interface satisfied", []string{"type C struct{ v int }", "type Getter interface{ Get() int }"}, "func (c C) Get() int { return c.v }", []string{"var g Getter = C{6}\ng.Get()"}, []string{"=> 6\n"}},
		redefinition{"method changed: caller declared before", []string{"type C struct{ v int }\nfunc (c C) Get() int { return c.v }", "func use() int { return C{2}.Get() }"}, "func (c C) Get() int { return c.v + 100 }", []string{"use()"}, []string{"=> 102\n"}},
		// Variables a closure or a callback captured.
		redefinition{":= new type: closure made before", []string{"x := 1", "c := func() int { return x + 1 }"}, `x := "two"`, []string{"c()", "x"}, []string{"=> 2\n", "=> two\n"}},
		redefinition{":= same type: callback held by a compiled package", []string{"x := 1", "hold.OnChange(func() { fmt.Println(x + 1) })"}, "x := 5", []string{"callback", "x"}, []string{"2\n", "=> 5\n"}},
		redefinition{":= new type: callback held by a compiled package", []string{"x := 1", "hold.OnChange(func() { fmt.Println(x + 1) })"}, `x := "two"`, []string{"callback", "x"}, []string{"2\n", "=> two\n"}},
		redefinition{"var new type: func declared before stops compiling", []string{"var x = 1", "func inc() int { return x + 1 }"}, `var x = "two"`, []string{"inc()"}, []string{"!panic: inc no longer compiles since x changed (invalid operation: mismatched types string and untyped int): run its cell again\n"}},
		// A type parameter's name is not the session's.
		redefinition{"type parameter name declared as a type", []string{"func Id[T any](v T) T { return v }", "Id(3)"}, "type T float64", []string{"T(2.5)", "Id(4)"}, []string{"=> 2.5\n", "=> 4\n"}},
		// A whole cell run again (Run All twice).
		redefinition{"cell run again: type and block local", []string{"type row struct{ a string }\nrows := []row{{\"x\"}}\nfor _, r := range rows {\n\tg := r\n\tfmt.Println(g.a)\n}", "g := 1.5"},
			"type row struct{ a string }\nrows := []row{{\"y\"}}\nfor _, r := range rows {\n\tg := r\n\tfmt.Println(g.a)\n}", []string{"g"}, []string{"=> 1.5\n"}},
	)
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			h := &holder{}
			s, err := New(Options{Packages: h.packages()})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for _, c := range r.before {
				if out := runCells(t, s, c)[0]; strings.HasPrefix(out, "!") {
					t.Fatalf("before: %q: %s", c, out)
				}
			}
			if out := runCells(t, s, r.redef)[0]; strings.HasPrefix(out, "!") {
				t.Errorf("redefinition %q: %s", r.redef, out)
			}
			for i, c := range r.after {
				var got string
				if c == "callback" {
					var b strings.Builder
					_ = s.Call(func(e Event) { b.WriteString(describe(e)) }, h.callback)
					got = b.String()
				} else {
					got = runCells(t, s, c)[0]
				}
				if want := r.want[i]; got != want && !(strings.HasPrefix(want, "!") && strings.HasPrefix(got, want)) {
					t.Errorf("%q:\n got %q\nwant %q", c, got, want)
				}
			}
		})
	}
}
