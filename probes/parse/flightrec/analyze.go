package flightrec

import (
	"fmt"
	"github.com/commlab/commlab/probes/parse"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Finding kinds.
const (
	// FindingMissing: member ranks never enqueued the collective the others
	// are waiting in.
	FindingMissing = "missing"
	// FindingNotStarted: ranks enqueued the collective but their GPU never
	// started it (the stream is blocked behind earlier work).
	FindingNotStarted = "not-started"
	// FindingOpMismatch: ranks ran different operations under the same
	// sequence id (collectives called in a different order).
	FindingOpMismatch = "op-mismatch"
	// FindingSizeMismatch and FindingDtypeMismatch: same operation, different
	// tensor sizes or dtypes.
	FindingSizeMismatch  = "size-mismatch"
	FindingDtypeMismatch = "dtype-mismatch"
	// FindingUnpairedP2P: a send without its receive, or the reverse.
	FindingUnpairedP2P = "unpaired-p2p"
	// FindingNoDump: member ranks left no dump file.
	FindingNoDump = "no-dump"
	// FindingCrossGroup: ranks wait on each other across process groups,
	// each in a collective of one group that the other never called.
	FindingCrossGroup = "cross-group"
	// FindingAllStuck: every rank that left a dump is inside the same
	// collective and none completed it. Nobody is behind: the collective
	// itself cannot finish (a broken link, a dead NIC, a GPU fault, a rank
	// that died inside it).
	FindingAllStuck = "all-stuck"
)

// Finding is one thing the analysis found wrong in a process group.
type Finding struct {
	Kind   string `json:"kind"`
	PG     string `json:"pg"`
	PGDesc string `json:"pg_desc,omitempty"`
	SeqID  int64  `json:"seq_id,omitempty"`
	Op     string `json:"op,omitempty"`
	// Ranks are the ranks the finding is about (the culprits); Others are
	// the rest of the group that behave as expected.
	Ranks  []int  `json:"ranks"`
	Others []int  `json:"others,omitempty"`
	Detail string `json:"detail"`
}

// RankState is how far one rank got in one process group's collectives.
type RankState struct {
	Rank   int  `json:"rank"`
	Dumped bool `json:"dumped"`
	// Last collective sequence ids enqueued, started and completed (0 when
	// none). FromStatus says they come from pg_status rather than from the
	// entries, which the ring buffer may have dropped.
	LastEnqueued  int64 `json:"last_enqueued"`
	LastStarted   int64 `json:"last_started"`
	LastCompleted int64 `json:"last_completed"`
	FromStatus    bool  `json:"from_status"`
	// Entries is how many collective entries this rank recorded for the
	// group, and FirstSeq the oldest one still in its buffer.
	Entries  int   `json:"entries"`
	FirstSeq int64 `json:"first_seq,omitempty"`
	// Reconciled says where pg_status and the entries disagreed and which
	// was taken: each counter only grows, so the larger one is the later
	// evidence.
	Reconciled string `json:"reconciled,omitempty"`
}

// GroupReport is the analysis of one process group across the dumps.
type GroupReport struct {
	PG   string `json:"pg"`
	Desc string `json:"desc,omitempty"`
	// Backend is the profiling names' prefix ("nccl", "gloo").
	Backend string `json:"backend,omitempty"`
	// NoEvents is set when no entry of the group, on any rank, went past
	// "scheduled": a CPU backend such as gloo records no start or end
	// events, so its entries never say started or completed and its
	// pg_status counts a collective that failed as completed. Then only
	// the enqueued sequence ids are evidence: a rank that never called a
	// collective the others called is behind, and "never started on the
	// GPU" is no verdict.
	NoEvents bool `json:"no_events,omitempty"`
	// Timing is whether the group recorded start events (see Timing), and
	// TimingWhy the evidence.
	Timing    Timing      `json:"timing,omitempty"`
	TimingWhy string      `json:"timing_why,omitempty"`
	Members   []int       `json:"members"`
	NoDump    []int       `json:"no_dump,omitempty"`
	States    []RankState `json:"states"`
	StuckSeq  int64       `json:"stuck_seq,omitempty"` // 0: nothing pending
	StuckOp   string      `json:"stuck_op,omitempty"`
	Findings  []Finding   `json:"findings,omitempty"`
	Verdict   string      `json:"verdict"`
}

// Analysis is the cross-rank reading of a set of dumps.
type Analysis struct {
	Ranks    []int         `json:"ranks"`
	Groups   []GroupReport `json:"groups"`
	Findings []Finding     `json:"findings"`
	// Verdict has one readable line per process group, problems first.
	Verdict []string `json:"verdict"`
	// Warnings name dumps left out, such as a second dump for one rank.
	Warnings []string `json:"warnings,omitempty"`
	// Notes say where the dumps contradicted themselves and which
	// evidence was taken (pg_status against the entries).
	Notes []string `json:"notes,omitempty"`
}

// Options are what Analyze cannot read from the dumps themselves.
type Options struct {
	// Timing, when known from the job's environment or log, is used where
	// the dumps do not show it; TimingSource names where it came from.
	Timing       Timing
	TimingSource string
}

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
			if !contains(b, x) {
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
				ranksPhrase(a.waiting), ranksPhrase(b.waiting),
				ranksPhrase(a.waiting), verbFor(a.waiting, "is", "are"), a.g.StuckOp, a.g.StuckSeq, pgLabel(a.g.PG, a.g.Desc), ranksPhrase(a.culprit),
				ranksPhrase(b.waiting), verbFor(b.waiting, "is", "are"), b.g.StuckOp, b.g.StuckSeq, pgLabel(b.g.PG, b.g.Desc), ranksPhrase(b.culprit))
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
			Detail: fmt.Sprintf("%s of pg %s left no dump: did %s crash or get killed?", ranksPhrase(g.NoDump), pgLabel(pg, g.Desc), pronoun(g.NoDump))})
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
	ranks := make([]int, 0, len(views))
	for r := range views {
		ranks = append(ranks, r)
	}
	sort.Ints(ranks)
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

