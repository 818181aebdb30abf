// Package hanglab reads back what chapter 6's hang lab left in its output
// folder (probes/launch's hang_torch.py, `commlab probe hang`): the
// driver's summary.json (scenario, command, settings, timeline), each
// rank's result/rank_N.json (the call it blocked in, the exception it got
// and after how long), each rank's stack (stacks/rank_N.txt from
// faulthandler, stacks/rankN.txt from py-spy dump; ParseStack reads
// either, LoadStacks any folder of them; stacks/rankN.gdb.txt from gdb's
// "thread apply all bt", read by ParseGDB and LoadGDBStacks),
// the Flight Recorder dumps (fr/rank_N, read by parse/flightrec) and
// PyTorch's own analyzer's output (fr_trace*.txt).
//
// It reads from an fs.FS, so a live run's folder (os.DirFS) and a recorded
// one (probes/recorded) read alike. It owns reading that folder and
// summing it up; it does not run anything (probes/launch does) or analyse
// dumps (flightrec does).
package hanglab

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/flightrec"
)

// ErrNoLab is wrapped when the folder holds no hang lab run.
var ErrNoLab = errors.New("hanglab: no hang lab run")

// Event is one step of the driver's timeline.
type Event struct {
	AtS  float64 `json:"t" unit:"s"`
	What string  `json:"what"`
}

// FRTrace is one run of PyTorch's fr_trace on the dumps.
type FRTrace struct {
	File    string   `json:"file"`
	Command []string `json:"command"`
	Exit    any      `json:"exit"`
	Text    string   `json:"-"`
}

// Call is one collective a rank made through the lab's wrapper, with its
// start and end (Unix seconds).
type Call struct {
	Call string  `json:"call"`
	T0   float64 `json:"t0"`
	T1   float64 `json:"t1"`
}

// Rank is what one rank reported in result/rank_N.json.
type Rank struct {
	Rank  int    `json:"rank"`
	World int    `json:"world"`
	PID   int    `json:"pid"`
	Torch string `json:"torch"`
	// BlockingCall is the call the rank was about to make when it might
	// block ("all_reduce #3000", "load_batch(step 3000) stuck ...").
	BlockingCall  string  `json:"blocking_call"`
	BlockingSince float64 `json:"blocking_since"`
	// Outcome is "raised" (the call ended in an exception) or "returned".
	Outcome   string `json:"outcome"`
	Exception string `json:"exception"`
	Error     string `json:"error"`
	// EndedAfterS is how long after BlockingSince the rank's scenario
	// ended: the timeout, or at once for an error gloo raises immediately.
	EndedAfterS float64 `json:"ended_after_s" unit:"s"`
	StuckIn     string  `json:"stuck_in,omitempty"`
	InitS       float64 `json:"init_s" unit:"s"`
	Calls       []Call  `json:"calls"`
	// StepTimes are seconds since the first step at every 500th step
	// (core scenario).
	StepTimes map[string]float64 `json:"step_times,omitempty"`
	FRDump    struct {
		Pickle string   `json:"pickle"`
		JSON   string   `json:"json"`
		Tries  []string `json:"tries"`
	} `json:"fr_dump"`
	FRPickleBytes int `json:"fr_pickle_bytes"`
	// HangAt is the step the core scenario hung at, when it reports one.
	HangAt int `json:"hang_at,omitempty"`
	// Died is set for a rank that left no result: its process ended
	// (Error then holds the C++ abort message from its stderr, Exception
	// how torchrun saw it end).
	Died bool `json:"died,omitempty"`
	// RootCause is set for the rank torchrun's failure report names as
	// its "Root Cause (first observed failure)".
	RootCause bool `json:"root_cause,omitempty"`
}

// Frame is one frame of a stack: a faulthandler traceback line, or a
// py-spy frame. Native frames (py-spy --native) have a library for File
// and no Line.
type Frame struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Func   string `json:"func"`
	Native bool   `json:"native,omitempty"`
}

// Thread is one thread of a stack dump, innermost frame first. Name and
// Status ("idle", "active", "active+gil") are py-spy's.
type Thread struct {
	ID      string  `json:"id"`
	Current bool    `json:"current"`
	Name    string  `json:"name,omitempty"`
	Status  string  `json:"status,omitempty"`
	Frames  []Frame `json:"frames"`
}

