package nccllog

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/commlab/commlab/probes/parse"
)

// WriteSummary writes what a person reads first about an NCCL_DEBUG log: a
// line naming the input (file), then the versions, hosts, ranks, init
// timings, channels, topology, graphs, rings, transports, the algorithm and
// protocol chosen per operation (repeats folded), the tuning table, the
// environment and the warnings.
func (l *Log) WriteSummary(w io.Writer, file string) error {
	return parse.WriteBuffered(w, func(w io.Writer) {
		fmt.Fprintf(w, "%s: %d lines, %d from NCCL (%d not recognised)\n", file, l.Lines, l.NCCLLines, l.Unrecognized)
		if len(l.Versions) > 0 {
			fmt.Fprintf(w, "NCCL version: %s\n", strings.Join(l.Versions, ", "))
		}
		hosts := l.Hosts()
		if len(hosts) > 0 {
			shown := hosts
			if len(shown) > 6 {
				shown = append(append([]string{}, shown[:6]...), "...")
			}
			fmt.Fprintf(w, "hosts: %d (%s), processes: %d\n", len(hosts), strings.Join(shown, " "), len(l.Processes))
		}
		if len(l.Ranks) > 0 {
			fmt.Fprintf(w, "ranks: %d seen, communicator size up to %d\n", len(l.Ranks), l.NRanks())
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  rank\tnranks\tnodes\thost:pid\tdev\tbusId\tinit\t")
			for i, r := range l.Ranks {
				if i == 16 {
					fmt.Fprintf(tw, "  ...\t%d more\t\t\t\t\t\t\n", len(l.Ranks)-16)
					break
				}
				init := "-"
				switch {
				case r.InitComplete:
					init = "complete"
				case r.InitStarted:
					init = "started"
				}
				if r.End != "" {
					init += ", " + strings.ToLower(r.End)
				}
				fmt.Fprintf(tw, "  %d\t%d\t%d\t%s\t%d\t%s\t%s\t\n", r.Rank, r.NRanks, r.NNodes, r.Source.Process(), r.CUDADev, r.BusID, init)
			}
			tw.Flush()
		}
		for _, it := range l.InitTimings {
			var parts []string
			for _, p := range it.Phases {
				parts = append(parts, fmt.Sprintf("%s %.2f", p.Name, p.Seconds))
			}
			fmt.Fprintf(w, "init rank %d/%d: %.2f s (%s)\n", it.Rank, it.NRanks, it.TotalS, strings.Join(parts, ", "))
		}
		for _, c := range l.DistinctChannelCounts() {
			fmt.Fprintf(w, "channels: %d coll, %d collnet, %d nvls, %d p2p (%d per peer)\n", c.Coll, c.CollNet, c.NVLS, c.P2P, c.P2PPerPeer)
		}
		for _, t := range l.Topology {
			state := ""
			if !t.Complete {
				state = " (incomplete)"
			}
			fmt.Fprintf(w, "topology dump from %s: maxBw %g totalBw %g, %d nodes, %d links%s\n", t.Source.Process(), t.MaxBW, t.TotalBW, len(t.Nodes), len(t.Links), state)
			for _, ln := range t.Links {
				fmt.Fprintf(w, "  %s -%s[%g]-> %s\n", ln.From, ln.Type, ln.BW, ln.To)
			}
		}
		for _, g := range l.GraphSearches {
			fmt.Fprintf(w, "graph search: pattern %d %s, %d channels, bw %g/%g GB/s, type %s/%s\n", g.Pattern, g.PatternName, g.NChannels, g.BWIntra, g.BWInter, g.TypeIntra, g.TypeInter)
		}
		if len(l.Rings) > 0 {
			fmt.Fprintf(w, "rings: %d channel lines\n", len(l.Rings))
			for i, r := range l.Rings {
				if i == 4 {
					fmt.Fprintln(w, "  ...")
					break
				}
				fmt.Fprintf(w, "  channel %02d: %v\n", r.Channel, r.Ranks)
			}
		}
		if len(l.Trees) > 0 {
			fmt.Fprintf(w, "trees: %d (rank, channel) entries\n", len(l.Trees))
		}
		if len(l.Connections) > 0 {
			counts := l.TransportCounts()
			names := make([]string, 0, len(counts))
			for k := range counts {
				names = append(names, k)
			}
			sort.Strings(names)
			fmt.Fprintf(w, "connections: %d\n", len(l.Connections))
			for _, k := range names {
				fmt.Fprintf(w, "  %-28s %d\n", k, counts[k])
			}
		}
		if len(l.Choices) > 0 {
			fmt.Fprintln(w, "algorithm and protocol per operation (repeats folded):")
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  op\tbytes\talgo\tproto\tchannels\tmodel us\tcount\t")
			for _, c := range l.FoldedChoices() {
				ch := "-"
				if c.Choice.ChannelLo >= 0 {
					ch = fmt.Sprintf("%d..%d", c.Choice.ChannelLo, c.Choice.ChannelHi)
				}
				op := c.Choice.Op
				if op == "" {
					op = "?"
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%g\t%d\t\n", op, parse.FormatSize(c.Choice.Bytes), c.Choice.Algorithm, c.Choice.Protocol, ch, c.Choice.TimeUs, c.Count)
			}
			tw.Flush()
		}
		if len(l.Operations) > 0 {
			fmt.Fprintf(w, "collective calls: %d\n", len(l.Operations))
		}
		for _, t := range l.Tuning {
			note := ""
			if t.AlgorithmsAssumed {
				note = " (algorithm names assumed)"
			}
			fmt.Fprintf(w, "tuning table from %s: %d entries%s\n", t.Source.Process(), len(t.Entries), note)
			// AllReduce is what chapter 4 compares; other functions when the
			// table (an excerpt) lacks it. Zero bandwidth means disabled.
			fn := "AllReduce"
			if !t.HasFunction(fn) && len(t.Entries) > 0 {
				fn = t.Entries[0].Function
			}
			for _, e := range t.Entries {
				if e.Function == fn && e.BandwidthGBs > 0 {
					fmt.Fprintf(w, "  %s %-14s %-6s latency %6.1f us  bw %7.1f GB/s\n", fn, e.Algorithm, e.Protocol, e.LatencyUs, e.BandwidthGBs)
				}
			}
		}
		for _, e := range l.Env {
			fmt.Fprintf(w, "env: %s=%s\n", e.Name, e.Value)
		}
		for i, m := range l.Warnings {
			if i == 10 {
				fmt.Fprintf(w, "... %d more warnings\n", len(l.Warnings)-10)
				break
			}
			fmt.Fprintf(w, "WARN %s: %s\n", m.Source.Process(), m.Text)
		}
	})
}

// HasFunction says whether the table has entries for the collective fn
// ("AllReduce").
func (t TuningTable) HasFunction(fn string) bool {
	for _, e := range t.Entries {
		if e.Function == fn {
			return true
		}
	}
	return false
}

// FoldedChoice is a run of identical consecutive Choices: the first of
// them and how many there were.
type FoldedChoice struct {
	Choice Choice
	Count  int
}

// FoldedChoices merges consecutive choices that differ only in their
// Source: NCCL logs one line per call, and a benchmark makes the same call
// many times.
func (l *Log) FoldedChoices() []FoldedChoice {
	var out []FoldedChoice
	for _, c := range l.Choices {
		key := c
		key.Source = Source{}
		if len(out) > 0 {
			last := out[len(out)-1].Choice
			last.Source = Source{}
			if last == key {
				out[len(out)-1].Count++
				continue
			}
		}
		out = append(out, FoldedChoice{Choice: c, Count: 1})
	}
	return out
}

// DistinctChannelCounts is ChannelCounts with the repeats dropped: every
// rank prints the same counts, so the Source of each is cleared.
func (l *Log) DistinctChannelCounts() []ChannelCount {
	seen := map[ChannelCount]bool{}
	var out []ChannelCount
	for _, c := range l.ChannelCounts {
		c.Source = Source{}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}