// mismatch compares what each rank recorded under seq.
func mismatch(pg, desc string, seq int64, views map[int]*rankView, present []int) (Finding, bool) {
	byKey := map[opKey][]int{}
	var keys []opKey
	for _, r := range present {
		es, ok := views[r].seqs[seq]
		if !ok {
			continue
		}
		k := keyOf(es)
		if _, seen := byKey[k]; !seen {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], r)
	}
	if len(keys) < 2 {
		return Finding{}, false
	}
	// The majority is "expected"; everyone else is a culprit.
	sort.SliceStable(keys, func(i, j int) bool { return len(byKey[keys[i]]) > len(byKey[keys[j]]) })
	want := keys[0]
	var culprits []int
	for _, k := range keys[1:] {
		culprits = append(culprits, byKey[k]...)
	}
	sort.Ints(culprits)
	first := keys[1]
	f := Finding{PG: pg, PGDesc: desc, SeqID: seq, Op: want.op, Ranks: culprits, Others: byKey[want]}
	label := pgLabel(pg, desc)
	switch {
	case first.op != want.op:
		f.Kind = FindingOpMismatch
		f.Detail = fmt.Sprintf("%s %s %s as collective #%d of pg %s while %s %s %s: the collectives are called in a different order",
			ranksPhrase(byKey[first]), verbFor(byKey[first], "runs", "run"), first.op, seq, label, ranksPhrase(byKey[want]), verbFor(byKey[want], "runs", "run"), want.op)
	case first.sizes != want.sizes:
		f.Kind = FindingSizeMismatch
		f.Detail = fmt.Sprintf("%s %s %s #%d of pg %s with sizes %s while %s %s %s",
			ranksPhrase(byKey[first]), verbFor(byKey[first], "calls", "call"), want.op, seq, label, first.sizes, ranksPhrase(byKey[want]), verbFor(byKey[want], "uses", "use"), want.sizes)
	default:
		f.Kind = FindingDtypeMismatch
		f.Detail = fmt.Sprintf("%s %s %s #%d of pg %s with dtypes %s while %s %s %s",
			ranksPhrase(byKey[first]), verbFor(byKey[first], "calls", "call"), want.op, seq, label, first.dtypes, ranksPhrase(byKey[want]), verbFor(byKey[want], "uses", "use"), want.dtypes)
	}
	return f, true
}

