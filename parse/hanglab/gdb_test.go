package hanglab_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/parse/hanglab"
)

// gdb's text as the hang lab saves it, and constructed odd lines, read
// into threads and frames; the golden file holds the JSON and String.
func TestParseGDBGolden(t *testing.T) {
	inputs := golden.Inputs(t, 4, filepath.Join("testdata", "gdb", "*.txt"))
	golden.Each(t, inputs, func(in string) string { return strings.TrimSuffix(in, ".txt") + ".golden" },
		func(t *testing.T, data []byte) []byte {
			s := hanglab.ParseGDB(1, string(data))
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false) // C++ names keep their < and >
			enc.SetIndent("", " ")
			if err := enc.Encode(struct {
				Stack hanglab.GDBStack  `json:"stack"`
				Waits []hanglab.GDBWait `json:"waits"`
			}{s, s.Waits()}); err != nil {
				t.Fatal(err)
			}
			return append(b.Bytes(), []byte(s.String()+"\n")...)
		})
}

// The recorded gloo rank: four threads, the main one waiting in
// c10d::Work::wait, one runloop in gloo's waitRecv under the allreduce,
// one runloop idle in runLoop, the TCP loop in epoll.
func TestParseGDBGloo(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "gdb", "gdb-13.1-gloo-order-rank0.txt"))
	if err != nil {
		t.Fatal(err)
	}
	s := hanglab.ParseGDB(0, string(b))
	if len(s.Threads) != 4 || s.PID != 29305 || s.Truncated || s.Error != "" {
		t.Fatalf("stack: %d threads, pid %d, truncated %v, error %q", len(s.Threads), s.PID, s.Truncated, s.Error)
	}
	want := map[string]string{
		"python3":         "c10d::Work::wait",
		"pt_gloo_runloop": "",
		"gloo_tcp_loop":   "gloo::transport::tcp::Loop::run",
	}
	waits := s.Waits()
	if len(waits) != 4 {
		t.Fatalf("%d threads in communication code, want 4: %+v", len(waits), waits)
	}
	var inRecv bool
	for _, w := range waits {
		got := hanglab.ShortFunc(w.Frame.Func, 200)
		if w.Name == "pt_gloo_runloop" {
			inRecv = inRecv || got == "gloo::transport::tcp::UnboundBuffer::waitRecv"
			continue
		}
		if want[w.Name] != got {
			t.Errorf("thread %s: innermost communication frame %q, want %q", w.Name, got, want[w.Name])
		}
	}
	if !inRecv {
		t.Errorf("no runloop thread in waitRecv: %+v", waits)
	}
	f := s.Threads[0].Frames[5]
	if f.Index != 5 || f.Addr != "0x00007fc4cdef1106" || !strings.HasSuffix(f.Library, "libtorch_cpu.so") || f.Where() != "libtorch_cpu.so" {
		t.Errorf("frame 5: %+v", f)
	}
	if f := s.Threads[0].Frames[0]; f.Addr != "" || f.File != "./nptl/futex-internal.c" || f.Line != 57 || f.Func != "__futex_abstimed_wait_common64" {
		t.Errorf("frame 0: %+v", f)
	}
}

// Odd lines one at a time: what each becomes.
func TestParseGDBLines(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		threads    int
		frames     int    // of the first thread
		fn         string // its first frame's function
		where      string
		truncated  bool
		err        string
		gone       bool
	}{
		{"empty", "", 0, 0, "", "", false, "", false},
		{"notes only", "[Thread debugging using libthread_db enabled]\nwarning: something\n", 0, 0, "", "", false, "", false},
		{"frame before any thread", "#0  0x1 in main () at a.c:1\n", 0, 0, "", "", false, "", false},
		{"no name", "Thread 7 (Thread 0x7f (LWP 9)):\n#0  0x1 in poll () from /lib/libc.so.6\n", 1, 1, "poll", "libc.so.6", false, "", false},
		{"LWP with name", "Thread 2 (LWP 9 \"ncclProxy\"):\n#0  ncclProxyService(void*) () from /x/libnccl.so.2\n", 1, 1, "ncclProxyService(void*)", "libnccl.so.2", false, "", false},
		{"unknown", "Thread 1 (process 5):\n#0  0x0000000000000000 in ?? ()\n", 1, 1, "??", "", false, "", false},
		{"signal handler", "Thread 1 (process 5):\n#0  <signal handler called>\n", 1, 1, "<signal handler called>", "", false, "", false},
		{"args with parentheses", "Thread 1 (process 5):\n#0  0x1 in f (cb=0x2 <g(int)>, s=\"a) b\") at x.cc:3\n", 1, 1, "f", "x.cc:3", false, "", false},
		{"operator call", "Thread 1 (process 5):\n#3  0x1 in std::function<void ()>::operator()() const (this=0x1) at f.h:591\n", 1, 1, "std::function<void ()>::operator()() const", "f.h:591", false, "", false},
		{"cut inside a frame", "Thread 1 (process 5):\n#0  0x1 in c10d::Work::wait(std::chrono::duration<long", 1, 1, "c10d::Work::wait(std::chrono::duration<long", "", true, "", false},
		{"CRLF", "Thread 1 (process 5):\r\n#0  0x1 in poll () from /lib/libc.so.6\r\n", 1, 1, "poll", "libc.so.6", false, "", false},
		{"refused", "ptrace: Operation not permitted.\n", 0, 0, "", "", false, "ptrace: Operation not permitted.", false},
		{"gone", "ptrace: No such process.\n", 0, 0, "", "", false, "ptrace: No such process.", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := hanglab.ParseGDB(3, tc.text)
			if len(s.Threads) != tc.threads || s.Truncated != tc.truncated || s.Error != tc.err || s.Gone != tc.gone {
				t.Fatalf("%+v", s)
			}
			if tc.threads == 0 {
				return
			}
			fr := s.Threads[0].Frames
			if len(fr) != tc.frames {
				t.Fatalf("frames %+v", fr)
			}
			if fr[0].Func != tc.fn || fr[0].Where() != tc.where {
				t.Errorf("frame %+v: func %q where %q", fr[0], fr[0].Func, fr[0].Where())
			}
		})
	}
}

