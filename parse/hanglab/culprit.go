package hanglab

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/commlab/commlab/parse/flightrec"
)

// Culprit is the answer to "who, which collective, and how long did the
// others wait", read from the dumps (flightrec's analysis), the stacks and
// the ranks' own results.
type Culprit struct {
	// Found is false when the dumps show nothing wrong.
	Found bool `json:"found"`
	// Kind is flightrec's finding kind: "missing", "op-mismatch",
	// "size-mismatch", "dtype-mismatch", "unpaired-p2p".
	Kind string `json:"kind"`
	PG   string `json:"pg"`
	// Seq is the collective (or p2p) sequence number of the finding; Op,
	// Sizes and Dtypes describe that call as the waiting ranks recorded it.
	Seq    int64  `json:"seq"`
	Op     string `json:"op"`
	Sizes  string `json:"sizes,omitempty"`
	Dtypes string `json:"dtypes,omitempty"`
	// Ranks are the culprits, Others the rest of the group.
	Ranks  []int `json:"ranks"`
	Others []int `json:"others"`
	// Ahead is the one rank left waiting alone when the culprit skipped
	// a call (a count mismatch on two ranks); -1 otherwise.
	Ahead int `json:"ahead"`
	// LastSeq is the culprit's last completed collective.
	LastSeq int64 `json:"last_seq"`
	// Where is the culprit's innermost stack frame, Blocking what it said
	// it was about to do.
	Where    string `json:"where,omitempty"`
	Blocking string `json:"blocking,omitempty"`
	// TimeoutS is the run's timeout; WaitedS the median time the other
	// ranks spent in their call before it raised, and Error what it said.
	TimeoutS float64 `json:"timeout_s" unit:"s"`
	WaitedS  float64 `json:"waited_s" unit:"s"`
	Error    string  `json:"error,omitempty"`
	// Detail is flightrec's sentence for the finding.
	Detail string `json:"detail"`
}

// kindOrder ranks findings for the one answer: a rank without a dump
// first (the others may only be waiting for a process that is gone), the
// collective everyone is stuck in last (nobody is behind).
var kindOrder = map[string]int{flightrec.FindingNoDump: -2, flightrec.FindingCrossGroup: -1, flightrec.FindingMissing: 0, flightrec.FindingSizeMismatch: 1, flightrec.FindingDtypeMismatch: 2,
	flightrec.FindingOpMismatch: 3, flightrec.FindingUnpairedP2P: 4, flightrec.FindingNotStarted: 5, flightrec.FindingAllStuck: 6}

// KindDied is a Culprit's Kind when a rank's process ended (no dump).
const KindDied = "died"

// Culprit reads the lab's dumps, stacks and results into one answer.
func (l *Lab) Culprit() Culprit {
	c := Culprit{Ahead: -1, TimeoutS: l.TimeoutS}
	a := l.Analysis()
	if len(a.Findings) == 0 {
		// No dump says anything: a process that died first (gloo aborts on
		// a size mismatch; a rank killed, which torchrun's report names as
		// the first observed failure) is the answer, from its stderr,
		// torchrun's report and its stack.
		if c, ok := l.allStuck(a); ok {
			return c
		}
		for _, r := range l.Ranks {
			if r.Died && (strings.Contains(r.Exception, "terminate") || r.RootCause) {
				c.Found, c.Kind, c.Ranks, c.Blocking, c.Error = true, KindDied, []int{r.Rank}, r.BlockingCall, r.Error
				for _, o := range l.Ranks {
					if o.Rank != r.Rank {
						c.Others = append(c.Others, o.Rank)
					}
				}
				for _, st := range l.Stacks {
					if fr := st.Where(); st.Rank == r.Rank && fr.Func != "" {
						c.Where = fmt.Sprintf("%s (%s:%d)", fr.Func, baseName(fr.File), fr.Line)
					}
				}
				c.Detail = fmt.Sprintf("rank %d's process ended in %s: %s", r.Rank, orDash(r.BlockingCall), r.Error)
				if r.RootCause {
					c.Detail += " (torchrun's first observed failure; it then stopped the other ranks)"
				}
				return c
			}
		}
		return c
	}
	fs := append([]flightrec.Finding(nil), a.Findings...)
	sort.SliceStable(fs, func(i, j int) bool { return kindOrder[fs[i].Kind] < kindOrder[fs[j].Kind] })
	f := fs[0]
	c.Found, c.Kind, c.PG, c.Seq, c.Op, c.Ranks, c.Others, c.Detail = true, f.Kind, f.PG, f.SeqID, f.Op, f.Ranks, f.Others, f.Detail
	if f.Kind == flightrec.FindingMissing && len(f.Others) == 1 {
		c.Ahead = f.Others[0]
	}
	// The call as the others recorded it (the culprit's own for p2p).
	look := f.Others
	if f.Kind == flightrec.FindingUnpairedP2P || len(look) == 0 {
		look = f.Ranks
	}
	for _, d := range l.Dumps {
		if !slices.Contains(look, d.Rank) {
			continue
		}
		if e, ok := entryAt(d, f); ok {
			c.Sizes = flightrec.ShapesText(e.InputSizes)
			c.Dtypes = strings.Join(e.InputDtypes, ",")
			if c.Op == "" {
				c.Op = e.Op
			}
			break
		}
	}
	for _, g := range a.Groups {
		if g.PG != f.PG {
			continue
		}
		for _, s := range g.States {
			if len(f.Ranks) > 0 && s.Rank == f.Ranks[0] {
				c.LastSeq = s.LastCompleted
				if g.NoEvents {
					c.LastSeq = s.LastEnqueued // no completions recorded: its last call
				}
			}
		}
	}
	if len(f.Ranks) > 0 {
		for _, s := range l.Stacks {
			if s.Rank == f.Ranks[0] {
				if fr := s.Where(); fr.Func != "" {
					c.Where = fmt.Sprintf("%s (%s:%d)", fr.Func, baseName(fr.File), fr.Line)
				}
			}
		}
		for _, r := range l.Ranks {
			if r.Rank == f.Ranks[0] {
				c.Blocking = r.BlockingCall
			}
		}
	}
	var waited []float64
	for _, r := range l.Ranks {
		if slices.Contains(f.Others, r.Rank) && r.Outcome == "raised" {
			waited = append(waited, r.EndedAfterS)
			if c.Error == "" {
				c.Error = firstLine(r.Error)
			}
		}
	}
	if len(waited) > 0 {
		sort.Float64s(waited)
		c.WaitedS = waited[len(waited)/2]
	}
	return c
}