func majorityOp(seq int64, views map[int]*rankView, present []int) string {
	count := map[string]int{}
	best := ""
	for _, r := range present {
		if es, ok := views[r].seqs[seq]; ok {
			op := keyOf(es).op
			count[op]++
			if count[op] > count[best] || (count[op] == count[best] && op < best) {
				best = op
			}
		}
	}
	if best == "" {
		return "collective"
	}
	return best
}

// callOf describes collective seq as the ranks that made it recorded it:
// its input shapes and dtypes ("input 256 Float").
func callOf(seq int64, views map[int]*rankView, present []int) string {
	for _, r := range present {
		if es, ok := views[r].seqs[seq]; ok && len(es) > 0 {
			e := es[0]
			return fmt.Sprintf("input %s %s", ShapesText(e.InputSizes), strings.Join(e.InputDtypes, ","))
		}
	}
	return ""
}

// stuckFindings sorts the ranks of the group by what they did with the
// stuck collective. What a rank did with it can only be told apart as far
// as the dump records: "started" exists only with timing on, so without
// it a rank that enqueued the collective and did not complete it may be
// running it or still queued behind earlier work.
func stuckFindings(g *GroupReport, views map[int]*rankView, present []int) {
	seq := g.StuckSeq
	var missing, scheduled, started []int
	for _, r := range present {
		s := views[r].state
		switch {
		case s.LastEnqueued < seq:
			missing = append(missing, r)
		case s.LastCompleted >= seq:
		case g.Timing == TimingOn && s.LastStarted >= seq:
			started = append(started, r)
		default:
			scheduled = append(scheduled, r)
		}
	}
	others := func(except []int) []int {
		var out []int
		for _, r := range present {
			if !contains(except, r) {
				out = append(out, r)
			}
		}
		return out
	}
	label := pgLabel(g.PG, g.Desc)
	if len(missing) > 0 {
		lastSeen := views[missing[0]].state.LastEnqueued
		detail := fmt.Sprintf("%s never called %s #%d of pg %s", ranksPhrase(missing), g.StuckOp, seq, label)
		if call := callOf(seq, views, present); call != "" {
			detail = strings.Replace(detail, fmt.Sprintf("%s #%d", g.StuckOp, seq), fmt.Sprintf("%s #%d (%s)", g.StuckOp, seq, call), 1)
		}
		if lastSeen > 0 {
			detail += fmt.Sprintf(": %s last enqueued collective is #%d", possessive(missing), lastSeen)
		}
		g.Findings = append(g.Findings, Finding{Kind: FindingMissing, PG: g.PG, PGDesc: g.Desc, SeqID: seq, Op: g.StuckOp,
			Ranks: missing, Others: others(missing), Detail: detail})
	}
	if g.NoEvents {
		return // "scheduled" is all a CPU backend ever says
	}
	inside := append(append([]int(nil), started...), scheduled...)
	sort.Ints(inside)
	mismatched := false
	for _, f := range g.Findings {
		mismatched = mismatched || f.Kind == FindingOpMismatch || f.Kind == FindingSizeMismatch || f.Kind == FindingDtypeMismatch
	}
	switch {
	case mismatched:
		// Ranks that disagree on the collective are why it cannot finish.
	case len(missing) == 0 && len(inside) == len(present) && len(inside) > 0:
		who := ranksPhrase(inside)
		if len(inside) > 1 {
			who = "every rank with a dump (" + who + ")"
		}
		var detail string
		switch {
		case len(g.NoDump) > 0 && len(scheduled) == 0:
			detail = fmt.Sprintf("%s started %s #%d of pg %s and none completed it: they wait for %s without a dump, or the collective itself cannot finish", who, g.StuckOp, seq, label, ranksPhrase(g.NoDump))
		case len(g.NoDump) > 0:
			detail = fmt.Sprintf("%s enqueued %s #%d of pg %s and none completed it: they wait for %s without a dump, or the collective itself cannot finish (start events %s)", who, g.StuckOp, seq, label, ranksPhrase(g.NoDump), g.Timing)
		case len(scheduled) == 0:
			detail = fmt.Sprintf("%s started %s #%d of pg %s and none completed it: no rank is behind, the collective itself cannot finish", who, g.StuckOp, seq, label)
		case len(started) == 0 && g.Timing == TimingOn:
			detail = fmt.Sprintf("%s enqueued %s #%d of pg %s and no GPU started it: every stream is blocked before it", who, g.StuckOp, seq, label)
		case len(started) == 0:
			detail = fmt.Sprintf("%s enqueued %s #%d of pg %s and none completed it: no rank is behind; start events are %s, so the dump cannot tell whether the GPUs started it",
				who, g.StuckOp, seq, label, timingWords(g.Timing))
		default:
			return // some started, some not: the not-started ones are behind (below)
		}
		g.Findings = append(g.Findings, Finding{Kind: FindingAllStuck, PG: g.PG, PGDesc: g.Desc, SeqID: seq, Op: g.StuckOp,
			Ranks: inside, Detail: detail})
		return
	}
	if g.Timing == TimingOn && len(scheduled) > 0 && len(started) > 0 {
		g.Findings = append(g.Findings, Finding{Kind: FindingNotStarted, PG: g.PG, PGDesc: g.Desc, SeqID: seq, Op: g.StuckOp,
			Ranks: scheduled, Others: others(scheduled),
			Detail: fmt.Sprintf("%s enqueued %s #%d of pg %s but the GPU never started it (the stream is busy with earlier work) while %s started it",
				ranksPhrase(scheduled), g.StuckOp, seq, label, ranksPhrase(started))})
	}
}