func TestShortFunc(t *testing.T) {
	for in, want := range map[string]string{
		"c10d::Work::wait(std::chrono::duration<long, std::ratio<1l, 1000l> >)":                      "c10d::Work::wait",
		"gloo::(anonymous namespace)::allreduce(gloo::detail::AllreduceOptionsImpl const&)":          "gloo::(anonymous namespace)::allreduce",
		"pybind11::cpp_function::initialize<c10d::Work, bool>(bool (c10d::Work::*)())::{lambda()#1}": "pybind11::cpp_function::initialize",
		"<signal handler called>": "<signal handler called>",
		"??":                      "??",
		"std::vector<int>::push_back(int const&)": "std::vector::push_back",
	} {
		if got := hanglab.ShortFunc(in, 200); got != want {
			t.Errorf("ShortFunc(%q) = %q, want %q", in, got, want)
		}
	}
}

// A stacks folder with gdb's files beside py-spy's and faulthandler's:
// Load reads them into Lab.GDB, LoadStacks leaves them to LoadGDBStacks.
func TestLoadGDB(t *testing.T) {
	gloo, _ := os.ReadFile(filepath.Join("testdata", "gdb", "gdb-13.1-gloo-order-rank0.txt"))
	fault := "Current thread 0x00007f02 (most recent call first):\n  File \"/x/train.py\", line 40 in step\n"
	fsys := fstest.MapFS{
		"summary.json":         {Data: []byte(`{"scenario":"order","nproc":2}`)},
		"stacks/rank_0.txt":    {Data: []byte(fault)},
		"stacks/rank0.gdb.txt": {Data: gloo},
		"stacks/rank1.gdb.txt": {Data: []byte("ptrace: Operation not permitted.\n")},
		"stacks/rankx.gdb.txt": {Data: gloo},
		"stacks/rank2.gdb.txt": {Data: []byte("warning: nothing\n")},
	}
	stacks, skipped := hanglab.LoadStacks(fsys, "stacks")
	if len(stacks) != 1 || len(skipped) != 0 {
		t.Errorf("LoadStacks: %+v, skipped %q", stacks, skipped)
	}
	g, skipped := hanglab.LoadGDBStacks(fsys, "stacks")
	if len(g) != 2 || g[0].Rank != 0 || len(g[0].Threads) != 4 || g[1].Error == "" || len(skipped) != 2 {
		t.Errorf("LoadGDBStacks: %d stacks, skipped %q", len(g), skipped)
	}
	lab, err := hanglab.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := lab.GDBOf(0); !ok || len(s.Threads) != 4 {
		t.Errorf("Lab.GDBOf(0): %v %+v", ok, s)
	}
	if _, ok := lab.GDBOf(5); ok {
		t.Errorf("Lab.GDBOf(5) found")
	}
}

func FuzzParseGDB(f *testing.F) {
	for _, name := range []string{"gdb-13.1-gloo-order-rank1.txt", "odd-lines.txt", "gdb-13.1-refused.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", "gdb", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("Thread 1 (process 5):\n#0 ")
	f.Fuzz(func(t *testing.T, text string) {
		s := hanglab.ParseGDB(0, text)
		n := 0
		for _, th := range s.Threads {
			n += len(th.Frames)
		}
		if n > strings.Count(text, "#") {
			t.Errorf("%d frames from %d '#'", n, strings.Count(text, "#"))
		}
		_ = s.String()
		for _, w := range s.Waits() {
			if !w.Frame.IsComm() {
				t.Errorf("wait without a communication frame: %+v", w)
			}
		}
	})
}
