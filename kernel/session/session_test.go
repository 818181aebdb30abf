package session

import (
	"context"
	"errors"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commlab/commlab/kernel/display"
)

// run executes cells in one session and returns, per cell, the text of its
// outputs: streams as is, results as "=> text/plain", errors as "!ename: evalue".
func runCells(t *testing.T, s *Session, cells ...string) []string {
	t.Helper()
	out := make([]string, len(cells))
	for i, c := range cells {
		var b strings.Builder
		_ = s.Execute(context.Background(), c, func(e Event) { b.WriteString(describe(e)) })
		out[i] = b.String()
	}
	return out
}

func describe(e Event) string {
	switch e.Kind {
	case EventStream:
		return e.Text
	case EventResult:
		return "=> " + e.Data["text/plain"].(string) + "\n"
	case EventError:
		return "!" + e.EName + ": " + e.EValue + "\n"
	case EventDisplay:
		return "display " + e.DisplayID[:0] + firstKey(e.Data) + "\n"
	}
	return string(e.Kind) + "\n"
}

func firstKey(m map[string]any) string {
	for _, k := range []string{"text/html", "text/markdown", "image/png", "text/plain"} {
		if _, ok := m[k]; ok {
			return k
		}
	}
	return ""
}

func newTestSession(t *testing.T) *Session {
	t.Helper()
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestCellRules(t *testing.T) {
	tests := []struct {
		name  string
		cells []string
		want  []string
	}{
		{"final expression", []string{"1+1"}, []string{"=> 2\n"}},
		{"statement has no result", []string{"x := 3", "x"}, []string{"", "=> 3\n"}},
		{"mixed cell in any order", []string{"x := 4\nfunc double(v int) int { return 2 * v }\nimport \"strings\"\ntype P struct{ N int }\nconst k = 10\nstrings.Repeat(\"ab\", double(x)+P{1}.N-k+2)"},
			[]string{"=> ab\n"}},
		{"fmt output, no result for Println", []string{`fmt.Println("hi")`}, []string{"hi\n"}},
		{"void call has no result", []string{"func f() {}", "f()"}, []string{"", ""}},
		{"redefined function reaches earlier callers", []string{
			"func f() int { return 1 }\nfunc g() int { return f() * 10 }", "g()", "func f() int { return 2 }", "g()"},
			[]string{"", "=> 10\n", "", "=> 20\n"}},
		{"redefined type takes effect", []string{
			"type T struct{ A int }", "func (t T) Sum() int { return t.A }", "n := 7", "type T struct{ A, B int }", "T{A: 1, B: 2}.Sum()", "n"},
			[]string{"", "", "", "", "=> 1\n", "=> 7\n"}},
		{"redefined variable", []string{"x := 5", "x := \"s\"", "x"}, []string{"", "", "=> s\n"}},
		{"min max clear", []string{"min(3, 1.5, 2)", "a := 2.5\nmax(a, 7)", "m := map[int]int{1: 1}\nclear(m)\nlen(m)"},
			[]string{"=> 1.5\n", "=> 7\n", "=> 0\n"}},
		{"range over int", []string{"s := 0\nfor i := range 5 { s += i }\ns", "func sum(n int) (t int) { for i := range n { t += i }; return }\nsum(4)"},
			[]string{"=> 10\n", "=> 6\n"}},
		{"generics and closures", []string{"func Map[T, U any](xs []T, f func(T) U) []U { var r []U; for _, x := range xs { r = append(r, f(x)) }; return r }",
			"k := 3\nMap([]int{1, 2}, func(v int) int { return v * k })"}, []string{"", "=> [3 6]\n"}},
		{"goroutines and channels", []string{"ch := make(chan int)\ngo func() { ch <- 42 }()\n<-ch"}, []string{"=> 42\n"}},
		{"auto import", []string{`strings.ToUpper("go")`, `math.Sqrt(16)`}, []string{"=> GO\n", "=> 4\n"}},
		{"panic keeps state", []string{"y := 1", "var a []int\n_ = a[3]", "y + 1"},
			[]string{"", "!panic: runtime error: index out of range [3] with length 0\n", "=> 2\n"}},
		{"compile error maps to cell line", []string{"x := 1\n\ny := undefinedName + x"},
			[]string{"!CompileError: 3:6: undefined: undefinedName\n"}},
		{"multi value drops nil error", []string{`strconv.Atoi("12")`}, []string{"=> 12\n"}},
		{"error result", []string{`errors.New("bad")`}, []string{"=> bad\n"}},
		{"a final call's non-nil error fails the cell", []string{`strconv.Atoi("x")`, `os.ReadFile("/nonexistent")`, "1"},
			[]string{"!*strconv.NumError: strconv.Atoi: parsing \"x\": invalid syntax\n", "!*fs.PathError: open /nonexistent: no such file or directory\n", "=> 1\n"}},
		{"os.Exit does not end the kernel", []string{"os.Exit(3)", "1"}, []string{"!panic: os.Exit(3)\n", "=> 1\n"}},
		{"redefined const reaches functions", []string{"const n = 2\nfunc twice() int { return n * 2 }", "twice()", "const n = 5", "twice()"},
			[]string{"", "=> 4\n", "", "=> 10\n"}},
		{"method redefinition", []string{"type C struct{ v int }\nfunc (c C) Get() int { return c.v }", "C{3}.Get()", "func (c C) Get() int { return c.v * 100 }", "C{3}.Get()"},
			[]string{"", "=> 3\n", "", "=> 300\n"}},
		{"multi-value := in a loop at the top level", []string{"func two() (int, int) { return 1, 2 }",
			"s := 0\nfor i := 0; i < 2; i++ {\n\tx, y := two()\n\ts += x + y + i\n}\ns",
			"m := map[string]int{\"a\": 3}\nif v, ok := m[\"a\"]; ok { fmt.Println(v) }"},
			[]string{"", "=> 7\n", "3\n"}},
		{"a top-level func literal call runs once", []string{"runs := 0\nfunc() { runs++ }()", "func() int { runs++; return runs }()", "runs"},
			[]string{"", "=> 2\n", "=> 2\n"}},
		{"importing twice is fine", []string{"import \"fmt\"", "import \"fmt\"\nimport s \"strings\"", "import s \"strings\"\ns.ToUpper(\"x\")"},
			[]string{"", "", "=> X\n"}},
		{"top-level defer is refused plainly", []string{"defer fmt.Println(1)"},
			[]string{"!CompileError: 1:1: defer at the top level of a cell is not supported (it would run again after every later cell); defer inside a function\n"}},
		{"invalid UTF-8 is an error, not a crash", []string{"\xff", "1"}, []string{"!CompileError: 1:1: illegal UTF-8 encoding (and 1 more errors)\n", "=> 1\n"}},
		{"scanner errors keep the cell's line", []string{"x := 1\ny := 2\nz := 'ab'"}, []string{"!CompileError: 3:6: illegal rune literal\n"}},
		{"an incomplete expression is reported on its own line", []string{"z := 1\ny := 2\nz := y +", "var v = 3 *", "y := 1 +\n// more to come\n"},
			[]string{"!CompileError: 3:8: expected operand after '+': the expression is incomplete\n",
				"!CompileError: 1:11: expected operand after '*': the expression is incomplete\n",
				"!CompileError: 1:8: expected operand after '+': the expression is incomplete\n"}},
		{"an unclosed bracket is named where it opens", []string{"fmt.Println(1,", "x := 1\nif x > 0 {", "func f() int {"},
			[]string{"!CompileError: 1:12: '(' is never closed: the cell ends inside it\n",
				"!CompileError: 2:10: '{' is never closed: the cell ends inside it\n",
				"!CompileError: 1:14: '{' is never closed: the cell ends inside it\n"}},
		{"a parse error inside the cell keeps its words", []string{"x := 1 +)"}, []string{"!CompileError: 1:9: expected operand, found ')' (and 1 more errors)\n"}},
		{"undefined name is named plainly", []string{"nope + 1"}, []string{"!CompileError: 1:1: undefined: nope\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCells(t, newTestSession(t), tt.cells...)
			for i := range tt.want {
				if got[i] != tt.want[i] {
					t.Errorf("cell %d %q:\n got %q\nwant %q", i, tt.cells[i], got[i], tt.want[i])
				}
			}
		})
	}
}

// TestRuntimeErrorsInGoWords: a panic says what Go says, with the values
// when the cell's variables hold them, and shows the cell's line.
func TestRuntimeErrorsInGoWords(t *testing.T) {
	tests := []struct {
		name        string
		setup, cell string
		want, line  string
	}{
		{"index", "", "arr := []int{1}\nidx := 5\narr[idx] = 2", "index out of range [5] with length 1", "   3 | arr[idx] = 2"},
		{"index in a loop", "arr := []int{1}", "for i := 0; i < 3; i++ {\n\tarr[i] = 1\n}", "index out of range [1] with length 1", "   2 | \tarr[i] = 1"},
		{"string index", "", "s := \"ab\"\nk := 3\nfmt.Println(s[0])\ns[k]", "index out of range [3] with length 2", "   4 | s[k]"},
		{"slice bounds", "", "s := []int{1, 2}\nn := 5\ns[1:n]", "slice bounds out of range [:5] with capacity 2", "   3 | s[1:n]"},
		{"nil struct pointer", "type P struct{ A int; Q *P }\nvar p = &P{}", "x := 1\n_ = p.A + x\n_ = p.Q.A", "invalid memory address or nil pointer dereference", "   3 | _ = p.Q.A"},
		{"nil interface", "", "var e error\ne.Error()", "invalid memory address or nil pointer dereference", "   2 | e.Error()"},
		{"in a function", "func g(xs []int) int { return xs[3] }", "x := 1\n\ng([]int{x})", "index out of range", "   3 | g([]int{x})"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestSession(t)
			if tt.setup != "" {
				if err := s.Execute(context.Background(), tt.setup, func(Event) {}); err != nil {
					t.Fatal(err)
				}
			}
			var failure *Event
			_ = s.Execute(context.Background(), tt.cell, func(e Event) {
				if e.Kind == EventError {
					failure = &e
				}
			})
			if failure == nil {
				t.Fatal("no error")
			}
			if want := "runtime error: " + tt.want; failure.EValue != want {
				t.Errorf("evalue %q, want %q", failure.EValue, want)
			}
			if !slices.Contains(failure.Traceback, tt.line) {
				t.Errorf("traceback %q lacks %q", failure.Traceback, tt.line)
			}
		})
	}
}