func timingWords(t Timing) string {
	if t == TimingOff {
		return "off (TORCH_NCCL_ENABLE_TIMING unset)"
	}
	return "not known to be on"
}

// unpairedP2P compares, per pair of ranks, the sends one posted with the
// receives the other posted. Peers in profiling names are group ranks.
func unpairedP2P(pg, desc string, views map[int]*rankView, present, groupRanks []int) []Finding {
	global := func(local int) int {
		if local >= 0 && local < len(groupRanks) {
			return groupRanks[local]
		}
		return local
	}
	type pair struct{ src, dst int }
	sends := map[pair][]Entry{}
	recvs := map[pair][]Entry{}
	for _, r := range present {
		for _, e := range views[r].p2p {
			switch e.Op {
			case "send":
				p := pair{r, global(e.Dst)}
				sends[p] = append(sends[p], e)
			case "recv":
				p := pair{global(e.Src), r}
				recvs[p] = append(recvs[p], e)
			}
		}
	}
	seen := map[pair]bool{}
	var pairs []pair
	for p := range sends {
		seen[p] = true
		pairs = append(pairs, p)
	}
	for p := range recvs {
		if !seen[p] {
			pairs = append(pairs, p)
		}
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].src != pairs[j].src {
			return pairs[i].src < pairs[j].src
		}
		return pairs[i].dst < pairs[j].dst
	})
	var out []Finding
	for _, p := range pairs {
		if !contains(present, p.src) || !contains(present, p.dst) {
			continue // one side left no dump: nothing to compare
		}
		ns, nr := len(sends[p]), len(recvs[p])
		if ns == nr {
			continue
		}
		f := Finding{Kind: FindingUnpairedP2P, PG: pg, PGDesc: desc}
		label := pgLabel(pg, desc)
		if ns > nr {
			e := sends[p][len(sends[p])-1]
			f.Op, f.SeqID, f.Ranks, f.Others = "send", e.P2PSeqID, []int{p.src}, []int{p.dst}
			f.Detail = fmt.Sprintf("rank %d posted %d send(s) to rank %d in pg %s but rank %d posted %d receive(s) from it: send p2p #%d is unpaired (%s)",
				p.src, ns, p.dst, label, p.dst, nr, e.P2PSeqID, e.State)
		} else {
			e := recvs[p][len(recvs[p])-1]
			f.Op, f.SeqID, f.Ranks, f.Others = "recv", e.P2PSeqID, []int{p.dst}, []int{p.src}
			f.Detail = fmt.Sprintf("rank %d posted %d receive(s) from rank %d in pg %s but rank %d posted %d send(s) to it: recv p2p #%d is unpaired (%s)",
				p.dst, nr, p.src, label, p.src, ns, e.P2PSeqID, e.State)
		}
		out = append(out, f)
	}
	return out
}

