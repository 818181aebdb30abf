package nccllog

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/units"
)

// Sentinel errors callers branch on with errors.Is.
var (
	// ErrTruncated: the log stops inside a multi-line block (the topology
	// dump) or in the middle of a line.
	ErrTruncated = errors.New("nccllog: truncated input")
)

// Source says where a record came from: the prefix of its line.
type Source struct {
	Host string `json:"host,omitempty"`
	PID  int    `json:"pid,omitempty"`
	TID  int    `json:"tid,omitempty"`
	// Dev is the CUDA device in brackets, -1 when the line had no prefix.
	Dev  int `json:"dev"`
	Line int `json:"line"`
}

// Process is host:pid, the unit NCCL prefixes lines with.
func (s Source) Process() string { return s.Host + ":" + strconv.Itoa(s.PID) }

// Log is a parsed NCCL_DEBUG log.
type Log struct {
	// Versions are the distinct "NCCL version" banners, in order (RCCL's
	// "RCCL version 2.18.3+hip6.0" and "RCCL version : 2.21.5-HEAD:x" give
	// the version alone, and Library says RCCL).
	Versions []string `json:"versions,omitempty"`
	// Library is "RCCL" when the banner is RCCL's; "" for NCCL.
	Library string `json:"library,omitempty"`
	// Processes has one entry per host:pid that printed NCCL lines, in
	// order of first appearance.
	Processes []Process `json:"processes,omitempty"`
	// Ranks has one entry per communicator rank (host, pid, comm).
	Ranks         []Rank         `json:"ranks,omitempty"`
	Topology      []TopoDump     `json:"topology,omitempty"`
	Paths         []TopoPath     `json:"paths,omitempty"`
	GraphSearches []GraphSearch  `json:"graph_searches,omitempty"`
	Rings         []Ring         `json:"rings,omitempty"`
	RingLinks     []RingLink     `json:"ring_links,omitempty"`
	Trees         []Tree         `json:"trees,omitempty"`
	Connections   []Connection   `json:"connections,omitempty"`
	Choices       []Choice       `json:"choices,omitempty"`
	Operations    []Operation    `json:"operations,omitempty"`
	Tuning        []TuningTable  `json:"tuning,omitempty"`
	InitTimings   []InitTiming   `json:"init_timings,omitempty"`
	ChannelCounts []ChannelCount `json:"channel_counts,omitempty"`
	Env           []EnvSetting   `json:"env,omitempty"`
	Warnings      []Message      `json:"warnings,omitempty"`
	// Network is the network NCCL used and why (plugin, devices, chosen
	// network, GPUDirect RDMA, transport kinds); nil when the log has no
	// network line and no connection.
	Network   *Network `json:"network,omitempty"`
	Lines     int      `json:"lines"`
	NCCLLines int      `json:"nccl_lines"`
	// Unrecognized counts NCCL lines no record type matched (allocation
	// traces, plugin messages, ...).
	Unrecognized int `json:"unrecognized"`
	// Interleaved counts NCCL lines that began after other text on the
	// same line (a table row, another process's line cut short): output
	// of several processes written to one file at once.
	Interleaved int `json:"interleaved,omitempty"`
	// Omitted counts, per list ("connections", "trees", "choices", ...),
	// the records read but not kept because the list already held its
	// bound (a large job's log repeats them per rank and per call); the
	// summary's totals include them.
	Omitted map[string]int `json:"omitted,omitempty"`

	// What the parser tallied over every record, kept or not; nil in a
	// Log not made by Parse (one decoded from JSON), where the methods
	// count the kept records instead.
	transports map[string]int
	hostSet    map[string]bool
	folds      []FoldedChoice
}

// total is how many records of kind the log had: the kept ones and the
// omitted ones.
func (l *Log) total(kind string, kept int) int { return kept + l.Omitted[kind] }

