package hanglab_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/hanglab"
)

// A notebook sets each rank's stack taken from outside (py-spy) beside the
// one taken from inside (faulthandler), for a recorded run where a rank
// was frozen inside the all_reduce.
func ExampleStackRows() {
	fsys := os.DirFS("../../probes/recorded/hang/hang-netcut")
	fmt.Print(hanglab.StackRows("netcut", fsys, 2))
	// Output:
	// | netcut | 0 | in all_reduce (distributed_c10d.py:3075) | in all_reduce (distributed_c10d.py:3075) |
	// | netcut | 1 | in all_reduce (distributed_c10d.py:3075) | in all_reduce (distributed_c10d.py:3075) |
}

func TestMainFrames(t *testing.T) {
	lab, err := hanglab.Load(os.DirFS("../../probes/recorded/hang/hang-cpu-order"))
	if err != nil {
		t.Fatal(err)
	}
	frames := lab.MainFrames(0, "py-spy", 2)
	if len(frames) != 2 || frames[0].Func == "" {
		t.Fatalf("MainFrames(0, py-spy, 2) = %+v, want rank 0's two innermost Python frames", frames)
	}
	if got := lab.MainFrames(0, "no such tool", 2); got != nil {
		t.Errorf("a source the lab has no stack from: %+v, want nil", got)
	}
}

func TestStackWords(t *testing.T) {
	for _, c := range []struct {
		s    hanglab.Stack
		want string
	}{
		{hanglab.Stack{Gone: true, Error: "gone"}, "no stack: gone"},
		{hanglab.Stack{Error: "Permission denied"}, "no stack: Permission denied"},
		{hanglab.Stack{Threads: []hanglab.Thread{{Name: "MainThread", Frames: []hanglab.Frame{{Func: "all_reduce", File: "/x/distributed_c10d.py", Line: 7}}}}}, "in all_reduce (distributed_c10d.py:7)"},
		{hanglab.Stack{}, "no stack: the process had ended before the signal"},
	} {
		if got := hanglab.StackWords(c.s); got != c.want {
			t.Errorf("StackWords(%+v) = %q, want %q", c.s, got, c.want)
		}
	}
}

func TestCudaGDBExcerpt(t *testing.T) {
	text := strings.Join([]string{
		"[New Thread 0x1]",
		`Thread 1 "python3" stopped.`,
		"  Kernel 0 spin_kernel",
		"",
		"Thread 2 (Thread 0x2)",
		"#0 other",
		"Thread 1 (Thread 0x1)",
		"#0 cudaDeviceSynchronize",
		"#1 PyObject_Vectorcall",
		"#2 main",
	}, "\n")
	want := "  Thread 1 \"python3\" stopped.\n    Kernel 0 spin_kernel\n  Thread 1 (Thread 0x1)\n  #0 cudaDeviceSynchronize\n"
	if got := hanglab.CudaGDBExcerpt(text); got != want {
		t.Errorf("CudaGDBExcerpt:\n%q\nwant:\n%q", got, want)
	}
}