// Stack is one rank's stack dump. Source says which tool wrote it:
// "faulthandler" (Python threads only: it does not see the backend's C++
// threads) or "py-spy" (every Python thread, from outside the process).
// Error is py-spy's own error when it could not read the process; Gone
// says that error means the process no longer ran.
type Stack struct {
	Rank    int      `json:"rank"`
	Source  string   `json:"source,omitempty"`
	PID     int      `json:"pid,omitempty"`
	Command string   `json:"command,omitempty"`
	Python  string   `json:"python,omitempty"`
	Threads []Thread `json:"threads"`
	Error   string   `json:"error,omitempty"`
	Gone    bool     `json:"gone,omitempty"`
}

// Where is the innermost frame of the main thread (the "Current thread"
// when the signal landed on it, py-spy's "MainThread", else the first
// thread) that is the
// program's own or torch.distributed's: frames of the import machinery,
// of threading.py and of other installed packages are skipped, so a rank
// waiting on a threading.Event shows the function that waits.
func (s Stack) Where() Frame {
	if len(s.Threads) == 0 {
		return Frame{}
	}
	t := s.Threads[0]
	for _, th := range s.Threads {
		if th.Current || th.Name == "MainThread" {
			t = th
			break
		}
	}
	for _, f := range t.Frames {
		if !f.Native && ownFrame(f.File) {
			return f
		}
	}
	if len(t.Frames) > 0 {
		return t.Frames[0]
	}
	return Frame{}
}

// ownFrame says whether a frame is worth naming: not the import
// machinery, not the threading module, and not an installed package other
// than torch/distributed.
func ownFrame(file string) bool {
	switch {
	case strings.HasPrefix(file, "<frozen"), strings.HasSuffix(file, "/threading.py"):
		return false
	case strings.Contains(file, "torch/distributed/"):
		return true
	case strings.Contains(file, "/site-packages/"), strings.Contains(file, "/dist-packages/"), strings.HasPrefix(file, "/usr/lib/python"):
		return false
	case file == "threading.py", strings.HasPrefix(file, "torch/"), strings.HasPrefix(file, "multiprocessing/"):
		// py-spy shortens paths inside the interpreter's and packages' trees
		return false
	}
	return true
}

// Lab is one hang lab run read back.
type Lab struct {
	Scenario  string            `json:"scenario"`
	NProc     int               `json:"nproc"`
	TimeoutS  float64           `json:"timeout_s" unit:"s"`
	Steps     int               `json:"steps,omitempty"`
	HangAt    int               `json:"hang_at,omitempty"`
	StuckRank int               `json:"stuck_rank,omitempty"`
	Command   []string          `json:"command"`
	Env       map[string]string `json:"env"`
	Date      string            `json:"date"`
	Events    []Event           `json:"events"`
	Exit      *int              `json:"torchrun_exit"`
	Killed    bool              `json:"killed,omitempty"`
	WallS     float64           `json:"wall_s" unit:"s"`
	FRTraces  []FRTrace         `json:"fr_trace"`
	GDBRun    *GDBRun           `json:"gdb"` // what the driver's gdb did, when it ran
	Ranks     []Rank            `json:"-"`
	Stacks    []Stack           `json:"-"`
	// GDB are the ranks' C++ stacks (stacks/rank<N>.gdb.txt).
	GDB   []GDBStack        `json:"-"`
	Dumps []*flightrec.Dump `json:"-"`
	// Warnings name files that did not read.
	Warnings []string `json:"-"`
}

// reRankFile names a rank's file: rank_3, rank_3.json, rank3.txt,
// rank-3.pyspy.txt.
var reRankFile = regexp.MustCompile(`^rank[_-]?(\d+)(?:\.[A-Za-z0-9_-]+)*$`)

// rankFiles lists dir's rank_N files in rank order.
func rankFiles(fsys fs.FS, dir string) ([]string, []int) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, nil
	}
	type rf struct {
		name string
		rank int
	}
	var files []rf
	for _, e := range entries {
		m := reRankFile.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		r, _ := strconv.Atoi(m[1])
		files = append(files, rf{e.Name(), r})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].rank < files[j].rank })
	names, ranks := make([]string, len(files)), make([]int, len(files))
	for i, f := range files {
		names[i], ranks[i] = path.Join(dir, f.name), f.rank
	}
	return names, ranks
}