// Total is how many records of one list the log had, kept or only counted
// (Omitted): "warnings", "connections", "trees", "rings", "ring_links",
// "choices", "operations", "ranks", ...; -1 for a name that is no list.
// A caller counting WARN lines of a large job's log reads
// Total("warnings"), not len(Warnings).
func (l *Log) Total(list string) int {
	kept := map[string]int{"processes": len(l.Processes), "ranks": len(l.Ranks), "topology": len(l.Topology), "paths": len(l.Paths),
		"graph_searches": len(l.GraphSearches), "rings": len(l.Rings), "ring_links": len(l.RingLinks), "trees": len(l.Trees),
		"connections": len(l.Connections), "choices": len(l.Choices), "operations": len(l.Operations), "tuning": len(l.Tuning),
		"init_timings": len(l.InitTimings), "channel_counts": len(l.ChannelCounts), "env": len(l.Env), "warnings": len(l.Warnings)}
	n, ok := kept[list]
	if !ok {
		return -1
	}
	return l.total(list, n)
}

// Process is one host:pid: the CUDA devices its lines named and the ranks
// it holds (one process may drive several GPUs and communicators).
type Process struct {
	Host      string `json:"host"`
	PID       int    `json:"pid"`
	Devices   []int  `json:"devices"`
	Ranks     []int  `json:"ranks,omitempty"`
	Lines     int    `json:"lines"`
	FirstLine int    `json:"first_line"`
}

// Rank is one rank of one communicator, merged from the lines that name
// it: `ncclCommInitRank comm 0x.. rank 0 nranks 8 cudaDev 0 nvmlDev 0
// busId 18000 commId 0x.. - Init START|COMPLETE`, the 2.21+ `comm 0x..
// rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0`, and
// Abort/Destroy.
type Rank struct {
	Source     Source `json:"source"`
	Comm       string `json:"comm,omitempty" table:"omitempty"`
	CommID     string `json:"comm_id,omitempty"`
	Rank       int    `json:"rank"`
	NRanks     int    `json:"nranks"`
	NNodes     int    `json:"nnodes,omitempty"`
	LocalRanks int    `json:"local_ranks,omitempty"`
	LocalRank  int    `json:"local_rank"`
	MNNVL      int    `json:"mnnvl,omitempty"`
	CUDADev    int    `json:"cuda_dev"`
	NVMLDev    int    `json:"nvml_dev"`
	BusID      string `json:"bus_id,omitempty"`
	// InitFunc is the API that created it (ncclCommInitRank, ...), when
	// printed.
	InitFunc     string `json:"init_func,omitempty"`
	InitStarted  bool   `json:"init_started,omitempty"`
	InitComplete bool   `json:"init_complete,omitempty"`
	// End is "Abort", "Destroy" or "Finalize" when the log shows it.
	End string `json:"end,omitempty"`
}

// TopoDump is the `=== System : maxBw X totalBw Y ===` block (older builds
// say maxWidth/totalWidth) that NCCL prints after topology detection.
type TopoDump struct {
	Source  Source     `json:"source"`
	MaxBW   float64    `json:"max_bw"`
	TotalBW float64    `json:"total_bw"`
	Nodes   []string   `json:"nodes"`
	Links   []TopoLink `json:"links"`
	// Complete is false when the closing "=====" line is missing;
	// HeaderMissing when the "=== System" line was (an excerpt).
	Complete      bool `json:"complete"`
	HeaderMissing bool `json:"header_missing,omitempty"`
}

// TopoLink is one `+ TYPE[bw] - NODE` line of the dump, with the node it
// hangs from (by indentation).
type TopoLink struct {
	From string `json:"from"`
	Type string `json:"type"`
	// BW is in GB/s as NCCL's topology model counts it.
	BW   float64 `json:"bw"`
	To   string  `json:"to"`
	Info string  `json:"info,omitempty"`
}

// TopoPath is one entry of the path lines after the dump:
// `GPU/0-60 :GPU/0-60 (0/5000.0/LOC) CPU/0 (1/48.0/PHB) ...`.
type TopoPath struct {
	Source Source  `json:"source"`
	From   string  `json:"from"`
	To     string  `json:"to"`
	Hops   int     `json:"hops"`
	BW     float64 `json:"bw"`
	Type   string  `json:"type"`
}

// GraphSearch is a `Pattern P, crossNic C, nChannels N, bw A/B, type
// X/Y, sameChannels S` result with its channel lines (` 0 : NET/0 GPU/1
// NET/0`).
type GraphSearch struct {
	Source       Source     `json:"source"`
	Pattern      int        `json:"pattern"`
	PatternName  string     `json:"pattern_name"`
	CrossNic     int        `json:"cross_nic"`
	NChannels    int        `json:"nchannels"`
	BWIntra      float64    `json:"bw_intra"`
	BWInter      float64    `json:"bw_inter"`
	TypeIntra    string     `json:"type_intra"`
	TypeInter    string     `json:"type_inter"`
	SameChannels int        `json:"same_channels"`
	Channels     [][]string `json:"channels,omitempty"`
}

