package session

import (
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
