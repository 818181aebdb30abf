package flightrec

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

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
			phrase := fmt.Sprintf("%s %s waiting in %s #%d", RanksPhrase(waiting), verbFor(waiting, "is", "are"), g.StuckOp, g.StuckSeq)
			if g.NoEvents {
				phrase = fmt.Sprintf("%s called %s #%d (%s records no completion)", RanksPhrase(waiting), g.StuckOp, g.StuckSeq, orBackend(g.Backend))
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
		return fmt.Sprintf("pg %s: %s called every collective up to #%d alike (%s records no completion)", label, RanksPhrase(present), last, orBackend(g.Backend))
	}
	if len(parts) == 0 {
		var last int64
		for _, r := range present {
			if s := views[r].state; s.LastCompleted > last {
				last = s.LastCompleted
			}
		}
		if last == 0 {
			return fmt.Sprintf("pg %s: %s recorded no collective", label, RanksPhrase(present))
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

// RanksPhrase writes "rank 3" or "ranks 0-2,4-7".
func RanksPhrase(ranks []int) string {
	if len(ranks) == 1 {
		return fmt.Sprintf("rank %d", ranks[0])
	}
	return "ranks " + RankRanges(ranks)
}

// Pronoun is the subject pronoun for ranks, as the findings' sentences use
// it: "it" for one rank, "they" for several ("did they crash or get
// killed?").
func Pronoun(ranks []int) string {
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
