package runner

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// IsTerminal reports whether f is a terminal, where a live progress line
// makes sense.
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// Progress shows one live line while a notebook runs: the notebook, cell i
// of n, the time elapsed, and the latest progress a cell reported through a
// display update. A Progress that is not live prints nothing.
type Progress struct {
	w    io.Writer
	live bool
	now  func() time.Time

	mu        sync.Mutex
	name      string
	cell, n   int
	start     time.Time
	cellStart time.Time
	note      string
	stop      chan struct{}
	done      chan struct{}
}

// NewProgress returns a progress line on w; live false makes it quiet.
func NewProgress(w io.Writer, live bool) *Progress {
	return &Progress{w: w, live: live, now: time.Now}
}

// Begin starts a notebook of n code cells.
func (p *Progress) Begin(name string, n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.name, p.n, p.cell, p.note = name, n, 0, ""
	p.start = p.now()
	p.mu.Unlock()
	if p.live {
		p.stop, p.done = make(chan struct{}), make(chan struct{})
		go p.tick(p.stop, p.done)
	}
}

func (p *Progress) tick(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.draw()
		}
	}
}

// Cell marks the start of code cell i (1-based).
func (p *Progress) Cell(i int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.cell, p.note = i, ""
	p.cellStart = p.now()
	p.mu.Unlock()
	p.draw()
}

// Note shows a cell's own progress report (the plain text of a display
// update, its first line).
func (p *Progress) Note(text string) {
	if p == nil {
		return
	}
	text, _, _ = strings.Cut(strings.TrimSpace(text), "\n")
	p.mu.Lock()
	p.note = text
	p.mu.Unlock()
	p.draw()
}

// Line is the progress line as it is drawn now.
func (p *Progress) Line() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	s := fmt.Sprintf("%s  cell %d/%d  %s", p.name, p.cell, p.n, now.Sub(p.start).Round(100*time.Millisecond))
	if p.cell > 0 {
		s += fmt.Sprintf(" (this cell %s)", now.Sub(p.cellStart).Round(100*time.Millisecond))
	}
	if p.note != "" {
		s += "  " + p.note
	}
	return s
}

func (p *Progress) draw() {
	if !p.live {
		return
	}
	line := p.Line()
	if len(line) > 160 {
		line = line[:160]
	}
	p.mu.Lock()
	fmt.Fprint(p.w, "\r\x1b[K"+line)
	p.mu.Unlock()
}

// End erases the line.
func (p *Progress) End() {
	if p == nil || !p.live {
		return
	}
	close(p.stop)
	<-p.done
	p.mu.Lock()
	fmt.Fprint(p.w, "\r\x1b[K")
	p.mu.Unlock()
}
