package hanglab

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// GDBFrame is one frame of gdb's backtrace: "#3  0x... in FUNC (ARGS)
// from LIB" or "... at FILE:LINE". Func is as gdb printed it ("??" when
// gdb found no symbol; a C++ function without debug information keeps its
// parameter types, "c10d::Work::wait(std::chrono::duration<...>)").
type GDBFrame struct {
	Index   int    `json:"index"`
	Addr    string `json:"addr,omitempty"`
	Func    string `json:"func"`
	Library string `json:"library,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
}

// Where is the frame's library or file:line, whichever gdb named.
func (f GDBFrame) Where() string {
	switch {
	case f.File != "" && f.Line > 0:
		return fmt.Sprintf("%s:%d", path.Base(f.File), f.Line)
	case f.File != "":
		return path.Base(f.File)
	case f.Library != "":
		return path.Base(f.Library)
	}
	return ""
}

// GDBThread is one thread of `thread apply all bt`, innermost frame
// first. Num is gdb's thread number, LWP the kernel's thread id, Name the
// thread's name when gdb printed one ("pt_gloo_runloop").
type GDBThread struct {
	Num    int        `json:"num"`
	LWP    int        `json:"lwp,omitempty"`
	Name   string     `json:"name,omitempty"`
	Frames []GDBFrame `json:"frames"`
}

// GDBStack is one rank's stacks as gdb printed them (the hang lab's
// stacks/rank<N>.gdb.txt). Notes keep gdb's other lines (its warnings,
// "[Thread debugging using libthread_db enabled]"); Error is gdb's when
// it could not attach, and Gone says the process was not there.
// Truncated says the text ended inside a backtrace.
type GDBStack struct {
	Rank      int         `json:"rank"`
	PID       int         `json:"pid,omitempty"`
	Threads   []GDBThread `json:"threads"`
	Notes     []string    `json:"notes,omitempty"`
	Error     string      `json:"error,omitempty"`
	Gone      bool        `json:"gone,omitempty"`
	Truncated bool        `json:"truncated,omitempty"`
}

var (
	// Thread 3 (Thread 0x7f... (LWP 1234) "pt_gloo_runloop"):
	// Thread 1 (LWP 1234 "python3"):  Thread 1 (process 1234):
	reGDBThread = regexp.MustCompile(`^Thread (\d+) \((?:Thread 0x[0-9a-fA-F]+ \()?(?:LWP|process) (\d+)\)?(?: "(.*)")?\)?:?\s*$`)
	reGDBFrame  = regexp.MustCompile(`^#(\d+)\s+(?:(0x[0-9a-fA-F]+) in )?(.*)$`)
	reGDBAt     = regexp.MustCompile(` at (\S+):(\d+)$`)
	reGDBFrom   = regexp.MustCompile(` from (\S+)$`)
	reGDBAttach = regexp.MustCompile(`^Attaching to (?:program: .*, )?process (\d+)`)
	reGDBDetach = regexp.MustCompile(`^\[Inferior \d+ \(process (\d+)\) detached\]`)
)

// gdbGone and gdbRefused are gdb's words when it cannot attach (gdb
// 13.1, linux-nat: "ptrace: No such process.", "ptrace: Operation not
// permitted.", "Could not attach to process.").
var (
	gdbGone    = []string{"ptrace: No such process", "No such process."}
	gdbRefused = []string{"ptrace: Operation not permitted", "Could not attach to process", "ptrace: "}
)

