package session

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// flushMarker is written into a captured stream and waited for, so that
// everything written before a result, a display or the end of a cell has
// reached the notebook first.
const flushMarker = "\x00commlab-flush:"

// streamCapture redirects one of the process's file descriptors (1 or 2)
// into a pipe, so output of compiled packages reaches the notebook too, in
// the order it was written.
type streamCapture struct {
	name   string // "stdout" or "stderr"
	fd     int
	saved  int // duplicate of the original descriptor
	orig   *os.File
	r, w   *os.File
	sink   func(name, text string)
	mu     sync.Mutex
	next   int
	waits  map[int]chan struct{}
	closed chan struct{}
}

func captureFD(name string, fd int, sink func(name, text string)) (*streamCapture, error) {
	saved, err := unix.Dup(fd)
	if err != nil {
		return nil, fmt.Errorf("session: dup %s: %w", name, err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		unix.Close(saved)
		return nil, fmt.Errorf("session: pipe for %s: %w", name, err)
	}
	if err := unix.Dup2(int(w.Fd()), fd); err != nil {
		r.Close()
		w.Close()
		unix.Close(saved)
		return nil, fmt.Errorf("session: redirect %s: %w", name, err)
	}
	c := &streamCapture{name: name, fd: fd, saved: saved, r: r, w: w, sink: sink, waits: map[int]chan struct{}{}, closed: make(chan struct{})}
	c.orig = os.NewFile(uintptr(saved), "original-"+name)
	go c.read()
	return c, nil
}

// original returns a file writing to the descriptor as it was before the
// capture: the terminal, or the log of the process that started us.
func (c *streamCapture) original() *os.File { return c.orig }

func (c *streamCapture) read() {
	defer close(c.closed)
	buf := make([]byte, 64<<10)
	var pending []byte
	for {
		n, err := c.r.Read(buf)
		pending = append(pending, buf[:n]...)
		pending = c.deliver(pending)
		if err != nil {
			if len(pending) > 0 {
				c.sink(c.name, string(pending))
			}
			return
		}
	}
}

// deliver sends the complete text of data to the sink, acknowledges flush
// markers, and returns what must wait for more bytes: a marker cut in two,
// or a UTF-8 sequence cut in two.
func (c *streamCapture) deliver(data []byte) []byte {
	for {
		i := bytes.Index(data, []byte(flushMarker))
		if i < 0 {
			break
		}
		end := bytes.IndexByte(data[i+len(flushMarker):], 0)
		if end < 0 {
			if i > 0 {
				c.sink(c.name, string(data[:i]))
			}
			return append([]byte(nil), data[i:]...)
		}
		if i > 0 {
			c.sink(c.name, string(data[:i]))
		}
		id, _ := strconv.Atoi(string(data[i+len(flushMarker) : i+len(flushMarker)+end]))
		c.ack(id)
		data = data[i+len(flushMarker)+end+1:]
	}
	keep := 0
	// A marker may have begun at the very end.
	for k := len(flushMarker) - 1; k > 0; k-- {
		if len(data) >= k && bytes.HasSuffix(data, []byte(flushMarker[:k])) {
			keep = k
			break
		}
	}
	if keep == 0 {
		for k := 1; k <= 3 && k <= len(data); k++ {
			if utf8.RuneStart(data[len(data)-k]) {
				if !utf8.FullRune(data[len(data)-k:]) {
					keep = k
				}
				break
			}
		}
	}
	if len(data)-keep > 0 {
		c.sink(c.name, string(data[:len(data)-keep]))
	}
	return append([]byte(nil), data[len(data)-keep:]...)
}

func (c *streamCapture) ack(id int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.waits[id]; ok {
		close(ch)
		delete(c.waits, id)
	}
}

// flushStreams returns once everything written to the streams so far was
// delivered. The markers go out together so the waits overlap.
func flushStreams(cs ...*streamCapture) {
	waits := make([]chan struct{}, len(cs))
	for i, c := range cs {
		waits[i] = c.mark()
	}
	timeout := time.NewTimer(2 * time.Second)
	defer timeout.Stop()
	for i, c := range cs {
		if waits[i] == nil {
			continue
		}
		select {
		case <-waits[i]:
		case <-c.closed:
		case <-timeout.C:
			// A reader that cannot keep up must not hang the kernel.
			return
		}
	}
}

// mark writes a flush marker and returns the channel closed when the
// reader reaches it (nil if the marker could not be written).
func (c *streamCapture) mark() chan struct{} {
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan struct{})
	c.waits[id] = ch
	c.mu.Unlock()
	if _, err := fmt.Fprintf(c.w, "%s%d\x00", flushMarker, id); err != nil {
		return nil
	}
	return ch
}

// restore puts the original descriptor back and stops the reader.
func (c *streamCapture) restore() {
	_ = unix.Dup2(c.saved, c.fd)
	c.w.Close()
	<-c.closed
	c.r.Close()
	c.orig.Close()
}

// panicLine is how yaegi reports each interpreted frame of a panic on its
// standard error: "3:7: panic: main.f(...)".
var panicLine = regexp.MustCompile(`^(\d+):(\d+): panic(?::\s*(.*))?\s*$`)

// interpStderr is the interpreter's standard error: it passes everything
// through except yaegi's own panic trace, which becomes the traceback.
type interpStderr struct {
	out   io.Writer
	mu    sync.Mutex
	trace []string
}

func (w *interpStderr) Write(p []byte) (int, error) {
	if m := panicLine.FindSubmatch(bytes.TrimRight(p, "\n")); m != nil {
		w.mu.Lock()
		w.trace = append(w.trace, string(bytes.TrimRight(p, "\n")))
		w.mu.Unlock()
		return len(p), nil
	}
	return w.out.Write(p)
}

func (w *interpStderr) takeTrace() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.trace
	w.trace = nil
	return t
}

// eventWriter turns writes into stream events directly, for sessions that
// do not capture the process's descriptors.
type eventWriter struct {
	name string
	emit func(name, text string)
}

func (w eventWriter) Write(p []byte) (int, error) {
	w.emit(w.name, string(p))
	return len(p), nil
}
