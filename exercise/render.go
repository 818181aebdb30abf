package exercise

import (
	"fmt"
	"html"
	"os"
	"strconv"
	"strings"
)

// look is how a status shows: a mark and the box's colours. Colours are
// inline so the box reads the same in JupyterLab, the classic Notebook and
// exported pages, on light and dark themes (the box sets its own text colour).
type look struct {
	mark, accent, background string
}

var looks = map[Status]look{
	Right:       {"✓", "#1a7f37", "#dafbe1"},
	Wrong:       {"✗", "#cf222e", "#ffebe9"},
	NotAnswered: {"…", "#9a6700", "#fff8c5"},
	Broken:      {"!", "#57606a", "#eaeef2"},
	Unchecked:   {"•", "#0969da", "#ddf4ff"},
}

func (c Check) look() look {
	if l, ok := looks[c.Status]; ok {
		return l
	}
	return looks[Broken]
}

// trainerEnv, COMMLAB_EXERCISE_VIEW, is the environment variable that
// sets a process's view of the checks: "trainer" shows a wrong answer's
// reference and why beside the verdict; "grader" does too, and makes the
// text of a check cell's result its score for nbgrader's autograde: the
// share of its checks that are right, "1" to "0", which nbgrader reads as
// the partial credit of a test cell worth 1 point. It is read once, when
// the process starts, so a cell cannot turn it on.
const trainerEnv = "COMMLAB_EXERCISE_VIEW"

var (
	view        = os.Getenv(trainerEnv)
	trainerView = view == "trainer" || view == "grader"
	graderView  = view == "grader"
)

// verdict is what the box says after its heading, for the learner.
func (c Check) verdict() string {
	switch c.Status {
	case Right:
		return c.Got
	case Wrong:
		s := "got " + c.Got
		if c.Detail != "" {
			s += ": " + c.Detail
		}
		if c.Section != "" {
			s += " (see " + c.Section + ")"
		}
		return s
	case NotAnswered:
		s := "complete the answer cell above, then run this cell again"
		if strings.HasPrefix(c.Accept, "one of") {
			s += " (answer " + c.Accept + ")"
		}
		return s
	case Unchecked:
		s := c.Got + ": the reference is the trainer's, not in this notebook; the answer is checked when it is graded"
		if c.Section != "" {
			s += " (see " + c.Section + ")"
		}
		return s
	}
	return c.Detail
}

// trainerNote is what the trainer's view adds to a wrong answer: the
// reference, what counts as right, and why.
func (c Check) trainerNote() (want, why string) {
	if !trainerView || c.Status != Wrong {
		return "", ""
	}
	want = "expected " + c.Want
	if c.Accept != "" && !strings.HasPrefix(c.Accept, "one of") {
		want += " (" + c.Accept + ")"
	}
	return want, c.Why
}

// String is the verdict as text: one line; in the trainer's view, the
// reference and its why on the next.
func (c Check) String() string {
	var b strings.Builder
	b.WriteString(c.look().mark + " " + c.Status.String() + ": ")
	if c.Name != "" {
		b.WriteString(c.Name + ": ")
	}
	b.WriteString(c.verdict())
	if want, why := c.trainerNote(); want != "" {
		b.WriteString("\n  trainer: " + want)
		if why != "" {
			b.WriteString("\n  why: " + why)
		}
	}
	return b.String()
}