// String reads "pattern 4 RING, 32 channels, bw 60/60 GB/s, type LOC/PIX".
func (g GraphSearch) String() string {
	return fmt.Sprintf("pattern %d %s, %d channels, bw %g/%g GB/s, type %s/%s", g.Pattern, g.PatternName, g.NChannels, g.BWIntra, g.BWInter, g.TypeIntra, g.TypeInter)
}

// Ring is the rank order of one ring channel as rank 0 prints it:
// `Channel 00/08 :    0   5   4   7 ...`.
type Ring struct {
	Source    Source `json:"source"`
	Channel   int    `json:"channel"`
	NChannels int    `json:"nchannels,omitempty"`
	Ranks     []int  `json:"ranks"`
	// Comm is the communicator when the line names it (RCCL ends its
	// lines with "comm 0x.. nRanks 08 busId ..").
	Comm string `json:"comm,omitempty" table:"omitempty"`
}

// RingLink is a rank's neighbours on one ring: `Ring 00 : 7 -> 0 -> 1`.
type RingLink struct {
	Source  Source `json:"source"`
	Channel int    `json:"channel"`
	Prev    int    `json:"prev"`
	Rank    int    `json:"rank"`
	Next    int    `json:"next"`
	Comm    string `json:"comm,omitempty" table:"omitempty"`
}

// Tree is a rank's place in one tree channel. New builds print
// `Trees [0] 2/-1/-1->1->0` (children->rank->parent) and `Tree 0 : -1 ->
// 0 -> -1/-1/-1`; old builds `Trees [0] 26->25->-1/-1/-1`
// (parent->rank->children), with `|` between the two trees of a channel.
type Tree struct {
	Source   Source `json:"source"`
	Channel  int    `json:"channel"`
	Part     int    `json:"part,omitempty"`
	Rank     int    `json:"rank"`
	Parent   int    `json:"parent"`
	Children []int  `json:"children"`
	Comm     string `json:"comm,omitempty"`
}

// Connection is one transport set up between two ranks on a channel.
type Connection struct {
	Source    Source `json:"source"`
	Channel   int    `json:"channel"`
	ConnIndex int    `json:"conn_index"`
	FromRank  int    `json:"from_rank"`
	FromDev   string `json:"from_dev,omitempty"`
	ToRank    int    `json:"to_rank"`
	ToDev     string `json:"to_dev,omitempty"`
	// Direction is "send", "receive" or "" (intra-node lines).
	Direction string `json:"direction,omitempty"`
	// Transport is the text after "via", e.g. "P2P/CUMEM/read" or
	// "NET/IB/3/GDRDMA"; Kind its first element (P2P, SHM, NET, ...).
	Transport string `json:"transport"`
	Kind      string `json:"kind"`
	Comm      string `json:"comm,omitempty"`
}

// Choice is the algorithm and protocol NCCL picked for one operation.
type Choice struct {
	Source Source `json:"source"`
	// Op is the collective ("AllReduce"); empty in builds that did not
	// print it.
	Op        string `json:"op,omitempty"`
	Bytes     int64  `json:"bytes"`
	Algorithm string `json:"algorithm"`
	Protocol  string `json:"protocol"`
	// TimeUs is NCCL's model estimate, printed by 2.23 and older.
	TimeUs    float64 `json:"time_us,omitempty"`
	ChannelLo int     `json:"channel_lo"`
	ChannelHi int     `json:"channel_hi"`
	Comm      string  `json:"comm,omitempty"`
}

// Operation is a collective call logged with NCCL_DEBUG_SUBSYS=COLL.
type Operation struct {
	Source   Source `json:"source"`
	Op       string `json:"op"`
	OpCount  string `json:"op_count"`
	Count    int64  `json:"count"`
	Datatype string `json:"datatype"`
	// Bytes is Count times the datatype size, 0 when the type is unknown.
	Bytes  int64  `json:"bytes"`
	RedOp  int    `json:"redop"`
	Root   int    `json:"root"`
	Comm   string `json:"comm"`
	NRanks int    `json:"nranks"`
}

