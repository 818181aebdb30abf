package flightrec

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// opKey is what ranks must agree on for one collective sequence id.
type opKey struct {
	op, sizes, dtypes string
}

func keyOf(es []Entry) opKey {
	var ops, sizes, dtypes []string
	for _, e := range es {
		ops = append(ops, e.Op)
		sizes = append(sizes, ShapesText(e.InputSizes)+"->"+ShapesText(e.OutputSizes))
		dtypes = append(dtypes, strings.Join(e.InputDtypes, ",")+"->"+strings.Join(e.OutputDtypes, ","))
	}
	return opKey{strings.Join(ops, "+"), strings.Join(sizes, " "), strings.Join(dtypes, " ")}
}

type rankView struct {
	state RankState
	seqs  map[int64][]Entry // collective entries by sequence id
	p2p   []Entry
	desc  string
}

func analyzeGroup(pg string, byRank map[int]*Dump, dumped []int, opt Options) GroupReport {
	g := GroupReport{PG: pg}
	for _, r := range dumped {
		if cfg, ok := groupConfig(byRank[r], pg); ok {
			if g.Desc == "" {
				g.Desc = cfg.Desc
			}
			if len(g.Members) == 0 && len(cfg.Ranks) > 0 {
				g.Members = append([]int(nil), cfg.Ranks...)
			}
		}
	}
	views := map[int]*rankView{}
	for _, r := range dumped {
		v := viewOf(byRank[r], r, pg)
		if v.state.Entries > 0 || len(v.p2p) > 0 || v.state.FromStatus {
			views[r] = v
			if g.Desc == "" {
				g.Desc = v.desc
			}
		}
	}
	if len(g.Members) == 0 {
		for r := range views {
			g.Members = append(g.Members, r)
		}
		sort.Ints(g.Members)
	}
	// pg_config lists ranks in group order: group rank i is Members[i].
	groupRanks := append([]int(nil), g.Members...)
	members := append([]int(nil), g.Members...)
	sort.Ints(members)
	g.Members = members

	g.Backend, g.NoEvents = eventsOf(views)
	if g.NoEvents {
		for _, v := range views {
			v.state.LastStarted, v.state.LastCompleted = -1, -1
			v.state.Reconciled = ""
		}
	} else {
		g.Timing, g.TimingWhy = groupTiming(byRank, views, opt)
	}

	var present []int
	for _, r := range members {
		v, ok := views[r]
		if !ok {
			if _, dumpedRank := byRank[r]; dumpedRank {
				// Dumped but silent about this group: nothing enqueued.
				v = &rankView{state: RankState{Rank: r, Dumped: true}, seqs: map[int64][]Entry{}}
				views[r] = v
			} else {
				g.NoDump = append(g.NoDump, r)
				g.States = append(g.States, RankState{Rank: r})
				continue
			}
		}
		present = append(present, r)
		g.States = append(g.States, v.state)
	}
	if len(g.NoDump) > 0 {
		g.Findings = append(g.Findings, Finding{Kind: FindingNoDump, PG: pg, PGDesc: g.Desc, Ranks: g.NoDump, Others: present,
			Detail: fmt.Sprintf("%s of pg %s left no dump: did %s crash or get killed?", RanksPhrase(g.NoDump), pgLabel(pg, g.Desc), Pronoun(g.NoDump))})
	}
	if len(present) == 0 {
		g.Verdict = fmt.Sprintf("pg %s: no dump covers it", pgLabel(pg, g.Desc))
		return g
	}

	// The stuck collective: the first one not completed everywhere (on a
	// backend without events, the first one not called everywhere).
	var maxEnq int64
	minDone, minEnq := int64(-1), int64(-1)
	for _, r := range present {
		s := views[r].state
		if s.LastEnqueued > maxEnq {
			maxEnq = s.LastEnqueued
		}
		if minDone < 0 || s.LastCompleted < minDone {
			minDone = s.LastCompleted
		}
		if minEnq < 0 || s.LastEnqueued < minEnq {
			minEnq = s.LastEnqueued
		}
	}
	switch {
	case g.NoEvents && maxEnq > minEnq:
		g.StuckSeq = minEnq + 1
	case !g.NoEvents && maxEnq > minDone:
		g.StuckSeq = minDone + 1
	}

	// Disagreements: the earliest sequence id where ranks that recorded it
	// differ, up to the stuck one.
	last := maxEnq
	if g.StuckSeq > 0 {
		last = g.StuckSeq
	}
	for _, seq := range sharedSeqs(views, present, last) {
		if f, ok := mismatch(pg, g.Desc, seq, views, present); ok {
			g.Findings = append(g.Findings, f)
			break
		}
	}

	if g.StuckSeq > 0 {
		g.StuckOp = majorityOp(g.StuckSeq, views, present)
		stuckFindings(&g, views, present)
	}
	g.Findings = append(g.Findings, unpairedP2P(pg, g.Desc, views, present, groupRanks)...)
	g.Verdict = verdict(g, views, present)
	return g
}

