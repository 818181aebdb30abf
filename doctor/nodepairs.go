package doctor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// NodePair is one nccl-tests run on two nodes and the busbw it reached
// (GB/s), as people list pairwise runs when they hunt a slow node.
type NodePair struct {
	A, B  string
	BusBW float64
	// Note is what the line said after a "#", if anything.
	Note string
}

// ParseNodePairs reads lines of "nodeA,nodeB  busbw  [# note]", the form
// people post the results of pairwise runs in; other lines are skipped. It
// fails when no line has that form.
func ParseNodePairs(text string) ([]NodePair, error) {
	var out []NodePair
	for _, line := range strings.Split(text, "\n") {
		body, note, _ := strings.Cut(line, "#")
		f := strings.Fields(body)
		if len(f) != 2 {
			continue
		}
		a, b, ok := strings.Cut(f[0], ",")
		bw, err := strconv.ParseFloat(f[1], 64)
		if !ok || a == "" || b == "" || err != nil {
			continue
		}
		out = append(out, NodePair{A: a, B: b, BusBW: bw, Note: strings.TrimSpace(note)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("doctor: node pairs: no \"nodeA,nodeB busbw\" line")
	}
	return out, nil
}

// SlowFraction is the share of the best pair's busbw under which
// SlowNodes calls a pair slow: judgement, not a measured constant. Pairs
// of healthy nodes of one kind reach about the same busbw; a slow node
// halves or worse every pair it is in.
const SlowFraction = 0.75

// PairReading is SlowNodes' answer: the nodes every pair of which is slow
// while each of their partners is fast with some other node, and the slow
// pairs that no such node explains.
type PairReading struct {
	Best       NodePair   `json:"best"`
	Slow       []string   `json:"slow_nodes"`
	Undecided  []NodePair `json:"undecided,omitempty"`
	SlowPairs  int        `json:"slow_pairs"`
	TotalPairs int        `json:"total_pairs"`
}

// SlowNodes bisects pairwise runs: a pair is slow under SlowFraction of
// the best pair's busbw; a node is slow when every pair it is in is slow
// and each partner has a fast pair with another node (so the partner is
// not the cause); a slow pair neither of whose nodes is found so is
// undecided: each of its nodes needs a run with a node known to be fast.
func SlowNodes(pairs []NodePair) PairReading {
	r := PairReading{TotalPairs: len(pairs)}
	for _, p := range pairs {
		if p.BusBW > r.Best.BusBW {
			r.Best = p
		}
	}
	slow := func(p NodePair) bool { return p.BusBW < SlowFraction*r.Best.BusBW }
	fastWithOther := func(node, other string) bool {
		for _, p := range pairs {
			if !slow(p) && ((p.A == node && p.B != other) || (p.B == node && p.A != other)) {
				return true
			}
		}
		return false
	}
	var nodes []string
	for _, p := range pairs {
		for _, n := range []string{p.A, p.B} {
			if !slices.Contains(nodes, n) {
				nodes = append(nodes, n)
			}
		}
		if slow(p) {
			r.SlowPairs++
		}
	}
	for _, n := range nodes {
		found, all := false, true
		for _, p := range pairs {
			if p.A != n && p.B != n {
				continue
			}
			partner := p.A
			if partner == n {
				partner = p.B
			}
			found = true
			all = all && slow(p) && fastWithOther(partner, n)
		}
		if found && all {
			r.Slow = append(r.Slow, n)
		}
	}
	for _, p := range pairs {
		if slow(p) && !slices.Contains(r.Slow, p.A) && !slices.Contains(r.Slow, p.B) {
			r.Undecided = append(r.Undecided, p)
		}
	}
	return r
}

// Text says the reading in a few lines.
func (r PairReading) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d pairs under %.0f%% of the best (%s,%s at %g GB/s)\n", r.SlowPairs, r.TotalPairs, 100*SlowFraction, r.Best.A, r.Best.B, r.Best.BusBW)
	if len(r.Slow) > 0 {
		fmt.Fprintf(&b, "slow node(s): %s (every pair it is in is slow; each partner is fast with another node)\n", strings.Join(r.Slow, ", "))
	}
	for _, p := range r.Undecided {
		fmt.Fprintf(&b, "undecided: %s,%s at %g GB/s (neither node has been run with a node known to be fast)\n", p.A, p.B, p.BusBW)
	}
	return b.String()
}