// ParseGDB reads the text of `gdb -p PID -batch -ex "thread apply all bt"`
// (stdout and stderr together). Lines that are neither a thread header
// nor a frame are kept as Notes; a frame line before any thread header
// (gdb's first stop, printed on attach) is not part of a thread and is
// dropped. Text cut short keeps what it holds.
func ParseGDB(rank int, text string) GDBStack {
	s := GDBStack{Rank: rank}
	var cur *GDBThread
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, line := range lines {
		line = strings.TrimRight(line, " \t\r")
		if line == "" {
			cur = nil
			continue
		}
		if m := reGDBThread.FindStringSubmatch(line); m != nil {
			num, _ := strconv.Atoi(m[1])
			lwp, _ := strconv.Atoi(m[2])
			s.Threads = append(s.Threads, GDBThread{Num: num, LWP: lwp, Name: m[3]})
			cur = &s.Threads[len(s.Threads)-1]
			continue
		}
		if m := reGDBFrame.FindStringSubmatch(line); m != nil {
			if cur == nil {
				continue // the stop gdb prints on attaching, not a thread's backtrace
			}
			f := parseGDBFrame(m)
			if i == len(lines)-1 && !strings.HasSuffix(text, "\n") && f.Library == "" && f.File == "" && !strings.HasSuffix(line, ")") {
				s.Truncated = true
			}
			cur.Frames = append(cur.Frames, f)
			continue
		}
		if m := reGDBAttach.FindStringSubmatch(line); m != nil && s.PID == 0 {
			s.PID, _ = strconv.Atoi(m[1])
		} else if m := reGDBDetach.FindStringSubmatch(line); m != nil && s.PID == 0 {
			s.PID, _ = strconv.Atoi(m[1])
		}
		if s.Error == "" {
			for _, w := range gdbRefused {
				if strings.HasPrefix(line, w) {
					s.Error = line
					break
				}
			}
		}
		s.Notes = append(s.Notes, line)
	}
	if s.Error != "" {
		for _, w := range gdbGone {
			if strings.Contains(s.Error, w) {
				s.Gone = true
			}
		}
	}
	return s
}

// parseGDBFrame splits a frame line's rest: "FUNC (ARGS) at FILE:LINE",
// "FUNC (ARGS) from LIB", or "<signal handler called>".
func parseGDBFrame(m []string) GDBFrame {
	f := GDBFrame{Addr: m[2]}
	f.Index, _ = strconv.Atoi(m[1])
	rest := m[3]
	if at := reGDBAt.FindStringSubmatchIndex(rest); at != nil {
		f.File = rest[at[2]:at[3]]
		f.Line, _ = strconv.Atoi(rest[at[4]:at[5]])
		rest = rest[:at[0]]
	} else if from := reGDBFrom.FindStringSubmatchIndex(rest); from != nil {
		f.Library = rest[from[2]:from[3]]
		rest = rest[:from[0]]
	}
	f.Func = strings.TrimSpace(stripArgs(rest))
	return f
}

// stripArgs removes the argument list gdb prints after the function
// ("(tstate=0x..., throwflag=0)", "()"): the top-level parenthesised
// group that ends the text, when a space comes before it (strings in the
// arguments may hold parentheses). A C++ name's own parameter list
// ("wait(std::chrono::...)") has no space before it and stays.
func stripArgs(s string) string {
	s = strings.TrimRight(s, " ")
	depth, open, inStr := 0, -1, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '(':
			if depth == 0 {
				open = i
			}
			depth++
		case c == ')' && depth > 0:
			depth--
			if depth == 0 && i == len(s)-1 && open > 0 && s[open-1] == ' ' {
				return s[:open-1]
			}
		}
	}
	return s
}

// commMarkers name communication code in a frame's function or library:
// PyTorch's c10d (ProcessGroupGloo, ProcessGroupNCCL, Work::wait), gloo,
// NCCL (its API, proxy and bootstrap threads) and NCCL's library.
var commMarkers = []string{"c10d::", "gloo::", "nccl", "NCCL"}

// IsComm says whether a frame is in communication code.
func (f GDBFrame) IsComm() bool {
	// the name without its template arguments: pybind11's wrapper of
	// c10d::Work::wait names c10d only inside them
	fn := shortFunc(f.Func, len(f.Func))
	for _, m := range commMarkers {
		if strings.Contains(fn, m) {
			return true
		}
	}
	return strings.Contains(path.Base(f.Library), "libnccl")
}

// GDBWait is a thread of a rank that is in communication code: the thread
// and its innermost communication frame (Depth is that frame's index, so
// the frames before it are where the thread blocks: a futex, poll).
type GDBWait struct {
	Thread GDBThread `json:"-"`
	Num    int       `json:"num"`
	LWP    int       `json:"lwp,omitempty"`
	Name   string    `json:"name,omitempty"`
	Frame  GDBFrame  `json:"frame"`
	// Innermost is the thread's frame #0 (futex, poll, a spin), where it
	// is now.
	Innermost GDBFrame `json:"innermost"`
}

// Waits lists the threads in communication code, in gdb's order.
func (s GDBStack) Waits() []GDBWait {
	var out []GDBWait
	for _, t := range s.Threads {
		for _, f := range t.Frames {
			if f.IsComm() {
				w := GDBWait{Thread: t, Num: t.Num, LWP: t.LWP, Name: t.Name, Frame: f}
				if len(t.Frames) > 0 {
					w.Innermost = t.Frames[0]
				}
				out = append(out, w)
				break
			}
		}
	}
	return out
}