// TuningTable is the latency/bandwidth table rank 0 prints at init with
// NCCL_DEBUG_SUBSYS=TUNING.
type TuningTable struct {
	Source  Source        `json:"source"`
	Entries []TuningEntry `json:"entries"`
	// AlgorithmsAssumed is set when the table's Algorithm line was missing
	// and NCCL's algorithm order (Tree, Ring, CollNetDirect, CollNetChain,
	// NVLS, NVLSTree, PAT) was assumed.
	AlgorithmsAssumed bool `json:"algorithms_assumed,omitempty"`
}

// TuningEntry is one cell: the model's latency (us) and bandwidth (GB/s)
// of an algorithm and protocol for a function.
type TuningEntry struct {
	Function     string  `json:"function"`
	Algorithm    string  `json:"algorithm"`
	Protocol     string  `json:"protocol"`
	LatencyUs    float64 `json:"latency_us"`
	BandwidthGBs float64 `json:"bandwidth_gbs"`
	MaxThreads   int     `json:"max_threads,omitempty"`
}

// InitTiming is `Init timings - ncclCommInitRankConfig: rank 0 nranks 1
// total 0.43 (kernels 0.40, alloc 0.00, ...)` (2.23+), in seconds.
type InitTiming struct {
	Source Source  `json:"source"`
	Func   string  `json:"func,omitempty"`
	Rank   int     `json:"rank"`
	NRanks int     `json:"nranks"`
	TotalS float64 `json:"total_s"`
	Phases []Phase `json:"phases"`
}

// Phase is one named part of an init timing.
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// ChannelCount is `4 coll channels, 4 collnet channels, 0 nvls channels,
// 4 p2p channels, 2 p2p channels per peer`.
type ChannelCount struct {
	Source     Source `json:"source"`
	Coll       int    `json:"coll"`
	CollNet    int    `json:"collnet"`
	NVLS       int    `json:"nvls"`
	P2P        int    `json:"p2p"`
	P2PPerPeer int    `json:"p2p_per_peer"`
}

// EnvSetting is `NCCL_ALGO set by environment to Ring`.
type EnvSetting struct {
	Source Source `json:"source"`
	Name   string `json:"name"`
	Value  string `json:"value"`
}

// Message is a WARN line.
type Message struct {
	Source Source `json:"source"`
	// Where is the "file.cc:123" NCCL printed before WARN, if any.
	Where string `json:"where,omitempty"`
	Text  string `json:"text"`
}

// Hosts returns the distinct hosts that printed lines, sorted.
func (l *Log) Hosts() []string {
	if l.hostSet != nil {
		return slices.Sorted(maps.Keys(l.hostSet))
	}
	seen := map[string]bool{}
	add := func(s Source) {
		if s.Host != "" {
			seen[s.Host] = true
		}
	}
	for _, r := range l.Ranks {
		add(r.Source)
	}
	for _, c := range l.Connections {
		add(c.Source)
	}
	for _, t := range l.Trees {
		add(t.Source)
	}
	for _, r := range l.Rings {
		add(r.Source)
	}
	return slices.Sorted(maps.Keys(seen))
}

// NRanks is the largest communicator size the log reports, 0 if none.
func (l *Log) NRanks() int {
	n := 0
	for _, r := range l.Ranks {
		n = max(n, r.NRanks)
	}
	return n
}

// TransportCounts counts connections by transport (e.g.
// "P2P/CUMEM/read": 56, "NET/IB/0/GDRDMA": 8).
func (l *Log) TransportCounts() map[string]int {
	if l.transports != nil {
		return maps.Clone(l.transports)
	}
	out := map[string]int{}
	for _, c := range l.Connections {
		out[c.Transport]++
	}
	return out
}

// ChoicesFor returns the choices logged for one operation ("AllReduce";
// case and underscores ignored, so "all_reduce" works), in log order.
// Choices whose line did not name the operation (older builds) match any
// op.
func (l *Log) ChoicesFor(op string) []Choice {
	want := normalizeOp(op)
	var out []Choice
	for _, c := range l.Choices {
		if c.Op == "" || normalizeOp(c.Op) == want {
			out = append(out, c)
		}
	}
	return out
}