// allStuck reads the case the dumps alone cannot: a backend that records
// no completion (gloo) shows every rank's last collective alike whether it
// finished or not. When every rank dumped, every dump ends at the same
// collective and every rank raised in its call, the collective itself
// could not finish: nobody is behind (the decision tree's "every rank
// stopped in the same collective").
func (l *Lab) allStuck(a *flightrec.Analysis) (Culprit, bool) {
	c := Culprit{Ahead: -1, TimeoutS: l.TimeoutS}
	if len(a.Groups) == 0 || len(l.Dumps) < l.NProc || l.NProc < 2 {
		return c, false
	}
	var g flightrec.GroupReport
	for _, gr := range a.Groups {
		if gr.NoEvents && len(gr.NoDump) == 0 && len(gr.States) > 0 && gr.States[0].LastEnqueued > 0 {
			g = gr
			break
		}
	}
	if len(g.States) == 0 {
		return c, false
	}
	last := g.States[0].LastEnqueued
	for _, s := range g.States {
		if s.LastEnqueued != last {
			return c, false
		}
	}
	if len(l.Ranks) < l.NProc {
		return c, false
	}
	var waited []float64
	for _, r := range l.Ranks {
		if r.Outcome != "raised" {
			return c, false
		}
		waited = append(waited, r.EndedAfterS)
		if c.Error == "" {
			c.Error = firstLine(r.Error)
		}
	}
	sort.Float64s(waited)
	c.Found, c.Kind, c.PG, c.Seq, c.LastSeq = true, flightrec.FindingAllStuck, g.PG, last, last
	for _, s := range g.States {
		c.Ranks = append(c.Ranks, s.Rank)
	}
	c.WaitedS = waited[len(waited)/2]
	for _, d := range l.Dumps {
		if e, ok := entryAt(d, flightrec.Finding{PG: g.PG, SeqID: last}); ok {
			c.Op, c.Sizes, c.Dtypes = e.Op, fmt.Sprint(e.InputSizes), strings.Join(e.InputDtypes, ",")
			break
		}
	}
	where := map[string][]int{}
	for _, s := range l.Stacks {
		if f := s.Where(); f.Func != "" {
			k := fmt.Sprintf("%s (%s:%d)", f.Func, baseName(f.File), f.Line)
			where[k] = append(where[k], s.Rank)
		}
	}
	if len(where) == 1 {
		for k := range where {
			c.Where = k
		}
	}
	c.Detail = fmt.Sprintf("%s called %s #%d of pg %s and each raised in it (%s records no completion): no rank is behind, the collective itself could not finish",
		ranksPhrase(c.Ranks), orDash(c.Op), last, g.PG, orBackend(g.Backend))
	return c, true
}

func orBackend(b string) string {
	if b == "" {
		return "the backend"
	}
	return b
}

