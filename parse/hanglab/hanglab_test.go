package hanglab_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/commlab/commlab/parse/flightrec"
	"github.com/commlab/commlab/parse/hanglab"
)

// The recorded runs of the hang lab (probes/recorded/hang), read from the
// repository: real torch 2.11 gloo runs on the H200 machine.
func load(t *testing.T, name string) *hanglab.Lab {
	t.Helper()
	l, err := hanglab.Load(os.DirFS(filepath.Join("..", "..", "probes", "recorded", "hang", "hang-"+name)))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestRecordedHangs(t *testing.T) {
	tests := []struct {
		name    string
		kind    string
		culprit []int
		seq     int64
		where   string // the culprit's innermost named frame
		text    []string
		nproc   int
	}{
		{"count", flightrec.FindingMissing, []int{1}, 5, "fr_dump", []string{"rank 1 never called all_reduce #5", "rank 0: all_reduce call 5", "after 10.0 s"}, 2},
		{"order", flightrec.FindingOpMismatch, []int{1}, 2, "all_gather", []string{"rank 1 runs all_gather as collective #2"}, 2},
		{"unpaired", flightrec.FindingMissing, []int{0}, 2, "send", []string{"rank 0: send 64 MiB to rank 1", "Connection closed by peer"}, 2},
		{"two_comms", flightrec.FindingCrossGroup, []int{0, 1}, 2, "all_reduce", []string{"wait on each other across process groups"}, 2},
		{"size", hanglab.KindDied, []int{0}, 0, "all_reduce", []string{"process ended", "Received data size doesn't match expected size", "SIGABRT"}, 2},
		// every rank in all_reduce #3000, rank 2 frozen inside it: gloo's
		// dumps alone cannot tell, the ranks' timeouts and stacks can
		{"netcut", flightrec.FindingAllStuck, []int{0, 1, 2, 3}, 3000, "all_reduce", []string{"nobody is behind", "each raised in it", "Timed out waiting 10000ms"}, 4},
		// rank 2 killed inside it: torchrun's report names it, py-spy
		// found it gone, no rank dumped
		{"killed", hanglab.KindDied, []int{2}, 0, "", []string{"Signal 9 (SIGKILL)", "first observed failure", "rank 2: py-spy could not read the process"}, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := load(t, tc.name)
			if tc.nproc == 0 {
				tc.nproc = 2
			}
			if l.Scenario != tc.name || l.NProc != tc.nproc || l.TimeoutS != 10 {
				t.Errorf("summary: %s, %d ranks, timeout %g", l.Scenario, l.NProc, l.TimeoutS)
			}
			c := l.Culprit()
			if c.Kind != tc.kind || c.Seq != tc.seq || !reflect.DeepEqual(c.Ranks, tc.culprit) {
				t.Errorf("culprit %+v, want %s %v #%d", c, tc.kind, tc.culprit, tc.seq)
			}
			if tc.where != "" && !strings.HasPrefix(c.Where, tc.where+" ") {
				t.Errorf("where %q, want %s", c.Where, tc.where)
			}
			var stacks []string
			for _, st := range l.Stacks {
				stacks = append(stacks, st.String())
			}
			all := l.Text() + l.Analysis().Text() + l.Outcome() + c.Answer() + c.Detail + strings.Join(stacks, "\n")
			for _, w := range tc.text {
				if !strings.Contains(all, w) {
					t.Errorf("lacks %q:\n%s", w, all)
				}
			}
		})
	}
}

// torch 2.11's fr_trace stopped on every gloo dump set: the default group
// is "" in pg_config, "0" in the entries.
func TestFRTraceSummary(t *testing.T) {
	for _, name := range []string{"count", "order", "unpaired"} {
		got := load(t, name).FRTraceSummary()
		if len(got) == 0 || !strings.Contains(got[0], "stopped with KeyError: ('0', 0) in build_collectives (builder.py:209)") {
			t.Errorf("%s: %q", name, got)
		}
	}
	if got := load(t, "two_comms").FRTraceSummary(); !strings.Contains(got[0], "KeyError: ('1', 0)") {
		t.Errorf("two_comms: %q", got)
	}
	if got := load(t, "size").FRTraceSummary(); got[0] != "(fr_trace did not run: no dumps)" {
		t.Errorf("size: %q", got)
	}
}