// Lookup returns the cell of a tuning table for a function, algorithm and
// protocol, with the same name normalisation as the parser ("Ring",
// "RING", "1" for algorithms; "Simple", "SIMPLE", "2" for protocols).
func (t *TuningTable) Lookup(function, algorithm, protocol string) (TuningEntry, bool) {
	fn, algo, proto := normalizeOp(function), canonicalAlgo(algorithm), canonicalProto(protocol)
	for _, e := range t.Entries {
		if normalizeOp(e.Function) == fn && e.Algorithm == algo && e.Protocol == proto {
			return e, true
		}
	}
	return TuningEntry{}, false
}

func normalizeOp(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "_", ""))
}

// WriteSummary writes what a person reads first about an NCCL_DEBUG log: a
// line naming the input (file), then the versions, hosts, ranks, init
// timings, channels, topology, graphs, rings, transports, the algorithm and
// protocol chosen per operation (repeats folded), the tuning table, the
// environment, the network NCCL used and why, and the warnings.
func (l *Log) WriteSummary(w io.Writer, file string) error {
	return parse.WriteBuffered(w, func(w io.Writer) {
		fmt.Fprintf(w, "%s: %d lines, %d from NCCL (%d not recognised)\n", file, l.Lines, l.NCCLLines, l.Unrecognized)
		if len(l.Versions) > 0 {
			lib := "NCCL"
			if l.Library != "" {
				lib = l.Library
			}
			fmt.Fprintf(w, "%s version: %s\n", lib, strings.Join(l.Versions, ", "))
		}
		if l.Interleaved > 0 {
			fmt.Fprintf(w, "%d NCCL line(s) began after other text on their line (processes writing to one file at once); read from their prefix on\n", l.Interleaved)
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
			fmt.Fprintf(w, "ranks: %d seen, communicator size up to %d\n", l.total("ranks", len(l.Ranks)), l.NRanks())
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  rank\tnranks\tnodes\thost:pid\tdev\tbusId\tinit\t")
			for i, r := range l.Ranks {
				if i == 16 {
					fmt.Fprintf(tw, "  ...\t%d more\t\t\t\t\t\t\n", l.total("ranks", len(l.Ranks))-16)
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
			fmt.Fprintf(w, "graph search: %s\n", g)
		}
		if len(l.Rings) > 0 {
			fmt.Fprintf(w, "rings: %d channel lines\n", l.total("rings", len(l.Rings)))
			for i, r := range l.Rings {
				if i == 4 {
					fmt.Fprintln(w, "  ...")
					break
				}
				fmt.Fprintf(w, "  channel %02d: %v\n", r.Channel, r.Ranks)
			}
		}
		if len(l.Trees) > 0 {
			fmt.Fprintf(w, "trees: %d (rank, channel) entries\n", l.total("trees", len(l.Trees)))
		}
		if len(l.Connections) > 0 {
			counts := l.TransportCounts()
			fmt.Fprintf(w, "connections: %d\n", l.total("connections", len(l.Connections)))
			for _, k := range slices.Sorted(maps.Keys(counts)) {
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
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%g\t%d\t\n", op, units.FormatSize(c.Choice.Bytes), c.Choice.Algorithm, c.Choice.Protocol, ch, c.Choice.TimeUs, c.Count)
			}
			tw.Flush()
		}
		if len(l.Operations) > 0 {
			fmt.Fprintf(w, "collective calls: %d\n", l.total("operations", len(l.Operations)))
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
		if l.Network != nil {
			l.Network.writeSummary(w)
		}
		if len(l.Omitted) > 0 {
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(l.Omitted)) {
				parts = append(parts, fmt.Sprintf("%s %d", k, l.Omitted[k]))
			}
			fmt.Fprintf(w, "counted but not kept (each list keeps its first %d records): %s\n", maxRecords, strings.Join(parts, ", "))
		}
		for i, m := range l.Warnings {
			if i == 10 {
				fmt.Fprintf(w, "... %d more warnings\n", l.total("warnings", len(l.Warnings))-10)
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
	if l.transports != nil { // made by Parse, which folded every choice
		return slices.Clone(l.folds)
	}
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