func entryAt(d *flightrec.Dump, f flightrec.Finding) (flightrec.Entry, bool) {
	for i := len(d.Entries) - 1; i >= 0; i-- {
		e := d.Entries[i]
		if e.PGName != f.PG {
			continue
		}
		if f.Kind == flightrec.FindingUnpairedP2P {
			if e.IsP2P && e.P2PSeqID == f.SeqID {
				return e, true
			}
			continue
		}
		if !e.IsP2P && e.CollectiveSeqID == f.SeqID {
			return e, true
		}
	}
	return flightrec.Entry{}, false
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func ranksPhrase(rs []int) string {
	if len(rs) == 1 {
		return fmt.Sprintf("rank %d", rs[0])
	}
	return "ranks " + flightrec.RankRanges(rs)
}

// Answer writes the culprit as the chapter's core question asks: who,
// which collective, and why only at the timeout, with the numbers.
func (c Culprit) Answer() string {
	if !c.Found {
		return "the dumps show no rank behind and no mismatch"
	}
	var b strings.Builder
	if c.Kind == flightrec.FindingAllStuck {
		fmt.Fprintf(&b, "who: nobody is behind: %s all in the same collective (%s)", ranksPhrase(c.Ranks), c.Kind)
	} else {
		fmt.Fprintf(&b, "who: %s (%s)", ranksPhrase(c.Ranks), c.Kind)
	}
	if c.Where != "" && c.Kind == flightrec.FindingAllStuck {
		fmt.Fprintf(&b, "; every stack: in %s", c.Where)
	} else if c.Where != "" {
		fmt.Fprintf(&b, "; its stack: in %s", c.Where)
	}
	b.WriteString("\n")
	if c.Kind == KindDied && c.Seq == 0 {
		fmt.Fprintf(&b, "which: %s (no dump numbers it)", orDash(c.Blocking))
	} else {
		fmt.Fprintf(&b, "which: %s #%d of process group %s", c.Op, c.Seq, c.PG)
	}
	if c.Sizes != "" {
		fmt.Fprintf(&b, ", input sizes %s %s", c.Sizes, c.Dtypes)
	}
	if c.Kind == flightrec.FindingMissing {
		fmt.Fprintf(&b, "; %s last collective was #%d, %d other rank(s) called #%d", ranksPhrase(c.Ranks), c.LastSeq, len(c.Others), c.Seq)
	}
	b.WriteString("\n")
	if c.Kind == KindDied {
		fmt.Fprintf(&b, "its process ended: %s\n", c.Error)
	}
	if c.WaitedS > 0 {
		fmt.Fprintf(&b, "why only at the timeout: the others waited %.1f s in the call (timeout %g s) before it raised: %s\n", c.WaitedS, c.TimeoutS, c.Error)
	}
	if c.Kind == KindDied {
		b.WriteString("Flight Recorder: no dump (a process that dies writes none)")
		return b.String()
	}
	fmt.Fprintf(&b, "Flight Recorder: %s", c.Detail)
	return b.String()
}

// Outcome says in one line how the ranks ended: who raised what after how
// long, who returned.
func (l *Lab) Outcome() string {
	var parts []string
	for _, g := range l.Groups() {
		p := ranksPhrase(g.Ranks) + ": "
		switch {
		case g.Outcome == "raised" && g.EndedAfterS < 1:
			p += fmt.Sprintf("raised at once (%s: %s)", g.Exception, clip(g.Error, 90))
		case g.Outcome == "raised":
			p += fmt.Sprintf("raised after %.1f s (%s: %s)", g.EndedAfterS, g.Exception, clip(g.Error, 90))
		case g.Outcome == "returned":
			p += fmt.Sprintf("returned (%s)", orDash(g.Blocking))
		case g.Outcome == "died":
			p += fmt.Sprintf("process ended (%s): %s", g.Exception, clip(g.Error, 120))
		default:
			p += orDash(g.Outcome)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

// FRTraceSummary returns what PyTorch's fr_trace said on the dumps as they
// were, and on the copy with a repaired pg_config when the driver made one:
// per run its finding lines, or the exception it stopped with and where.
func (l *Lab) FRTraceSummary() []string {
	var out []string
	for _, t := range l.FRTraces {
		if strings.Contains(t.File, "entries") || strings.Contains(t.File, "incomplete") {
			continue
		}
		which := "dumps as written"
		if strings.Contains(t.File, "fixed") {
			which = "pg_config repaired"
		}
		out = append(out, which+": "+frTraceGist(t))
	}
	if len(out) == 0 {
		return []string{"(fr_trace did not run: no dumps)"}
	}
	return out
}

var rePyFrame = regexp.MustCompile(`File "([^"]+)", line (\d+), in (\S+)`)

// frTraceGist is one line for one fr_trace run.
func frTraceGist(t FRTrace) string {
	text := t.Text
	if i := strings.Index(text, "Traceback (most recent call last)"); i >= 0 {
		tb := text[i:]
		var last string
		for _, line := range strings.Split(tb, "\n") {
			if s := strings.TrimSpace(line); s != "" && !strings.HasPrefix(s, "^") && !strings.HasPrefix(s, "~") {
				last = s
			}
		}
		where := ""
		if m := rePyFrame.FindAllStringSubmatch(tb, -1); m != nil {
			f := m[len(m)-1]
			where = fmt.Sprintf(" in %s (%s:%s)", f[3], baseName(f[1]), f[2])
		}
		return fmt.Sprintf("exit %v, stopped with %s%s", t.Exit, last, where)
	}
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "--- stderr") {
			continue
		}
		lines = append(lines, clip(line, 200))
		if len(lines) == 6 {
			break
		}
	}
	if len(lines) == 0 {
		return fmt.Sprintf("exit %v, no output", t.Exit)
	}
	return strings.Join(lines, " | ")
}