func verdict(g GroupReport, views map[int]*rankView, present []int) string {
	label := pgLabel(g.PG, g.Desc)
	var parts []string
	// A rank without a dump comes first: the others may only be waiting
	// for a process that crashed or was killed.
	for _, f := range g.Findings {
		if f.Kind == FindingNoDump {
			parts = append(parts, f.Detail)
		}
	}
	allStuck := false
	for _, f := range g.Findings {
		allStuck = allStuck || f.Kind == FindingAllStuck
		if f.Kind != FindingNoDump {
			parts = append(parts, f.Detail)
		}
	}
	if g.StuckSeq > 0 && !allStuck {
		var waiting []int
		for _, r := range present {
			s := views[r].state
			if g.NoEvents && s.LastEnqueued >= g.StuckSeq || !g.NoEvents && s.LastEnqueued >= g.StuckSeq && s.LastCompleted < g.StuckSeq {
				waiting = append(waiting, r)
			}
		}
		if len(waiting) > 0 {
			phrase := fmt.Sprintf("%s %s waiting in %s #%d", ranksPhrase(waiting), verbFor(waiting, "is", "are"), g.StuckOp, g.StuckSeq)
			if g.NoEvents {
				phrase = fmt.Sprintf("%s called %s #%d (%s records no completion)", ranksPhrase(waiting), g.StuckOp, g.StuckSeq, orBackend(g.Backend))
			}
			parts = append(parts, phrase)
		}
	}
	if len(parts) == 0 && g.NoEvents {
		var last int64
		for _, r := range present {
			if s := views[r].state; s.LastEnqueued > last {
				last = s.LastEnqueued
			}
		}
		return fmt.Sprintf("pg %s: %s called every collective up to #%d alike (%s records no completion)", label, ranksPhrase(present), last, orBackend(g.Backend))
	}
	if len(parts) == 0 {
		var last int64
		for _, r := range present {
			if s := views[r].state; s.LastCompleted > last {
				last = s.LastCompleted
			}
		}
		if last == 0 {
			return fmt.Sprintf("pg %s: %s recorded no collective", label, ranksPhrase(present))
		}
		if len(present) == 1 {
			return fmt.Sprintf("pg %s: rank %d completed every collective up to #%d", label, present[0], last)
		}
		return fmt.Sprintf("pg %s: all %d dumped ranks completed every collective up to #%d", label, len(present), last)
	}
	return strings.Join(parts, "; ")
}

func orBackend(b string) string {
	if b == "" {
		return "the backend"
	}
	return b
}

func pgLabel(pg, desc string) string {
	if desc == "" || desc == pg {
		return pg
	}
	return fmt.Sprintf("%s (%s)", pg, desc)
}

// ranksPhrase writes "rank 3" or "ranks 0-2,4-7".
func ranksPhrase(ranks []int) string {
	if len(ranks) == 1 {
		return fmt.Sprintf("rank %d", ranks[0])
	}
	return "ranks " + RankRanges(ranks)
}

func pronoun(ranks []int) string {
	if len(ranks) == 1 {
		return "it"
	}
	return "they"
}

func possessive(ranks []int) string {
	if len(ranks) == 1 {
		return "its"
	}
	return "their"
}

func verbFor(ranks []int, one, many string) string {
	if len(ranks) == 1 {
		return one
	}
	return many
}