func TestParseStack(t *testing.T) {
	text := "Thread 0x00007f01 (most recent call first):\n" +
		"  File \"/usr/lib/python3.12/threading.py\", line 359 in wait\n" +
		"  File \"/x/train.py\", line 12 in load_batch\n\n" +
		"Current thread 0x00007f02 (most recent call first):\n" +
		"  File \"/venv/lib/python3.12/site-packages/torch/distributed/distributed_c10d.py\", line 3075 in all_reduce\n" +
		"  File \"/x/train.py\", line 40 in step\n"
	s := hanglab.ParseStack(3, text)
	if len(s.Threads) != 2 || !s.Threads[1].Current || len(s.Threads[0].Frames) != 2 {
		t.Fatalf("%+v", s)
	}
	if w := s.Where(); w.Func != "all_reduce" || w.Line != 3075 {
		t.Errorf("where = %+v", w)
	}
	s.Threads[1].Current = false
	if w := s.Where(); w.Func != "load_batch" {
		t.Errorf("without a current thread, where = %+v (threading.py skipped)", w)
	}
	// The signal sent twice: the later dump wins.
	if s := hanglab.ParseStack(0, text+text); len(s.Threads) != 2 {
		t.Errorf("two dumps: %d threads", len(s.Threads))
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := hanglab.Load(fstest.MapFS{}); err == nil || !strings.Contains(err.Error(), "no hang lab run") {
		t.Errorf("empty: %v", err)
	}
	if _, err := hanglab.Load(fstest.MapFS{"summary.json": {Data: []byte("{")}}); err == nil || !strings.HasPrefix(err.Error(), "hanglab: ") {
		t.Errorf("bad summary: %v", err)
	}
	l, err := hanglab.Load(fstest.MapFS{"summary.json": {Data: []byte(`{"scenario":"count","nproc":2}`)},
		"result/rank_0.json": {Data: []byte("{")}, "fr/rank_0": {Data: []byte("not a pickle")}})
	if err != nil || len(l.Warnings) != 2 {
		t.Errorf("bad files become warnings: %v, %q", err, l.Warnings)
	}
}

// FuzzParseStack: any text reads without a panic, and every frame it
// yields came from the input.
func FuzzParseStack(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "probes", "recorded", "hang", "*", "stacks", "rank_*.txt"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("Current thread 0x1 (most recent call first):\n  File \"a.py\", line 1 in f\n")
	more, _ := filepath.Glob(filepath.Join("testdata", "pyspy", "*.txt"))
	for _, p := range more {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := hanglab.ParseStack(0, text)
		for _, th := range s.Threads {
			for _, fr := range th.Frames {
				if !strings.Contains(text, fr.Func) {
					t.Fatalf("frame %+v not in the input", fr)
				}
			}
		}
		_ = s.Where()
	})
}

// The core question as recorded: 64 gloo ranks, rank 37 stuck in its data
// loader at the hang step (moved to 400 to fit the device time).
func TestRecordedCore(t *testing.T) {
	l := load(t, "core")
	if l.NProc != 64 || len(l.Dumps) != 64 || len(l.Stacks) != 64 || l.HangAt != 400 || l.TimeoutS != 20 {
		t.Fatalf("core: %d ranks, %d dumps, %d stacks, hang at %d, timeout %g", l.NProc, len(l.Dumps), len(l.Stacks), l.HangAt, l.TimeoutS)
	}
	c := l.Culprit()
	if c.Kind != flightrec.FindingMissing || !reflect.DeepEqual(c.Ranks, []int{37}) || c.Seq != 400 || c.LastSeq != 399 || len(c.Others) != 63 {
		t.Errorf("culprit %+v", c)
	}
	if c.Op != "all_reduce" || c.Sizes != "256" || c.Dtypes != "Float" || !strings.HasPrefix(c.Where, "load_batch_stuck ") {
		t.Errorf("call %s %s %s, where %q", c.Op, c.Sizes, c.Dtypes, c.Where)
	}
	if c.WaitedS < c.TimeoutS || c.WaitedS > c.TimeoutS+5 {
		t.Errorf("the others waited %.1f s with a %g s timeout", c.WaitedS, c.TimeoutS)
	}
	got := l.FRTraceSummary()
	if len(got) != 2 || !strings.Contains(got[0], "KeyError: ('0', 19)") || !strings.Contains(got[1], "gloo != 'nccl' or 'xccl'") {
		t.Errorf("fr_trace: %q", got)
	}
}

