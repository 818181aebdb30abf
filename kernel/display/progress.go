package display

import (
	"fmt"
	"html"
	"sync"
)

// Progress is a bar that fills in place while long work runs: each change
// updates one display (update_display_data), so the notebook shows
// movement instead of a silent wait, and a headless run shows the latest
// state on its progress line.
type Progress struct {
	mu      sync.Mutex
	label   string
	total   int
	done    int
	shown   int // percent last shown
	handle  *Handle
	stopped bool
}

// NewProgress shows an empty bar for total steps.
func NewProgress(label string, total int) *Progress {
	if total < 1 {
		total = 1
	}
	p := &Progress{label: label, total: total, shown: -1}
	p.handle = Show(p.bundle())
	p.shown = 0
	return p
}

// Set records that done steps are complete; the display changes when the
// whole percentage moves, so a million small steps cost a hundred updates.
func (p *Progress) Set(done int) {
	p.mu.Lock()
	if done > p.total {
		done = p.total
	}
	p.done = done
	pct := 100 * p.done / p.total
	if pct == p.shown || p.stopped {
		p.mu.Unlock()
		return
	}
	p.shown = pct
	b := p.bundle()
	p.mu.Unlock()
	p.handle.Update(b)
}

// Add records n more completed steps.
func (p *Progress) Add(n int) {
	p.mu.Lock()
	done := p.done + n
	p.mu.Unlock()
	p.Set(done)
}

// Done fills the bar.
func (p *Progress) Done() {
	p.mu.Lock()
	p.done, p.stopped = p.total, true
	b := p.bundle()
	p.mu.Unlock()
	p.handle.Update(b)
}

// bundle renders the bar; the caller holds p.mu.
func (p *Progress) bundle() Bundle {
	// No elapsed time in the output: a notebook run twice gives the same
	// outputs (the runner records cell timings in metadata instead).
	pct := 100 * p.done / p.total
	text := fmt.Sprintf("%s: %d/%d (%d%%)", p.label, p.done, p.total, pct)
	bar := fmt.Sprintf(`<div><progress value="%d" max="%d" style="width:24em"></progress> <code>%s</code></div>`,
		p.done, p.total, html.EscapeString(text))
	return Bundle{Data: map[string]any{MIMEHTML: bar, MIMEPlain: text}}
}

// MIMEBundle is empty: the bar is already displayed.
func (p *Progress) MIMEBundle() map[string]any { return map[string]any{} }
