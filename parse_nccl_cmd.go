package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/commlab/commlab/probes/parse/nccllog"
	"github.com/commlab/commlab/probes/parse/nccltests"
	"github.com/commlab/commlab/probes/parse/ncclxml"
	"github.com/commlab/commlab/units"
)

// `commlab parse nccl-tests|nccl-log|nccl-xml FILE... [--json]`: readable
// summaries of nccl-tests output, NCCL_DEBUG logs and NCCL's topology and
// graph XML, or the parsed data as JSON. A file that fails to parse still
// shows what was read; the command then exits 1 with the error naming the
// file and line.

func init() {
	registerParseFormat(parseFormat{
		name:    "nccl-tests",
		summary: "nccl-tests text output (any version, NCCL_DEBUG lines allowed) or its -J JSON file",
		run:     runParseNCCLTests,
	})
	registerParseFormat(parseFormat{
		name:    "nccl-log",
		summary: "NCCL_DEBUG=INFO logs (many ranks and hosts per file)",
		run:     runParseNCCLLog,
	})
	registerParseFormat(parseFormat{
		name:    "nccl-xml",
		summary: "NCCL_TOPO_DUMP_FILE / NCCL_GRAPH_DUMP_FILE XML",
		run:     runParseNCCLXML,
	})
}

// ---- nccl-tests

func runParseNCCLTests(files []string, jsonOut bool, stdout io.Writer) error {
	return runFormat(files, jsonOut, stdout, "result", nccltests.Parse, writeNCCLTestsSummary)
}

func writeNCCLTestsSummary(w io.Writer, file string, res *nccltests.Result) {
	fmt.Fprintf(w, "%s: nccl-tests %s output, %d run(s)\n", file, res.Format, len(res.Runs))
	for _, run := range res.Runs {
		name := run.Program
		if name == "" {
			name = "(benchmark not named in the output)"
		}
		var about []string
		if run.TestsVersion != "" {
			about = append(about, "nccl-tests "+run.TestsVersion)
		}
		if v := run.LibraryVersion(); v != "" {
			about = append(about, "NCCL "+v)
		}
		hosts := map[string]bool{}
		for _, d := range run.Devices {
			hosts[d.Host] = true
		}
		if n := run.NRanks(); n > 0 {
			about = append(about, fmt.Sprintf("%d ranks on %d host(s)", n, max(1, len(hosts))))
		}
		fmt.Fprintf(w, "\n%s", name)
		if len(about) > 0 {
			fmt.Fprintf(w, " (%s)", strings.Join(about, ", "))
		}
		fmt.Fprintln(w)
		if len(run.Devices) > 0 {
			fmt.Fprintf(w, "devices: %s", run.Devices[0].Name)
			if len(run.Devices) > 1 {
				fmt.Fprintf(w, " ... %s", run.Devices[len(run.Devices)-1].Name)
			}
			fmt.Fprintln(w)
		}
		if f, err := run.BusBWFactor(); err == nil {
			fmt.Fprintf(w, "busbw = algbw x %.4g (%s on %d ranks)\n", f, run.Collective, run.NRanks())
		}
		if len(run.Rows) == 0 {
			fmt.Fprintln(w, "no rows")
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "size\ttype\top\ttime us\talgbw GB/s\tbusbw GB/s\tin-place us\tin-place busbw\twrong\t")
		for _, r := range run.Rows {
			wrong := fmt.Sprintf("%g", r.OutOfPlace.Wrong+r.InPlace.Wrong)
			if r.OutOfPlace.WrongNA {
				wrong = "N/A"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t\n", ncclHumanBytes(r.SizeBytes), r.Type, r.RedOp,
				r.OutOfPlace.TimeUs, r.OutOfPlace.AlgBW, r.OutOfPlace.BusBW, r.InPlace.TimeUs, r.InPlace.BusBW, wrong)
		}
		tw.Flush()
		if run.HasFooter {
			fmt.Fprintf(w, "avg bus bandwidth %.4g GB/s (mean of the rows %.4g); out of bounds %d\n", run.AvgBusBW, run.MeanBusBW(), run.OutOfBounds)
		} else {
			fmt.Fprintf(w, "no footer (output cut short); mean busbw of the rows %.4g GB/s\n", run.MeanBusBW())
		}
		for _, warn := range run.Warnings {
			fmt.Fprintln(w, "NCCL WARN", warn)
		}
	}
}

// ncclHumanBytes prints a size exactly and briefly (units.FormatSize):
// 1048576 as "1 MiB", 1000 as "1 KB".
func ncclHumanBytes(n int64) string { return units.FormatSize(n) }

// ---- nccl-log

func runParseNCCLLog(files []string, jsonOut bool, stdout io.Writer) error {
	return runFormat(files, jsonOut, stdout, "log", nccllog.Parse, writeNCCLLogSummary)
}