// py-spy's own output (0.4.3, run here on a stand-in process) and a public
// excerpt (sgl-project/sglang#11208): threads with names and states,
// --locals blocks skipped, --native frames kept as native, and the error
// py-spy prints for a process that is gone.
func TestParsePySpy(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "pyspy", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, name := range []string{"pyspy-0.4.3-dump.txt", "pyspy-0.4.3-locals.txt", "pyspy-0.4.3-native.txt"} {
		t.Run(name, func(t *testing.T) {
			s := hanglab.ParseStack(2, read(name))
			if s.Source != "py-spy" || s.PID == 0 || s.Python != "3.11.7" || len(s.Threads) != 2 || s.Gone {
				t.Fatalf("stack = %+v", s)
			}
			main := s.Threads[0]
			if main.Name != "MainThread" || main.Status != "idle" {
				t.Errorf("main thread %+v", main)
			}
			if w := s.Where(); w.Func != "all_reduce" || w.File != "stand-in-hang.py" || w.Line != 5 {
				t.Errorf("where = %+v (threading.py and native frames skipped)", w)
			}
			if s.Threads[1].Name != "pt_data_loader" {
				t.Errorf("second thread %+v", s.Threads[1])
			}
			native := 0
			for _, f := range main.Frames {
				if f.Native {
					native++
				}
			}
			if (native > 0) != strings.Contains(name, "native") {
				t.Errorf("%d native frames", native)
			}
			if strings.Contains(name, "locals") && len(main.Frames) != 5 {
				t.Errorf("locals: %d frames, want 5 (argument lines are no frames)", len(main.Frames))
			}
		})
	}
	gone := hanglab.ParseStack(1, read("pyspy-0.4.3-exited.txt"))
	if !gone.Gone || gone.Source != "py-spy" || !strings.Contains(gone.Error, "Check that the process is running") || len(gone.Threads) != 0 {
		t.Errorf("exited: %+v", gone)
	}
	if !strings.Contains(gone.String(), "it was not running") {
		t.Errorf("exited: %s", gone)
	}
	pub := hanglab.ParseStack(0, read("sglang11208_excerpt.txt"))
	if pub.Source != "py-spy" || len(pub.Threads) != 2 || pub.Threads[1].Name != "Thread-2 (forward_thread_func)" ||
		pub.Threads[1].Frames[0].Func != "ncclCommWindowRegister" || pub.Threads[1].Frames[0].Line != 540 {
		t.Errorf("public excerpt: %+v", pub)
	}
}

// A stacks folder as the hang lab leaves it with py-spy beside
// faulthandler: both read, py-spy's kept per rank, a py-spy error marks
// the rank gone, files without a rank are named.
func TestLoadStacks(t *testing.T) {
	dump, _ := os.ReadFile(filepath.Join("testdata", "pyspy", "pyspy-0.4.3-dump.txt"))
	exited, _ := os.ReadFile(filepath.Join("testdata", "pyspy", "pyspy-0.4.3-exited.txt"))
	fault := "Current thread 0x00007f02 (most recent call first):\n  File \"/x/train.py\", line 40 in step\n"
	fsys := fstest.MapFS{
		"stacks/rank_0.txt": {Data: []byte(fault)},
		"stacks/rank0.txt":  {Data: dump},
		"stacks/rank_1.txt": {Data: []byte(fault)},
		"stacks/rank1.txt":  {Data: exited},
		"stacks/notes.md":   {Data: []byte("hello")},
		"stacks/rank_2.txt": {Data: []byte("nothing here")},
	}
	stacks, skipped := hanglab.LoadStacks(fsys, "stacks")
	if len(stacks) != 2 || stacks[0].Source != "py-spy" || stacks[1].Source != "faulthandler" || !stacks[1].Gone || stacks[0].Gone {
		t.Fatalf("stacks = %+v", stacks)
	}
	if len(skipped) != 2 || !strings.Contains(strings.Join(skipped, "\n"), "notes.md: the name gives no rank") {
		t.Errorf("skipped = %q", skipped)
	}
}
