package hanglab

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// What a notebook shows of a lab beside its summary: a rank's Python
// frames, the one-line reading of a stack, the stacks taken from outside
// and from inside side by side, and an excerpt of a cuda-gdb session.

// MainFrames returns at most n frames, innermost first, of the main thread
// ("MainThread") of rank's stack written by source ("py-spy",
// "faulthandler"); nil when the lab has no such stack.
func (l *Lab) MainFrames(rank int, source string, n int) []Frame {
	for _, s := range l.Stacks {
		if s.Rank != rank || s.Source != source {
			continue
		}
		for _, t := range s.Threads {
			if t.Name == "MainThread" {
				return t.Frames[:min(n, len(t.Frames))]
			}
		}
	}
	return nil
}

// StackWords reads one stack in a few words: "in FUNC (FILE:LINE)" at the
// frame Where picks, or "no stack: " and why (the tool's error, or a
// process that had ended before the signal).
func StackWords(s Stack) string {
	if s.Gone || (len(s.Threads) == 0 && s.Error != "") {
		return "no stack: " + s.Error
	}
	if f := s.Where(); f.Func != "" {
		return fmt.Sprintf("in %s (%s:%d)", f.Func, path.Base(f.File), f.Line)
	}
	return "no stack: the process had ended before the signal"
}

// StackRows are markdown table rows "| name | rank | py-spy | faulthandler |",
// one per rank of a lab folder (ranks 0 to nproc-1): each rank's py-spy
// stack (stacks/rankN.txt, taken from outside) and faulthandler's
// (stacks/rank_N.txt, from inside) in StackWords, "-" where a file is
// missing.
func StackRows(name string, fsys fs.FS, nproc int) string {
	var b strings.Builder
	for r := 0; r < nproc; r++ {
		cells := []string{}
		for _, file := range []string{"stacks/rank%d.txt", "stacks/rank_%d.txt"} {
			data, err := fs.ReadFile(fsys, fmt.Sprintf(file, r))
			if err != nil {
				cells = append(cells, "-")
				continue
			}
			cells = append(cells, StackWords(ParseStack(r, string(data))))
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s |\n", name, r, cells[0], cells[1])
	}
	return b.String()
}

// CudaGDBExcerpt picks from a cuda-gdb session's text what the debugger
// said when it stopped the process (from `Thread 1 "python3" stopped` to
// the next thread's header: its kernel and SM tables) and the host's main
// thread (from `Thread 1 (Thread` down to the first PyObject_Vectorcall
// frame, the Python call), without blank lines, each line indented by two
// spaces.
func CudaGDBExcerpt(text string) string {
	var b strings.Builder
	show, main := false, false
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "Thread 1 \"python3\" stopped"):
			show = true
		case strings.HasPrefix(l, "Thread 1 (Thread"):
			show, main = true, true
		case show && !main && strings.HasPrefix(l, "Thread "):
			show = false
		case main && strings.Contains(l, "PyObject_Vectorcall"):
			show = false
		}
		if show && strings.TrimSpace(l) != "" {
			b.WriteString("  " + l + "\n")
		}
	}
	return b.String()
}
