package flightrec

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
)

// Analyze compares the dumps of several ranks: per process group, the last
// collective each rank enqueued, started and completed; the collective the
// group is stuck in and the ranks missing from it; ranks that disagree on
// the operation, sizes or dtypes under one sequence id; unpaired sends and
// receives. Dumps whose file name gives no rank are numbered by position.
func Analyze(dumps []*Dump) *Analysis { return AnalyzeWith(dumps, Options{}) }

// AnalyzeWith is Analyze with what the dumps cannot say themselves.
func AnalyzeWith(dumps []*Dump, opt Options) *Analysis {
	a := &Analysis{Findings: []Finding{}, Verdict: []string{}}
	byRank := map[int]*Dump{}
	for i, d := range dumps {
		if d == nil {
			continue
		}
		r := d.Rank
		if r < 0 {
			r = i
		}
		if kept, dup := byRank[r]; dup {
			a.Warnings = append(a.Warnings, fmt.Sprintf("two dumps for rank %d: kept %s, ignored %s", r, kept.File, d.File))
			continue
		}
		byRank[r] = d
		a.Ranks = append(a.Ranks, r)
	}
	sort.Ints(a.Ranks)

	for _, pg := range groupNames(byRank) {
		g := analyzeGroup(pg, byRank, a.Ranks, opt)
		a.Groups = append(a.Groups, g)
		a.Findings = append(a.Findings, g.Findings...)
		for _, st := range g.States {
			if st.Reconciled != "" {
				a.Notes = append(a.Notes, fmt.Sprintf("rank %d, pg %s: %s", st.Rank, pgLabel(g.PG, g.Desc), st.Reconciled))
			}
		}
	}
	if f, ok := crossGroup(a.Groups); ok {
		a.Findings = append([]Finding{f}, a.Findings...)
	}
	var bad, good []string
	if len(a.Findings) > 0 && a.Findings[0].Kind == FindingCrossGroup {
		bad = append(bad, a.Findings[0].Detail)
	}
	for _, g := range a.Groups {
		if len(g.Findings) > 0 || g.StuckSeq > 0 {
			bad = append(bad, g.Verdict)
		} else {
			good = append(good, g.Verdict)
		}
	}
	a.Verdict = append(bad, good...)
	if len(a.Groups) == 0 {
		a.Verdict = append(a.Verdict, "no process group recorded any collective")
	}
	return a
}

// crossGroup finds two groups each stuck in a collective that the other
// group's waiting ranks never called: rank A waits in group 1 for rank B,
// who waits in group 2 for rank A. Neither group alone shows more than a
// rank missing; together they are a deadlock across communicators.
func crossGroup(groups []GroupReport) (Finding, bool) {
	type miss struct {
		g       GroupReport
		culprit []int
		waiting []int
		f       Finding
	}
	var ms []miss
	for _, g := range groups {
		for _, f := range g.Findings {
			if f.Kind == FindingMissing {
				ms = append(ms, miss{g, f.Ranks, f.Others, f})
			}
		}
	}
	subset := func(a, b []int) bool {
		for _, x := range a {
			if !slices.Contains(b, x) {
				return false
			}
		}
		return len(a) > 0
	}
	for i := range ms {
		for j := i + 1; j < len(ms); j++ {
			a, b := ms[i], ms[j]
			if !subset(a.culprit, b.waiting) || !subset(b.culprit, a.waiting) {
				continue
			}
			ranks := append(append([]int(nil), a.culprit...), b.culprit...)
			sort.Ints(ranks)
			detail := fmt.Sprintf("%s and %s wait on each other across process groups: %s %s in %s #%d of pg %s, which %s never called, and %s %s in %s #%d of pg %s, which %s never called",
				RanksPhrase(a.waiting), RanksPhrase(b.waiting),
				RanksPhrase(a.waiting), verbFor(a.waiting, "is", "are"), a.g.StuckOp, a.g.StuckSeq, pgLabel(a.g.PG, a.g.Desc), RanksPhrase(a.culprit),
				RanksPhrase(b.waiting), verbFor(b.waiting, "is", "are"), b.g.StuckOp, b.g.StuckSeq, pgLabel(b.g.PG, b.g.Desc), RanksPhrase(b.culprit))
			return Finding{Kind: FindingCrossGroup, PG: a.g.PG + "," + b.g.PG, Op: a.g.StuckOp, SeqID: a.g.StuckSeq,
				Ranks: ranks, Detail: detail}, true
		}
	}
	return Finding{}, false
}

// groupNames lists every process group named in pg_config or in entries,
// numeric names in numeric order.
func groupNames(byRank map[int]*Dump) []string {
	seen := map[string]bool{}
	for _, d := range byRank {
		for _, g := range d.ProcessGroups {
			if g.Name == "" {
				// torch 2.11's gloo dumps name the default group "" in
				// pg_config while their entries say "0": it is the default
				// group, not a second one, and without ranks it says nothing.
				if len(g.Ranks) == 0 {
					continue
				}
				seen[DefaultGroup] = true
				continue
			}
			seen[g.Name] = true
		}
		for _, e := range d.Entries {
			seen[e.PGName] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, ea := strconv.Atoi(names[i])
		b, eb := strconv.Atoi(names[j])
		if ea == nil && eb == nil {
			return a < b
		}
		if (ea == nil) != (eb == nil) {
			return ea == nil
		}
		return names[i] < names[j]
	})
	return names
}

// DefaultGroup is the name Flight Recorder's entries give the default
// process group.
const DefaultGroup = "0"

// groupConfig is d's pg_config entry for pg; for the default group, an
// unnamed entry stands in when none is named "0".
func groupConfig(d *Dump, pg string) (ProcessGroup, bool) {
	if g, ok := d.Group(pg); ok {
		return g, true
	}
	if pg == DefaultGroup {
		if g, ok := d.Group(""); ok && len(g.Ranks) > 0 {
			g.Name = DefaultGroup
			return g, true
		}
	}
	return ProcessGroup{}, false
}