func writeNCCLLogSummary(w io.Writer, file string, l *nccllog.Log) {
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
	for _, c := range ncclUniqueChannelCounts(l.ChannelCounts) {
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
		for _, c := range ncclFoldChoices(l.Choices) {
			ch := "-"
			if c.choice.ChannelLo >= 0 {
				ch = fmt.Sprintf("%d..%d", c.choice.ChannelLo, c.choice.ChannelHi)
			}
			op := c.choice.Op
			if op == "" {
				op = "?"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%g\t%d\t\n", op, ncclHumanBytes(c.choice.Bytes), c.choice.Algorithm, c.choice.Protocol, ch, c.choice.TimeUs, c.n)
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
		if !ncclTableHas(t, fn) && len(t.Entries) > 0 {
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
}

func ncclTableHas(t nccllog.TuningTable, fn string) bool {
	for _, e := range t.Entries {
		if e.Function == fn {
			return true
		}
	}
	return false
}

type ncclFolded struct {
	choice nccllog.Choice
	n      int
}

// ncclFoldChoices merges consecutive identical choices: NCCL logs one line
// per call, and a benchmark makes the same call many times.
func ncclFoldChoices(cs []nccllog.Choice) []ncclFolded {
	var out []ncclFolded
	for _, c := range cs {
		key := c
		key.Source = nccllog.Source{}
		if len(out) > 0 {
			last := out[len(out)-1].choice
			last.Source = nccllog.Source{}
			if last == key {
				out[len(out)-1].n++
				continue
			}
		}
		out = append(out, ncclFolded{choice: c, n: 1})
	}
	return out
}

func ncclUniqueChannelCounts(cs []nccllog.ChannelCount) []nccllog.ChannelCount {
	seen := map[nccllog.ChannelCount]bool{}
	var out []nccllog.ChannelCount
	for _, c := range cs {
		c.Source = nccllog.Source{}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// ---- nccl-xml

func runParseNCCLXML(files []string, jsonOut bool, stdout io.Writer) error {
	return runFormat(files, jsonOut, stdout, "document", ncclxml.Parse, writeNCCLXMLSummary)
}

func writeNCCLXMLSummary(w io.Writer, file string, doc *ncclxml.Document) {
	switch {
	case doc.System != nil:
		sys := doc.System
		fmt.Fprintf(w, "%s: NCCL topology, %d CPU (NUMA) node(s)\n", file, len(sys.CPUs))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  GPU\tbusId\tsm\tnuma\tlink\tnvlinks\tpath\t")
		for _, g := range sys.GPUs() {
			links := 0
			for _, l := range g.NVLinks {
				links += l.Count
			}
			dev := "?"
			if g.Dev >= 0 {
				dev = fmt.Sprint(g.Dev)
			}
			link := strings.TrimSpace(g.LinkSpeed)
			if g.LinkWidth > 0 {
				link += fmt.Sprintf(" x%d", g.LinkWidth)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\t%d\t%s\t\n", dev, g.BusID, g.SM, g.NUMA, link, links, strings.Join(g.Path, " > "))
		}
		tw.Flush()
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  NIC\tbusId\tnuma\tspeed\tport\tgdr\t")
		for _, n := range sys.NICs() {
			name := n.Net.Name
			if name == "" {
				name = "(pci)"
			}
			speed := "-"
			if n.Net.Speed > 0 {
				speed = fmt.Sprintf("%g Gb/s", float64(n.Net.Speed)/1000)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%d\t%d\t\n", name, n.BusID, n.NUMA, speed, n.Net.Port, n.Net.GDR)
		}
		tw.Flush()
	case doc.Graphs != nil:
		fmt.Fprintf(w, "%s: NCCL graphs, %d graph(s)\n", file, len(doc.Graphs.Graphs))
		for _, g := range doc.Graphs.Graphs {
			fmt.Fprintf(w, "  graph %d: pattern %d %s, %d channels, speed %g/%g GB/s, type %s/%s, crossNic %d\n",
				g.ID, g.Pattern, g.PatternName, g.NChannels, g.SpeedIntra, g.SpeedInter, g.TypeIntra, g.TypeInter, g.CrossNic)
			for i, ch := range g.Channels {
				if i == 4 {
					fmt.Fprintf(w, "    ... %d more channels\n", len(g.Channels)-4)
					break
				}
				var steps []string
				for _, s := range ch.Steps {
					steps = append(steps, fmt.Sprintf("%s/%d", strings.ToUpper(s.Kind), s.Dev))
				}
				fmt.Fprintf(w, "    channel %d: %s\n", i, strings.Join(steps, " "))
			}
		}
	default:
		fmt.Fprintf(w, "%s: not an NCCL topology or graph file (root <%s>)\n", file, doc.Root)
	}
}
