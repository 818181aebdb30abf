package flightrec

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

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
			RanksPhrase(byKey[first]), verbFor(byKey[first], "runs", "run"), first.op, seq, label, RanksPhrase(byKey[want]), verbFor(byKey[want], "runs", "run"), want.op)
	case first.sizes != want.sizes:
		f.Kind = FindingSizeMismatch
		f.Detail = fmt.Sprintf("%s %s %s #%d of pg %s with sizes %s while %s %s %s",
			RanksPhrase(byKey[first]), verbFor(byKey[first], "calls", "call"), want.op, seq, label, first.sizes, RanksPhrase(byKey[want]), verbFor(byKey[want], "uses", "use"), want.sizes)
	default:
		f.Kind = FindingDtypeMismatch
		f.Detail = fmt.Sprintf("%s %s %s #%d of pg %s with dtypes %s while %s %s %s",
			RanksPhrase(byKey[first]), verbFor(byKey[first], "calls", "call"), want.op, seq, label, first.dtypes, RanksPhrase(byKey[want]), verbFor(byKey[want], "uses", "use"), want.dtypes)
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
			if !slices.Contains(except, r) {
				out = append(out, r)
			}
		}
		return out
	}
	label := pgLabel(g.PG, g.Desc)
	if len(missing) > 0 {
		lastSeen := views[missing[0]].state.LastEnqueued
		detail := fmt.Sprintf("%s never called %s #%d of pg %s", RanksPhrase(missing), g.StuckOp, seq, label)
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
		who := RanksPhrase(inside)
		if len(inside) > 1 {
			who = "every rank with a dump (" + who + ")"
		}
		var detail string
		switch {
		case len(g.NoDump) > 0 && len(scheduled) == 0:
			detail = fmt.Sprintf("%s started %s #%d of pg %s and none completed it: they wait for %s without a dump, or the collective itself cannot finish", who, g.StuckOp, seq, label, RanksPhrase(g.NoDump))
		case len(g.NoDump) > 0:
			detail = fmt.Sprintf("%s enqueued %s #%d of pg %s and none completed it: they wait for %s without a dump, or the collective itself cannot finish (start events %s)", who, g.StuckOp, seq, label, RanksPhrase(g.NoDump), g.Timing)
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
				RanksPhrase(scheduled), g.StuckOp, seq, label, RanksPhrase(started))})
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
		if !slices.Contains(present, p.src) || !slices.Contains(present, p.dst) {
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
