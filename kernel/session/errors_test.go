package session

import (
	"reflect"
	"strings"
	"testing"
)

// Stacks as yaegi keeps them in interp.Panic.Stack (debug.Stack at its
// recover), trimmed of addresses: the original panic is the last "panic("
// frame, yaegi's re-panic sits above it.
var (
	stackCompiled = `goroutine 23 [running]:
runtime/debug.Stack()
	/usr/local/go/src/runtime/debug/stack.go:26 +0x5e
github.com/traefik/yaegi/interp.(*Interpreter).Execute.func1()
	/root/go/pkg/mod/github.com/traefik/yaegi@v0.16.1/interp/program.go:146 +0x74
panic({0x147ccc0?, 0x2594c27737e8?})
	/usr/local/go/src/runtime/panic.go:783 +0x132
github.com/traefik/yaegi/interp.runCfg.func1()
	/root/go/pkg/mod/github.com/traefik/yaegi@v0.16.1/interp/run.go:226 +0x1b1
panic({0x147ccc0?, 0x2594c27737e8?})
	/usr/local/go/src/runtime/panic.go:783 +0x132
encoding/binary.bigEndian.Uint32(...)
	/usr/local/go/src/encoding/binary/binary.go:179
gonum.org/v1/gonum/floats.helper({0x1, 0x2})
	/root/go/pkg/mod/gonum.org/v1/gonum@v0.17.0/floats/floats.go:10 +0x1
reflect.Value.call({0x14a1720?, 0x28ced80?, 0x2594c268bc68?}, {0x1509042, 0x4}, {0x2594c2fe4d68, 0x1, 0x18?})
	/usr/local/go/src/reflect/value.go:581 +0xca6
reflect.Value.Call({0x14a1720?, 0x28ced80?, 0x4aa069?}, {0x2594c2fe4d68?, 0x14fb200?, 0x1?})
	/usr/local/go/src/reflect/value.go:365 +0xb9
github.com/traefik/yaegi/interp.callBin.func2({0x14a1720?, 0x28ced80?, 0x2594c27604d0?}, {0x2594c2fe4d68?, 0x2594c2fe4d50?, 0x2594c2fe4d08?})
	/root/go/pkg/mod/github.com/traefik/yaegi@v0.16.1/interp/run.go:1549 +0x2f
created by github.com/traefik/yaegi/interp.(*Interpreter).ExecuteWithContext in goroutine 5
	/root/go/pkg/mod/github.com/traefik/yaegi@v0.16.1/interp/interp.go:515 +0x1f8
`
	stackInterpreted = `goroutine 9 [running]:
runtime/debug.Stack()
	/usr/local/go/src/runtime/debug/stack.go:26 +0x5e
github.com/traefik/yaegi/interp.(*Interpreter).Execute.func1()
	/root/go/pkg/mod/github.com/traefik/yaegi@v0.16.1/interp/program.go:146 +0x74
panic({0x1385880?, 0x2328360?})
	/usr/local/go/src/runtime/panic.go:783 +0x132
reflect.Value.Index({0x1,0x2}, 0x5)
	/usr/local/go/src/reflect/value.go:1420 +0x1
github.com/traefik/yaegi/interp.getIndexArray.func1(0x1)
	/root/go/pkg/mod/github.com/traefik/yaegi@v0.16.1/interp/run.go:1800 +0x1
`
)

func TestCompiledFrames(t *testing.T) {
	tests := []struct {
		name, stack string
		want        []string
	}{
		{"compiled, two frames deep", stackCompiled, []string{"encoding/binary.bigEndian.Uint32", "gonum.org/v1/gonum/floats.helper"}},
		{"the interpreter's own work", stackInterpreted, nil},
		{"no panic frame", "goroutine 1 [running]:\nmain.main()\n", nil},
		{"empty", "", nil},
		{"this package's stand-in", strings.Replace(stackCompiled, "encoding/binary.bigEndian.Uint32(...)", sessionPkg+"exitStandIn(...)", 1), nil},
	}
	for _, tt := range tests {
		if got := compiledFrames([]byte(tt.stack)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestCallsOf(t *testing.T) {
	// As run: a padding line comes before the cell's first.
	src := "\nx := binary.BigEndian.Uint32(b)\ny := other.Uint32(c)\nq.Set(\"a\", \"b\")"
	for fn, wantLines := range map[string][]int{
		"encoding/binary.bigEndian.Uint32":   {1}, // through its package first
		"net/url.Values.Set":                 {3},
		"strings.(*Builder).Len":             nil,
		"gonum.org/v1/gonum/floats.Max[...]": nil,
	} {
		var lines []int
		for _, p := range callsOf(src, fn) {
			lines = append(lines, p.Line)
		}
		if !reflect.DeepEqual(lines, wantLines) {
			t.Errorf("%s: lines %v, want %v", fn, lines, wantLines)
		}
	}
}

// FuzzCompiledFrames: any stack text gives frames that are neither the
// runtime's, reflect's nor the interpreter's, and never panics.
func FuzzCompiledFrames(f *testing.F) {
	f.Add(stackCompiled)
	f.Add(stackInterpreted)
	f.Add("panic(\nx(\n")
	f.Fuzz(func(t *testing.T, stack string) {
		for _, fr := range compiledFrames([]byte(stack)) {
			if fr == "" || strings.HasPrefix(fr, "runtime.") || strings.HasPrefix(fr, "reflect.") || strings.HasPrefix(fr, "github.com/traefik/yaegi/") {
				t.Fatalf("frame %q from %q", fr, stack)
			}
		}
		_ = callsOf("a.B(c)\nd(e)", stack)
	})
}
