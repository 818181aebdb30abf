package session

import (
	"context"
	"runtime"
	"testing"
	"weak"
)

// TestDroppedValueIsCollected: a value no variable holds any more can be
// collected (yaegi's frame kept intermediate values of top-level statements).
func TestDroppedValueIsCollected(t *testing.T) {
	tests := []struct{ name, make, drop string }{
		{"make assigned", "big := make([]byte, 1<<20)", "big = nil"},
		{"append of a literal", "big := append([]byte{}, make([]byte, 1<<20)...)", "big = nil"},
		{"shown as a result", "big := make([]byte, 1<<20)\nlen(big)", "big = []byte{}"},
		{"redefined", "big := make([]byte, 1<<20)", "big := 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestSession(t)
			run := func(c string) {
				t.Helper()
				if err := s.Execute(context.Background(), c, func(Event) {}); err != nil {
					t.Fatal(err)
				}
			}
			run(tt.make)
			b := s.globals()["big"].Interface().([]byte)
			held := weak.Make(&b[0])
			b = nil
			run(tt.drop)
			runtime.GC()
			if held.Value() != nil {
				t.Fatal("the dropped buffer is still reachable")
			}
		})
	}
}

// TestClosureKeepsWhatItCaptures: a function literal at the top level keeps
// the variables of the block it was made in.
func TestClosureKeepsWhatItCaptures(t *testing.T) {
	got := runCells(t, newTestSession(t),
		"var fs []func() int\nfor i := 0; i < 3; i++ {\n\tj := i * 10\n\tfs = append(fs, func() int { return j })\n}",
		"x := make([]int, 10)\n_ = x",
		"fs[2]()")
	if got[2] != "=> 20\n" {
		t.Fatalf("got %q", got)
	}
}

// A closure made in an earlier cell still reads the value it captured when
// a later cell defines the same name again: the old slot is not released.
func TestClosureKeepsValueAfterRedefinition(t *testing.T) {
	got := runCells(t, newTestSession(t),
		"x := 5\nf := func() int { return x }",
		"x := 6",
		"f()")
	if got[2] != "=> 5\n" {
		t.Fatalf("got %q, want f() to still read 5", got)
	}
}