func TestFailedCellReturnsErrCellFailed(t *testing.T) {
	for _, cell := range []string{`strconv.Atoi("x")`, "var a []int\n_ = a[1]", "x := 1 +"} {
		err := newTestSession(t).Execute(context.Background(), cell, func(Event) {})
		if !errors.Is(err, ErrCellFailed) {
			t.Errorf("%q: err = %v, want ErrCellFailed", cell, err)
		}
	}
}

func TestGoroutinePanicNamesItsCell(t *testing.T) {
	events := make(chan Event, 100)
	s, err := New(Options{Background: func(e Event) { events <- e }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	cells := []string{
		"release := make(chan bool)",
		"go func() { <-release; panic(\"late\") }()",
		"var a []int\ngo func(i int) { <-release; a[i] = 1 }(5)",
		"close(release)",
	}
	for _, c := range cells {
		if err := s.Execute(context.Background(), c, func(e Event) { events <- e }); err != nil {
			t.Fatalf("%q: %v", c, err)
		}
	}
	want := map[string]bool{
		"!panic: late (in a goroutine started by cell [2])\n":                              true,
		"!panic: runtime error: index out of range (in a goroutine started by cell [3])\n": true,
	}
	for len(want) > 0 {
		e := <-events
		if e.Kind != EventError {
			continue
		}
		if !want[describe(e)] {
			t.Fatalf("unexpected error event %q; still waiting for %v", describe(e), want)
		}
		delete(want, describe(e))
	}
}

// controlled is a session whose cells may import "example.com/gate": Open
// closes entered and waits for release, the way a long compiled call runs.
func controlled(t *testing.T) (s *Session, entered, release chan struct{}) {
	t.Helper()
	entered, release = make(chan struct{}), make(chan struct{})
	s, err := New(Options{Packages: map[string]map[string]reflect.Value{
		"example.com/gate/gate": {
			"Enter": reflect.ValueOf(func() { close(entered) }),
			"Wait":  reflect.ValueOf(func(xs []int) { close(entered); <-release; xs[0] = 1 }),
			// Until returns only when ctx is cancelled.
			"Until": reflect.ValueOf(func(ctx context.Context) { close(entered); <-ctx.Done() }),
		},
		"github.com/commlab/commlab/kernel/display/display": {"Context": reflect.ValueOf(display.Context)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, entered, release
}

// interrupted runs cell until it calls into the gate, then interrupts it;
// done receives Execute's error.
func interrupted(t *testing.T, s *Session, entered chan struct{}, cell string, emit func(Event)) (done chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done = make(chan error, 1)
	go func() { done <- s.Execute(ctx, "import \"example.com/gate\"\n"+cell, emit) }()
	select {
	case <-entered:
	case err := <-done:
		t.Fatalf("the cell ended before it reached the gate: %v", err)
	}
	cancel()
	return done
}

// afterInterrupt checks that the cell ended interrupted and what the next
// cell then shows.
func afterInterrupt(t *testing.T, s *Session, done chan error, next, want string) {
	t.Helper()
	if err := <-done; !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	if got := runCells(t, s, next); got[0] != want {
		t.Fatalf("after the interrupt, %q shows %q, want %q", next, got[0], want)
	}
}

func TestInterruptStopsInfiniteLoop(t *testing.T) {
	s, entered, _ := controlled(t)
	done := interrupted(t, s, entered, "n := 0\ngate.Enter()\nfor { n++ }", func(Event) {})
	afterInterrupt(t, s, done, "n > 0", "=> true\n")
}

// TestInterruptWaitsForCompiledCall: an interrupted cell inside a compiled
// call ends when the call returns, not before, and, past the grace period
// (none here), says what it waits for; the statements after the call do
// not run.
func TestInterruptWaitsForCompiledCall(t *testing.T) {
	s, entered, release := controlled(t)
	s.interruptGrace = 0
	events := make(chan Event, 16)
	done := interrupted(t, s, entered, "xs := []int{0}\ngate.Wait(xs)\nxs[0] = 2", func(e Event) { events <- e })
	for said := false; !said; {
		select {
		case e := <-events:
			said = e.Kind == EventStream && strings.HasPrefix(e.Text, "interrupt: session.controlled.") && strings.Contains(e.Text, "restart the kernel to abandon it")
		case err := <-done:
			t.Fatalf("the cell ended while its compiled call still ran: %v", err)
		}
	}
	select {
	case err := <-done:
		t.Fatalf("the cell ended while its compiled call still ran: %v", err)
	default:
	}
	close(release)
	// The call's write is seen, and not the next statement's.
	afterInterrupt(t, s, done, "xs[0]", "=> 1\n")
}

// TestInterruptOfAShortCallSaysOnce: a compiled call that returns within
// the grace period ends the interrupted cell with one message, the
// Interrupted error, and no advice to restart.
func TestInterruptOfAShortCallSaysOnce(t *testing.T) {
	s, entered, release := controlled(t)
	s.interruptGrace = time.Hour
	waiting := make(chan struct{})
	s.onAwait = func() { close(waiting) }
	var mu sync.Mutex
	var got []Event
	done := interrupted(t, s, entered, "xs := []int{0}\ngate.Wait(xs)\nxs[0] = 2", func(e Event) { mu.Lock(); got = append(got, e); mu.Unlock() })
	<-waiting // the session waits for the call: now it returns
	close(release)
	afterInterrupt(t, s, done, "xs[0]", "=> 1\n")
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].Kind != EventError || got[0].EName != "Interrupted" {
		var said []string
		for _, e := range got {
			said = append(said, describe(e))
		}
		t.Fatalf("an interrupted short call showed %q, want only the Interrupted error", said)
	}
}

// TestCellContext: display.Context is the cell's context, cancelled by an
// interrupt, so long compiled calls given it stop (the cell would not end
// otherwise).
func TestCellContext(t *testing.T) {
	s, entered, _ := controlled(t)
	done := interrupted(t, s, entered, "gate.Until(display.Context())", func(Event) {})
	afterInterrupt(t, s, done, "display.Context().Err() == nil", "=> true\n")
}

func TestMagics(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/lib.go"
	if err := os.WriteFile(file, []byte("package main\n\nfunc fromFile() int { return 41 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		cells []string
		check func(out []string) bool
	}{
		{"time", []string{"%time 1+1"}, func(o []string) bool { return strings.Contains(o[0], "Wall time:") }},
		{"cell time", []string{"%%time\nx := 0\nfor i := range 1000 { x += i }"}, func(o []string) bool { return strings.Contains(o[0], "Wall time:") }},
		{"env set and read", []string{"%env COMMLAB_MAGIC_TEST=on", `os.Getenv("COMMLAB_MAGIC_TEST")`}, func(o []string) bool { return o[1] == "=> on\n" }},
		{"who", []string{"alpha := 1\nfunc beta() {}", "%who"}, func(o []string) bool { return o[1] == "alpha\tbeta\n" }},
		{"reset", []string{"gone := 1", "%reset", "gone"}, func(o []string) bool { return strings.Contains(o[2], "undefined: gone") }},
		{"load", []string{"%load " + file, "fromFile() + 1"}, func(o []string) bool { return o[1] == "=> 42\n" }},
		{"shell line in Go cell", []string{"a := 2\n!echo from-shell\na * 3"}, func(o []string) bool { return o[0] == "from-shell\n=> 6\n" }},
		{"bash cell", []string{"%%bash\necho one\necho two >&2"}, func(o []string) bool { return strings.Contains(o[0], "one\n") && strings.Contains(o[0], "two\n") }},
		{"cells see the process environment", []string{`os.Setenv("COMMLAB_SEEN", "yes")`, "%env COMMLAB_SEEN"}, func(o []string) bool { return o[1] == "yes\n" }},
		{"cd", []string{"%cd " + dir, "!pwd"}, func(o []string) bool {
			return strings.HasSuffix(strings.TrimSpace(o[1]), strings.TrimPrefix(dir, "/private"))
		}},
		{"unknown magic lists known", []string{"%nope"}, func(o []string) bool { return strings.Contains(o[0], "unknown magic %nope; known: %%bash") }},
		{"not-equal is Go", []string{"1 != 2"}, func(o []string) bool { return o[0] == "=> true\n" }},
		{"help", []string{"%help"}, func(o []string) bool { return strings.Contains(o[0], "%who") }},
	}
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := runCells(t, newTestSession(t), tt.cells...)
			if !tt.check(out) {
				t.Errorf("outputs %q", out)
			}
		})
	}
}

// TestPythonParametersCellNamesTheFix: papermill without commlab-papermill,
// told the language is python, injects Python; the error says what to
// install, not only that '#' is illegal in Go.
func TestPythonParametersCellNamesTheFix(t *testing.T) {
	for _, cell := range []string{
		"# Parameters\nn = 16\n",
		"\n# Parameters\nbigSize = \"1GiB\"\nnvls = False\nsizes = [1, 2]\n",
	} {
		var failure *Event
		_ = newTestSession(t).Execute(context.Background(), cell, func(e Event) {
			if e.Kind == EventError {
				failure = &e
			}
		})
		if failure == nil {
			t.Fatalf("%q ran", cell)
		}
		if !strings.Contains(failure.EValue, "this looks like a Python parameters cell: install commlab-papermill") {
			t.Errorf("%q: evalue %q", cell, failure.EValue)
		}
		if !slices.Contains(failure.Traceback, "   "+strconv.Itoa(failure.Line)+" | # Parameters") {
			t.Errorf("%q: traceback %q does not show the comment line", cell, failure.Traceback)
		}
	}
	// Go's own parameters cell and a Go comment are not caught.
	out := runCells(t, newTestSession(t), "// Parameters\nn := 16", "n")
	if out[1] != "=> 16\n" {
		t.Errorf("Go parameters cell: %q", out)
	}
}

// TestInterruptBeforeTheCellStarts: a cell whose context is cancelled
// before it runs (an interrupt right after execute_input) ends
// interrupted instead of running on, and the session stays usable.
func TestInterruptBeforeTheCellStarts(t *testing.T) {
	s := newTestSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Execute(ctx, "spun := true\nfor { }", func(Event) {}); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	if got := runCells(t, s, "1 + 1"); got[0] != "=> 2\n" {
		t.Fatalf("after the interrupt, 1 + 1 shows %q", got[0])
	}
}