// HTML is the verdict as a box.
func (c Check) HTML() string {
	l := c.look()
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="commlab-exercise exercise-%s" style="margin:.25rem 0;padding:.4rem .75rem;border-left:4px solid %s;border-radius:4px;background:%s;color:#1f2328">`,
		strings.ReplaceAll(c.Status.String(), " ", "-"), l.accent, l.background)
	fmt.Fprintf(&b, `<p style="margin:.2rem 0"><strong style="color:%s">%s %s</strong>`, l.accent, l.mark, html.EscapeString(c.Status.String()))
	if c.Name != "" {
		b.WriteString(" · " + html.EscapeString(c.Name))
	}
	b.WriteString("</p>")
	switch c.Status {
	case Right:
		fmt.Fprintf(&b, `<p style="margin:.2rem 0"><b>%s</b></p>`, html.EscapeString(c.Got))
	case Wrong:
		fmt.Fprintf(&b, `<p style="margin:.2rem 0">got <b>%s</b>`, html.EscapeString(c.Got))
		if c.Detail != "" {
			b.WriteString(": " + html.EscapeString(c.Detail))
		}
		if c.Section != "" {
			fmt.Fprintf(&b, ` (see <em>%s</em>)`, html.EscapeString(c.Section))
		}
		b.WriteString("</p>")
		if want, why := c.trainerNote(); want != "" {
			fmt.Fprintf(&b, `<p class="commlab-trainer" style="margin:.2rem 0"><em>trainer:</em> %s</p>`, html.EscapeString(want))
			if why != "" {
				fmt.Fprintf(&b, `<p class="commlab-trainer" style="margin:.2rem 0;white-space:pre-wrap"><em>why:</em> %s</p>`, html.EscapeString(why))
			}
		}
	default:
		fmt.Fprintf(&b, `<p style="margin:.2rem 0">%s</p>`, html.EscapeString(c.verdict()))
	}
	b.WriteString("</div>")
	return b.String()
}

// Checks shows several checks of one exercise together, under a score.
type Checks []Check

// Score counts the right answers among all.
func (cs Checks) Score() (right, total int) {
	for _, c := range cs {
		if c.Passed() {
			right++
		}
	}
	return right, len(cs)
}

func (cs Checks) right() int {
	right, _ := cs.Score()
	return right
}

func (cs Checks) summary() string {
	right, total := cs.Score()
	return fmt.Sprintf("%d of %d right", right, total)
}

// String is the score, then each check.
func (cs Checks) String() string {
	lines := []string{cs.summary()}
	for _, c := range cs {
		lines = append(lines, c.String())
	}
	return strings.Join(lines, "\n")
}

// HTML is the score, then each check's box.
func (cs Checks) HTML() string {
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="commlab-exercises"><p style="margin:.2rem 0"><strong>%s</strong></p>`, cs.summary())
	for _, c := range cs {
		b.WriteString(c.HTML())
	}
	b.WriteString("</div>")
	return b.String()
}

// MIMEType is the media type under which a check cell's result carries
// its verdicts as JSON ({"checks": [{"name": ..., "status": ...}]}), for
// a runner to count them: status is "right", "wrong", "not answered yet",
// "cannot check" or "checked when graded". Front ends ignore it and show the HTML.
const MIMEType = "application/vnd.commlab.exercise+json"

// Verdict is one check as MIMEType carries it. Want is the reference
// answer, carried only in the trainer's view (COMMLAB_EXERCISE_VIEW).
type Verdict struct {
	Name    string `json:"name"`
	Status  string `json:"status"`
	Section string `json:"section,omitempty"`
	Want    string `json:"want,omitempty"`
}

func (c Check) verdictJSON() Verdict {
	v := Verdict{Name: c.Name, Status: c.Status.String()}
	if c.Status == Wrong {
		v.Section = c.Section
		if trainerView {
			v.Want = c.Want
		}
	}
	return v
}

// MIMEBundle is what a check cell shows: the box, its text, and the
// verdict for runners.
func (c Check) MIMEBundle() map[string]any {
	return map[string]any{"text/html": c.HTML(), "text/plain": graded(c.String(), Checks{c}.right(), 1),
		MIMEType: map[string]any{"checks": []Verdict{c.verdictJSON()}}}
}

// graded is a check cell's text: in the grader's view, the share of its
// checks that are right ("0.5"), nbgrader's partial credit for a test
// cell of 1 point.
func graded(text string, right, total int) string {
	if !graderView {
		return text
	}
	if total == 0 {
		return "0"
	}
	return strconv.FormatFloat(float64(right)/float64(total), 'g', 4, 64)
}

// MIMEBundle is what a check cell of several checks shows: the boxes,
// their text, and each verdict for runners.
func (cs Checks) MIMEBundle() map[string]any {
	vs := make([]Verdict, len(cs))
	for i, c := range cs {
		vs[i] = c.verdictJSON()
	}
	right, total := cs.Score()
	return map[string]any{"text/html": cs.HTML(), "text/plain": graded(cs.String(), right, total), MIMEType: map[string]any{"checks": vs}}
}