// Load reads a hang lab folder: summary.json at its root, and whatever of
// result/, stacks/, fr/ and fr_trace*.txt is there. Files that do not
// read become Warnings; only a missing or malformed summary.json fails.
func Load(fsys fs.FS) (*Lab, error) {
	b, err := fs.ReadFile(fsys, "summary.json")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoLab, err)
	}
	l := &Lab{}
	if err := json.Unmarshal(b, l); err != nil {
		return nil, fmt.Errorf("hanglab: summary.json: %w: %w", parse.ErrFormat, err)
	}
	names, _ := rankFiles(fsys, "result")
	for _, n := range names {
		var r Rank
		b, err := fs.ReadFile(fsys, n)
		if err == nil {
			err = json.Unmarshal(b, &r)
		}
		if err != nil {
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s: %v", n, err))
			continue
		}
		l.Ranks = append(l.Ranks, r)
	}
	names, ranks := rankFiles(fsys, "stacks")
	for i, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s: %v", n, err))
			continue
		}
		if isGDBFile(n) {
			l.GDB = append(l.GDB, ParseGDB(ranks[i], string(b)))
			continue
		}
		l.Stacks = mergeStack(l.Stacks, ParseStack(ranks[i], string(b)))
	}
	names, ranks = rankFiles(fsys, "fr")
	for i, n := range names {
		f, err := fsys.Open(n)
		if err != nil {
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s: %v", n, err))
			continue
		}
		d, err := flightrec.ParseDump(f, n)
		f.Close()
		if err != nil {
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s: %v", n, err))
		}
		if d != nil {
			d.Rank = ranks[i]
			l.Dumps = append(l.Dumps, d)
		}
	}
	l.addDied(fsys)
	for _, r := range l.Ranks {
		if r.HangAt > 0 {
			l.HangAt = r.HangAt // the core scenario may have moved it earlier
		}
	}
	for i := range l.FRTraces {
		t := &l.FRTraces[i]
		b, err := fs.ReadFile(fsys, t.File)
		if err != nil {
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s: %v", t.File, err))
			continue
		}
		t.Text = string(b)
	}
	return l, nil
}

var (
	reFailure  = regexp.MustCompile(`(?m)^\s*rank\s*:\s*(\d+) \(local_rank.*\n\s*exitcode\s*:\s*(-?\d+).*\n(?:.*\n)?\s*traceback\s*:\s*(.*)$`)
	reAbortMsg = regexp.MustCompile(`(?m)^\s*what\(\):\s*(.*)$`)
)

// addDied adds a Rank for every rank that left no result but a mark, a
// stderr or a line in torchrun's failure report: a process that ended
// (gloo aborts the process on some mismatches).
func (l *Lab) addDied(fsys fs.FS) {
	have := map[int]bool{}
	for _, r := range l.Ranks {
		have[r.Rank] = true
	}
	died := map[int]*Rank{}
	get := func(r int) *Rank {
		if d, ok := died[r]; ok {
			return d
		}
		d := &Rank{Rank: r, World: l.NProc, Outcome: "died", Died: true}
		died[r] = d
		return d
	}
	names, ranks := rankFiles(fsys, "marks")
	for i, n := range names {
		if have[ranks[i]] {
			continue
		}
		var m struct {
			What string  `json:"what"`
			T    float64 `json:"t"`
		}
		if b, err := fs.ReadFile(fsys, n); err == nil && json.Unmarshal(b, &m) == nil {
			d := get(ranks[i])
			d.BlockingCall, d.BlockingSince = m.What, m.T
		}
	}
	names, ranks = rankFiles(fsys, "stderr")
	for i, n := range names {
		if have[ranks[i]] {
			continue
		}
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			continue
		}
		if m := reAbortMsg.FindAllStringSubmatch(string(b), -1); m != nil {
			d := get(ranks[i])
			d.Error = strings.TrimSpace(m[len(m)-1][1])
			if strings.Contains(string(b), "terminate called") {
				d.Exception = "C++ exception, std::terminate"
			}
		}
	}
	if b, err := fs.ReadFile(fsys, "torchrun.txt"); err == nil {
		text := string(b)
		root := -1
		if _, after, ok := strings.Cut(text, "Root Cause (first observed failure)"); ok {
			if m := reFailure.FindStringSubmatch(after); m != nil {
				root, _ = strconv.Atoi(m[1])
			}
		}
		for _, m := range reFailure.FindAllStringSubmatch(text, -1) {
			r, _ := strconv.Atoi(m[1])
			if have[r] {
				continue
			}
			d := get(r)
			d.RootCause = r == root
			if d.Exception != "" && strings.Contains(d.Exception, strings.TrimSpace(m[3])) {
				continue // the report names a rank twice: under Failures and as the root cause
			}
			how := strings.TrimSpace(m[3])
			if d.Exception == "" {
				d.Exception = how
			} else {
				d.Exception += "; " + how
			}
			if d.Error == "" {
				d.Error = "exit code " + m[2] + ": " + how
			}
		}
	}
	for _, d := range died {
		l.Ranks = append(l.Ranks, *d)
	}
	sort.Slice(l.Ranks, func(i, j int) bool { return l.Ranks[i].Rank < l.Ranks[j].Rank })
}

