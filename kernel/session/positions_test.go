package session

import (
	"context"
	"testing"
)

// TestPanicPositions: a panic points at the line of the statement that
// raised it, for every form of statement, whether the cell's own code
// panicked or a compiled function it called; two statements come first
// so that line 1 is never right by accident.
func TestPanicPositions(t *testing.T) {
	const pre = "p1 := 1\np2 := 2\n"
	tests := []struct {
		name, setup, stmt string
	}{
		{"panic", "", `panic("boom")`},
		{"panic of an error", "", `panic(fmt.Errorf("bad %d", p1))`},
		{"assignment", "var arr []int", "arr[p2] = p1"},
		{"define", "var arr []int", "v := arr[p2]"},
		{"call of a declared function", "func boom() { panic(\"boom\") }", "boom()"},
		{"call of a function value", "", "func() { panic(\"boom\") }()"},
		{"call into compiled code", "", `strings.Repeat("x", -p1)`},
		{"compiled call in an assignment", "", `s := strings.Repeat("x", -p1)`},
		{"index", "arr := []int{1}", "_ = arr[p2+3]"},
		{"slice", "arr := []int{1}", "_ = arr[:p2+3]"},
		{"map write", "var m map[string]int", `m["a"] = p1`},
		{"type assertion", "var a any = 1", "_ = a.(string)"},
		{"channel send on closed", "ch := make(chan int, 1)\nclose(ch)", "ch <- p1"},
		{"close of closed channel", "ch := make(chan int)\nclose(ch)", "close(ch)"},
		{"nil pointer", "type P struct{ A int }\nvar p *P", "_ = p.A"},
		{"division by zero", "zero := 0", "_ = p1 / zero"},
		{"defer in a function", "func deferred() { defer func() { panic(\"in defer\") }() }", "deferred()"},
		{"in a loop", "arr := []int{1}", "for i := 0; i < 3; i++ { arr[i] = p1 }"},
		{"in an if", "arr := []int{1}", "if p1 > 0 { arr[p2] = 0 }"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestSession(t)
			if tt.setup != "" {
				if err := s.Execute(context.Background(), tt.setup, func(Event) {}); err != nil {
					t.Fatalf("setup: %v", err)
				}
			}
			var failure *Event
			_ = s.Execute(context.Background(), pre+tt.stmt, func(e Event) {
				if e.Kind == EventError {
					failure = &e
				}
			})
			if failure == nil {
				t.Fatal("no error")
			}
			if failure.Line != 3 {
				t.Errorf("line %d, want 3: %s: %s\n%q", failure.Line, failure.EName, failure.EValue, failure.Traceback)
			}
		})
	}
}