// RankRanges writes sorted ranks compactly: [0 1 2 4 5 6 7] -> "0-2,4-7";
// runs of two stay apart ("0,1").
func RankRanges(ranks []int) string {
	rs := append([]int(nil), ranks...)
	sort.Ints(rs)
	var parts []string
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 {
			j++
		}
		switch {
		case j >= i+2:
			parts = append(parts, fmt.Sprintf("%d-%d", rs[i], rs[j]))
		case j == i+1:
			parts = append(parts, strconv.Itoa(rs[i]), strconv.Itoa(rs[j]))
		default:
			parts = append(parts, strconv.Itoa(rs[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// Text renders the analysis for a terminal or a notebook cell: the verdict,
// then per process group each rank's last enqueued, started and completed
// collective.
func (a *Analysis) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Flight Recorder: %d dump(s), ranks %s\n", len(a.Ranks), RankRanges(a.Ranks))
	b.WriteString("verdict:\n")
	for _, v := range a.Verdict {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	for _, w := range a.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	for _, n := range a.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, g := range a.Groups {
		fmt.Fprintf(&b, "\npg %s: %d member(s)", pgLabel(g.PG, g.Desc), len(g.Members))
		if g.StuckSeq > 0 {
			fmt.Fprintf(&b, ", stuck in %s #%d", g.StuckOp, g.StuckSeq)
		}
		if !g.NoEvents {
			fmt.Fprintf(&b, ", start events %s", g.Timing)
		}
		b.WriteString("\n  rank  enqueued  started  completed  entries  source\n")
		for _, s := range g.States {
			if !s.Dumped {
				fmt.Fprintf(&b, "  %4d  (no dump)\n", s.Rank)
				continue
			}
			src := "entries"
			if s.FromStatus {
				src = "pg_status"
			}
			fmt.Fprintf(&b, "  %4d  %8d  %7s  %9s  %7d  %s\n", s.Rank, s.LastEnqueued, seqOrDash(s.LastStarted), seqOrDash(s.LastCompleted), s.Entries, src)
		}
		for _, f := range g.Findings {
			fmt.Fprintf(&b, "  %s: %s\n", f.Kind, f.Detail)
		}
	}
	return b.String()
}

func seqOrDash(v int64) string {
	if v < 0 {
		return "-"
	}
	return strconv.FormatInt(v, 10)
}

// String is Text without its trailing newline, as fmt.Println and a
// notebook's text/plain show the analysis.
func (a *Analysis) String() string { return strings.TrimRight(a.Text(), "\n") }

// String prints the dump in one line: its file, rank, format, version,
// NCCL and entry counts.
func (d *Dump) String() string {
	s := fmt.Sprintf("%s: rank %d, %s dump version %s", d.File, d.Rank, d.Format, d.Version)
	if d.CommLibVersion != "" {
		s += ", NCCL " + d.CommLibVersion
	}
	return s + fmt.Sprintf(", %d entries, %d process group(s)", len(d.Entries), len(d.ProcessGroups))
}

// WriteSummary writes what a person reads first about a set of dumps: one
// line per dump (its file, rank, format, version, NCCL and entry counts),
// then a blank line and the analysis a has made of them (Analysis.Text).
func WriteSummary(w io.Writer, dumps []*Dump, a *Analysis) error {
	return parse.WriteBuffered(w, func(w io.Writer) {
		for _, d := range dumps {
			fmt.Fprintln(w, d)
		}
		fmt.Fprintln(w)
		fmt.Fprint(w, a.Text())
	})
}

// ShapesText writes tensor shapes as a person reads them: one tensor's
// dimensions joined by "x" ("16x1024"), several tensors separated by
// "; ", a scalar as "scalar"; Go's [[16 1024]] is no way to say it.
func ShapesText(shapes [][]int64) string {
	parts := make([]string, 0, len(shapes))
	for _, dims := range shapes {
		if len(dims) == 0 {
			parts = append(parts, "scalar")
			continue
		}
		ds := make([]string, len(dims))
		for i, d := range dims {
			ds[i] = strconv.FormatInt(d, 10)
		}
		parts = append(parts, strings.Join(ds, "x"))
	}
	return strings.Join(parts, "; ")
}