var (
	reThread = regexp.MustCompile(`^(Current thread|Thread) (0x[0-9a-fA-F]+)`)
	reFrame  = regexp.MustCompile(`^\s+File "([^"]*)", line (\d+) in (\S+)`)
	// py-spy (src/dump.rs): `Process 123: cmd`, `Python v3.11.7 (exe)`,
	// `Thread 123 (idle): "MainThread"`, `    func (file:line)`.
	rePySpyProcess = regexp.MustCompile(`^Process (\d+): ?(.*)$`)
	rePySpyPython  = regexp.MustCompile(`^Python v(\S+)`)
	rePySpyThread  = regexp.MustCompile(`^Thread (0x[0-9A-Fa-f]+|\d+)(?: \(([^)]*)\))?(?:: "(.*)")?\s*$`)
	rePySpyFrame   = regexp.MustCompile(`^    (\S.*?) \(([^()]*?)(?::(\d+))?\)\s*$`)
)

// ParseStack reads one rank's stack dump, py-spy's or faulthandler's (the
// text says which). faulthandler: "Thread 0x... (most recent call first):"
// or "Current thread 0x...", then `  File "f", line N in func` lines;
// several dumps in one file (the signal sent twice) keep the last. py-spy:
// the process and Python lines, then per thread its frames (--locals
// blocks are skipped; --native frames are kept as Native); an "Error:"
// from py-spy is kept, and Gone is set when it says the process was not
// there to read.
func ParseStack(rank int, text string) Stack {
	if isPySpy(text) {
		return parsePySpy(rank, text)
	}
	s := Stack{Rank: rank, Source: "faulthandler"}
	var cur *Thread
	for _, line := range strings.Split(text, "\n") {
		if m := reThread.FindStringSubmatch(line); m != nil {
			for _, t := range s.Threads {
				if t.ID == m[2] {
					// the same thread again: a later dump starts
					s.Threads = nil
					break
				}
			}
			s.Threads = append(s.Threads, Thread{ID: m[2], Current: m[1] == "Current thread"})
			cur = &s.Threads[len(s.Threads)-1]
			continue
		}
		if m := reFrame.FindStringSubmatch(line); m != nil && cur != nil {
			n, _ := strconv.Atoi(m[2])
			cur.Frames = append(cur.Frames, Frame{File: m[1], Line: n, Func: m[3]})
		}
	}
	return s
}

func isPySpy(text string) bool {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if rePySpyProcess.MatchString(line) || strings.HasPrefix(line, "Error: ") || strings.HasPrefix(line, "py-spy") {
			return true
		}
		if m := rePySpyThread.FindStringSubmatch(line); m != nil && m[2] != "" {
			return true
		}
	}
	return false
}

// pySpyGone are py-spy's words when the process it was pointed at is
// not running (py-spy 0.4.3: "Failed to get process executable name.
// Check that the process is running.", "No such file or directory (os
// error 2)"; "No such process (os error 3)" from ptrace).
var pySpyGone = []string{"Check that the process is running", "No such process", "os error 3", "No such file or directory (os error 2)", "Failed to open process"}