// eventsOf returns the group's backend (the commonest profiling-name
// prefix) and whether no entry went past "scheduled" on any rank.
func eventsOf(views map[int]*rankView) (backend string, noEvents bool) {
	count := map[string]int{}
	any := false
	noEvents = true
	for _, v := range views {
		for _, es := range v.seqs {
			for _, e := range es {
				any = true
				count[e.Backend]++
				if e.State != StateScheduled || e.TimeDiscoveredStartedNs != 0 || e.TimeDiscoveredCompletedNs != 0 {
					noEvents = false
				}
			}
		}
		for _, e := range v.p2p {
			count[e.Backend]++
			if e.State != StateScheduled {
				noEvents = false
			}
		}
	}
	for b, n := range count {
		if n > count[backend] || (n == count[backend] && b < backend) {
			backend = b
		}
	}
	return backend, any && noEvents
}

func viewOf(d *Dump, rank int, pg string) *rankView {
	v := &rankView{state: RankState{Rank: rank, Dumped: true}, seqs: map[int64][]Entry{}}
	pgIDs := map[string]bool{}
	for _, e := range d.Entries {
		if e.PGName != pg {
			continue
		}
		pgIDs[strconv.FormatInt(e.PGID, 10)] = true
		if v.desc == "" {
			v.desc = e.PGDesc
		}
		if e.IsP2P {
			v.p2p = append(v.p2p, e)
			continue
		}
		v.seqs[e.CollectiveSeqID] = append(v.seqs[e.CollectiveSeqID], e)
		s := &v.state
		s.Entries++
		if s.FirstSeq == 0 || e.CollectiveSeqID < s.FirstSeq {
			s.FirstSeq = e.CollectiveSeqID
		}
		if e.CollectiveSeqID > s.LastEnqueued {
			s.LastEnqueued = e.CollectiveSeqID
		}
		if (e.State == StateStarted || e.State == StateCompleted) && e.CollectiveSeqID > s.LastStarted {
			s.LastStarted = e.CollectiveSeqID
		}
		if e.State == StateCompleted && e.CollectiveSeqID > s.LastCompleted {
			s.LastCompleted = e.CollectiveSeqID
		}
	}
	// pg_status is keyed by pg_id; entries tie pg_id to the group name, and
	// the default group's id and name are both "0".
	for _, st := range d.Status {
		if pgIDs[st.PGID] || (len(pgIDs) == 0 && st.PGID == pg) {
			reconcile(&v.state, st)
			break
		}
	}
	return v
}

// reconcile merges pg_status into the state the entries gave. The two
// are read at different moments: the watchdog updates pg_status as it
// polls, the dump refreshes each entry's state as it writes it (torch
// 2.11's pickle of a healthy run says last_completed 1 while all 11 of
// its entries say completed). Each counter only grows, so the larger value
// is the later evidence and wins; -1 means the counter is not tracked
// (started, without timing) and says nothing.
func reconcile(s *RankState, st GroupStatus) {
	s.FromStatus = true
	var diffs []string
	merge := func(name string, fromEntries *int64, status int64) {
		switch {
		case status < 0:
		case s.Entries == 0 || status > *fromEntries:
			if s.Entries > 0 && status != *fromEntries && name != "started" {
				diffs = append(diffs, fmt.Sprintf("pg_status says last %s #%d, the entries #%d: pg_status is later", name, status, *fromEntries))
			}
			*fromEntries = status
		case status < *fromEntries && name != "started":
			diffs = append(diffs, fmt.Sprintf("pg_status says last %s #%d, the entries #%d: the entries are later (the dump refreshes their state as it writes them)", name, status, *fromEntries))
		}
	}
	merge("enqueued", &s.LastEnqueued, st.LastEnqueued)
	merge("started", &s.LastStarted, st.LastStarted)
	merge("completed", &s.LastCompleted, st.LastCompleted)
	// A collective completed was started, whatever start events say.
	s.LastStarted = max(s.LastStarted, s.LastCompleted)
	s.LastEnqueued = max(s.LastEnqueued, s.LastStarted)
	s.Reconciled = strings.Join(diffs, "; ")
}

// groupTiming reads whether the group's ranks recorded start events: the
// dumps first (they are direct evidence), else what the caller knows from
// the job's environment or log.
func groupTiming(byRank map[int]*Dump, views map[int]*rankView, opt Options) (Timing, string) {
	t, why := TimingUnknown, ""
	ranks := slices.Sorted(maps.Keys(views))
	for _, r := range ranks {
		dt, dwhy := byRank[r].Timing()
		if dt == TimingOn {
			return TimingOn, fmt.Sprintf("rank %d's dump: %s", r, dwhy)
		}
		if dt == TimingOff && t == TimingUnknown {
			t, why = TimingOff, fmt.Sprintf("rank %d's dump: %s", r, dwhy)
		}
	}
	if t == TimingUnknown && opt.Timing != TimingUnknown {
		return opt.Timing, opt.TimingSource
	}
	return t, why
}

// sharedSeqs lists sequence ids up to last that every present rank still
// holds in its buffer or never reached, in order.
func sharedSeqs(views map[int]*rankView, present []int, last int64) []int64 {
	seen := map[int64]bool{}
	for _, r := range present {
		for s := range views[r].seqs {
			if s > 0 && s <= last {
				seen[s] = true
			}
		}
	}
	out := make([]int64, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