// String is one line per rank and a line per thread in communication
// code: the thread and its innermost communication frame.
func (s GDBStack) String() string {
	var b strings.Builder
	switch {
	case s.Error != "" && len(s.Threads) == 0:
		fmt.Fprintf(&b, "rank %d (gdb): no stack: %s", s.Rank, s.Error)
		return b.String()
	case len(s.Threads) == 0:
		fmt.Fprintf(&b, "rank %d (gdb): no thread in the text", s.Rank)
		return b.String()
	}
	waits := s.Waits()
	fmt.Fprintf(&b, "rank %d (gdb): %d threads, %d in communication code", s.Rank, len(s.Threads), len(waits))
	if s.Truncated {
		b.WriteString(" (text cut short)")
	}
	for _, w := range waits {
		name := w.Name
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(&b, "\n  thread %d %s: #%d %s", w.Num, name, w.Frame.Index, shortFunc(w.Frame.Func, 90))
		if w.Frame.Index > 0 {
			fmt.Fprintf(&b, " <- #0 %s", shortFunc(w.Innermost.Func, 50))
		}
	}
	return b.String()
}

// ShortFunc is a frame's function without its C++ parameter list and
// template arguments, at most n bytes: "c10d::Work::wait",
// "gloo::transport::tcp::UnboundBuffer::waitRecv".
func ShortFunc(fn string, n int) string { return shortFunc(fn, n) }

func shortFunc(fn string, n int) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(fn); i++ {
		c := fn[i]
		switch {
		case c == '<' && !strings.HasPrefix(fn[i:], "<signal"):
			depth++
		case c == '>' && depth > 0:
			depth--
		case c == '(' && depth == 0 && i > 0 && !strings.HasPrefix(fn[i:], "(anonymous namespace)"):
			// the parameter list; what follows it (" const") is dropped
			return clip(b.String(), n)
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return clip(b.String(), n)
}

// isGDBFile says whether a stacks/ file is gdb's (rank3.gdb.txt).
func isGDBFile(name string) bool { return strings.HasSuffix(name, ".gdb.txt") }

// LoadGDBStacks reads the gdb backtraces in dir (rank<N>.gdb.txt), in rank
// order; files that name no rank or hold no thread are returned with the
// reason (a gdb error that was kept still counts as read).
func LoadGDBStacks(fsys fs.FS, dir string) ([]GDBStack, []string) {
	var stacks []GDBStack
	skipped := eachRankFile(fsys, dir, isGDBFile, "rankN.gdb.txt", func(rank int, text string) string {
		st := ParseGDB(rank, text)
		if len(st.Threads) == 0 && st.Error == "" {
			return "no thread in gdb's text"
		}
		stacks = append(stacks, st)
		return ""
	})
	sort.SliceStable(stacks, func(i, j int) bool { return stacks[i].Rank < stacks[j].Rank })
	return stacks, skipped
}

// GDBRun is the driver's account of its gdb step (summary.json's "gdb"):
// gdb's version and command, and per rank the file it wrote or why not
// ("ptrace refused", "gone", "timeout") with the seconds it took.
type GDBRun struct {
	Version string                `json:"version"`
	Command []string              `json:"command"`
	WallS   float64               `json:"wall_s" unit:"s"`
	Error   string                `json:"error"`
	Ranks   map[string]GDBRankRun `json:"ranks"`
}

// GDBRankRun is gdb's result on one rank.
type GDBRankRun struct {
	Exit    any     `json:"exit"`
	File    string  `json:"file"`
	Error   string  `json:"error"`
	Seconds float64 `json:"seconds" unit:"s"`
}

// Seconds is the least and most gdb took on one rank (0, 0 when it did
// not run).
func (g *GDBRun) Seconds() (lo, hi float64) {
	if g == nil {
		return 0, 0
	}
	first := true
	for _, r := range g.Ranks {
		if r.Seconds <= 0 {
			continue
		}
		if first || r.Seconds < lo {
			lo = r.Seconds
		}
		if first || r.Seconds > hi {
			hi = r.Seconds
		}
		first = false
	}
	return lo, hi
}

// GDBOf is the rank's gdb stack in the lab, if one was read.
func (l *Lab) GDBOf(rank int) (GDBStack, bool) {
	for _, s := range l.GDB {
		if s.Rank == rank {
			return s, true
		}
	}
	return GDBStack{}, false
}