func parsePySpy(rank int, text string) Stack {
	s := Stack{Rank: rank, Source: "py-spy"}
	var cur *Thread
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case rePySpyProcess.MatchString(line) && s.PID == 0:
			m := rePySpyProcess.FindStringSubmatch(line)
			s.PID, _ = strconv.Atoi(m[1])
			s.Command = m[2]
		case rePySpyPython.MatchString(line) && s.Python == "":
			s.Python = rePySpyPython.FindStringSubmatch(line)[1]
		case strings.HasPrefix(line, "Error: "):
			// py-spy prints its error after whatever it dumped
			if s.Error == "" {
				s.Error = strings.TrimPrefix(line, "Error: ")
			}
			cur = nil
		case rePySpyThread.MatchString(line):
			m := rePySpyThread.FindStringSubmatch(line)
			s.Threads = append(s.Threads, Thread{ID: m[1], Status: m[2], Name: m[3]})
			cur = &s.Threads[len(s.Threads)-1]
		case cur != nil && rePySpyFrame.MatchString(line):
			m := rePySpyFrame.FindStringSubmatch(line)
			f := Frame{Func: m[1], File: m[2]}
			if m[3] != "" {
				f.Line, _ = strconv.Atoi(m[3])
			} else {
				f.Native = true
			}
			cur.Frames = append(cur.Frames, f)
		}
	}
	if s.Error != "" {
		for _, w := range pySpyGone {
			if strings.Contains(text, w) {
				s.Gone = true
			}
		}
	}
	return s
}

// mergeStack adds a rank's stack to the list. A rank with both a
// faulthandler and a py-spy dump keeps py-spy's (it sees every thread from
// outside), unless py-spy could not read the process.
func mergeStack(stacks []Stack, s Stack) []Stack {
	for i, old := range stacks {
		if old.Rank != s.Rank {
			continue
		}
		gone := old.Gone || s.Gone
		switch {
		case len(s.Threads) > 0 && (s.Source == "py-spy" || len(old.Threads) == 0):
			stacks[i] = s
		case s.Error != "" && old.Error == "":
			stacks[i].Error = s.Error
		}
		stacks[i].Gone = gone
		return stacks
	}
	return append(stacks, s)
}

// String is one line: the rank, the tool, where its main thread is.
func (s Stack) String() string {
	if s.Gone {
		return fmt.Sprintf("rank %d: %s could not read the process (%s): it was not running", s.Rank, s.Source, s.Error)
	}
	f := s.Where()
	if f.Func == "" {
		return fmt.Sprintf("rank %d: %s stack with %d thread(s), no frame", s.Rank, orDash(s.Source), len(s.Threads))
	}
	return fmt.Sprintf("rank %d (%s): in %s (%s:%d)", s.Rank, orDash(s.Source), f.Func, path.Base(f.File), f.Line)
}

// LoadStacks reads a folder of per-rank stack dumps (rank_N.txt, rankN.txt
// ...), py-spy's or faulthandler's; files that name no rank are skipped
// and returned with the reason.
func LoadStacks(fsys fs.FS, dir string) ([]Stack, []string) {
	var stacks []Stack
	notGDB := func(name string) bool { return !isGDBFile(name) } // gdb's stacks: LoadGDBStacks
	skipped := eachRankFile(fsys, dir, notGDB, "rank_N.txt or rankN.txt", func(rank int, text string) string {
		st := ParseStack(rank, text)
		if len(st.Threads) == 0 && st.Error == "" {
			return "neither a py-spy dump nor a faulthandler traceback"
		}
		stacks = mergeStack(stacks, st)
		return ""
	})
	sort.Slice(stacks, func(i, j int) bool { return stacks[i].Rank < stacks[j].Rank })
	return stacks, skipped
}

// eachRankFile hands use the text of every file of dir that keep accepts and
// whose name gives a rank; the files it could not read, whose names give
// no rank (noRank says what a name should look like), or that use turned
// down (its reason) come back as "path: why".
func eachRankFile(fsys fs.FS, dir string, keep func(name string) bool, noRank string, use func(rank int, text string) (skip string)) []string {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", dir, err)}
	}
	var skipped []string
	for _, e := range entries {
		if e.IsDir() || !keep(e.Name()) {
			continue
		}
		n := path.Join(dir, e.Name())
		r := rankOfName(e.Name())
		if r < 0 {
			skipped = append(skipped, n+": the name gives no rank ("+noRank+")")
			continue
		}
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", n, err))
			continue
		}
		if why := use(r, string(b)); why != "" {
			skipped = append(skipped, n+": "+why)
		}
	}
	return skipped
}

// reRankAnywhere finds the rank in a file name that is not the hang lab's
// own (stack-rank3.txt, 3.txt).
var reRankAnywhere = regexp.MustCompile(`(?i)(?:^|[^a-z])(?:rank)?[_-]?(\d+)(?:\.[A-Za-z0-9_-]+)*$`)

func rankOfName(name string) int {
	m := reRankFile.FindStringSubmatch(name)
	if m == nil {
		m = reRankAnywhere.FindStringSubmatch(name)
	}
	if m == nil {
		return -1
	}
	r, err := strconv.Atoi(m[1])
	if err != nil {
		return -1
	}
	return r
}

// Analysis runs flightrec's cross-rank analysis on the lab's dumps.
func (l *Lab) Analysis() *flightrec.Analysis { return flightrec.Analyze(l.Dumps) }

// Group is a set of ranks that ended alike: same outcome, exception and
// blocking call, and the same innermost stack frame.
type Group struct {
	Ranks       []int   `json:"ranks"`
	Blocking    string  `json:"blocking"`
	Outcome     string  `json:"outcome"`
	Exception   string  `json:"exception,omitempty"`
	Error       string  `json:"error,omitempty"`
	EndedAfterS float64 `json:"ended_after_s" unit:"s"` // the median over the group
	Where       string  `json:"where,omitempty"`        // innermost frame, "func (file:line)"
}

// Groups sorts the ranks by how they ended, smallest group first (the odd
// rank out leads).
func (l *Lab) Groups() []Group {
	where := map[int]string{}
	for _, s := range l.Stacks {
		if f := s.Where(); f.Func != "" {
			where[s.Rank] = fmt.Sprintf("%s (%s:%d)", f.Func, path.Base(f.File), f.Line)
		}
	}
	type key struct{ blocking, outcome, exc, err, where string }
	idx := map[key]int{}
	var out []Group
	var ends [][]float64
	for _, r := range l.Ranks {
		k := key{normalizeCall(r.BlockingCall), r.Outcome, r.Exception, firstLine(r.Error), where[r.Rank]}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Group{Blocking: k.blocking, Outcome: r.Outcome, Exception: r.Exception, Error: k.err, Where: k.where})
			ends = append(ends, nil)
		}
		out[i].Ranks = append(out[i].Ranks, r.Rank)
		ends[i] = append(ends[i], r.EndedAfterS)
	}
	for i := range out {
		sort.Float64s(ends[i])
		out[i].EndedAfterS = ends[i][len(ends[i])/2]
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].Ranks) < len(out[j].Ranks) })
	return out
}

// normalizeCall keeps a blocking call as it is; ranks that differ only in
// their rank number would be told apart by the callers' text already.
func normalizeCall(s string) string { return strings.TrimSpace(s) }

// firstLine keeps an error's first line, without gloo's source position
// ("[../third_party/gloo/...:84]"), so that ranks group by the message.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(reSourcePos.ReplaceAllString(s, ""))
}

var reSourcePos = regexp.MustCompile(`\[[^\]]*\.(?:cc|cpp|h|hpp):\d+\]\s*`)

// Text sums the run up: what was staged, how each group of ranks ended
// and where its stack was.
func (l *Lab) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "hang lab %s: %d ranks (gloo), timeout %gs", l.Scenario, l.NProc, l.TimeoutS)
	if l.Scenario == "core" {
		fmt.Fprintf(&b, ", %d steps, rank %d stuck at step %d", l.Steps, l.StuckRank, l.HangAt)
	}
	fmt.Fprintf(&b, "; %d ranks reported, %d stacks, %d dumps\n", len(l.Ranks), len(l.Stacks), len(l.Dumps))
	for _, g := range l.Groups() {
		who := "rank " + flightrec.RankRanges(g.Ranks)
		if len(g.Ranks) > 1 {
			who = "ranks " + flightrec.RankRanges(g.Ranks)
		}
		fmt.Fprintf(&b, "  %s: %s", who, orDash(g.Blocking))
		switch g.Outcome {
		case "raised":
			fmt.Fprintf(&b, " -> %s after %.1f s: %s", g.Exception, g.EndedAfterS, clip(g.Error, 160))
		case "returned":
			fmt.Fprintf(&b, " -> returned after %.1f s", g.EndedAfterS)
		case "died":
			fmt.Fprintf(&b, " -> process ended (%s): %s", g.Exception, clip(g.Error, 160))
		default:
			fmt.Fprintf(&b, " -> %s", orDash(g.Outcome))
		}
		b.WriteString("\n")
		if g.Where != "" {
			fmt.Fprintf(&b, "      stack: in %s\n", g.Where)
		}
	}
	for _, w := range l.Warnings {
		fmt.Fprintf(&b, "  warning: %s\n", w)
	}
	return b.String()
}

// String is Text without its trailing newline.
func (l *Lab) String() string { return strings.TrimRight(l.Text(), "\n") }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
