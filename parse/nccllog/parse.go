package nccllog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/internal/launcher"
)

const maxLine = 1 << 20

var (
	// A wrapper's "[0] " before a full NCCL prefix (the "[dev]" of a
	// prefix without a host stays).
	reRankTag = regexp.MustCompile(`^\[\d+\] (?:\S+:\d+:\d+ \[\d+\] )`)
	// host:pid:tid [dev] [file.cc:123 ]NCCL LEVEL message. The prefix is
	// optional: logs pasted with hosts removed keep "[dev] NCCL INFO" or
	// only "NCCL INFO".
	reNCCLLevel  = regexp.MustCompile(`^NCCL (INFO|WARN|TRACE|ABORT)(?: |$)`)
	reNCCLPrefix = regexp.MustCompile(`(?:(?:(\S+):(\d+):(\d+) )?\[(\d+)\] )?(?:((?:[A-Za-z_]\w* )?\S*\(\S*:\d+|\S+:\d+) )?$`)
	// A full prefix inside a message: another process's line glued on.
	reNestedLine = regexp.MustCompile(`\S+:\d+:\d+ \[\d+\] (?:\S+:\d+ )?NCCL (?:INFO|WARN) `)
	// pdsh's "host: " before a line: a label, not another process's text.
	reHostLabel = regexp.MustCompile(`^\s*[A-Za-z0-9][\w.-]*:\s+$`)
	// Text a table row leaves glued to a host name: "-1node7", "0.00node7".
	reGluedJunk = regexp.MustCompile(`^(?:-?\d+(?:\.\d+)?(?:e[+-]\d+)?|N/A)+([A-Za-z].*)$`)
	// RCCL's lines end in the communicator: "... comm 0x5f nRanks 08 busId c8000".
	reCommSuffix = regexp.MustCompile(`^ comm (0x[0-9a-fA-F]+|\(nil\)) nRanks (\d+)(?: busId [0-9a-fA-F]+)?\s*$`)

	// "NCCL version 2.9.6+cuda11.2", "RCCL version 2.18.3+hip6.0 HEAD:x",
	// "RCCL version : 2.21.5-HEAD:9a0e6a1".
	reVersion = regexp.MustCompile(`^([NR]CCL) version(?: :)? (\S+)`)
	// "comm 0x.. rank 0 nranks 8 cudaDev 0 nvmlDev 0 - Init COMPLETE" (2.4),
	// "... cudaDev 0 busId 1a000 - Init COMPLETE" (2.7 to 2.14), "... busId
	// 1a000 commId 0x.. - Init COMPLETE" (2.16), "ncclCommInitRank comm ..
	// nvmlDev 0 busId .. commId .. - Init START" (2.18+), "ncclCommSplit
	// ... parent 0x.. color 0 key 0 commId .." and RCCL's "localSize ..".
	reInitRank   = regexp.MustCompile(`^(?:(\w+) )?comm (0x[0-9a-fA-F]+|\(nil\)) rank (\d+) nranks (\d+) cudaDev (\d+)(?: nvmlDev (\d+))?(?: busId ([0-9a-fA-F]+))?(?: parent \S+ color -?\d+ key -?\d+)?(?: commId (0x[0-9a-fA-F]+))?.*?\s*- ?Init (START|COMPLETE)`)
	reCommInfo   = regexp.MustCompile(`^comm (0x[0-9a-fA-F]+) rank (\d+) nRanks (\d+) nNodes (\d+) localRanks (\d+) localRank (\d+)(?: MNNVL (\d+))?`)
	reCommEnd    = regexp.MustCompile(`^comm (0x[0-9a-fA-F]+) rank (\d+) n[Rr]anks (\d+) cudaDev (\d+)(?: busId ([0-9a-fA-F]+))? - (Abort|Destroy|Finalize) (?:START|COMPLETE)`)
	reSystem     = regexp.MustCompile(`^=== System : max(?:Bw|Width) ([\d.]+) total(?:Bw|Width) ([\d.]+) ===`)
	reTopoLink   = regexp.MustCompile(`^( *)\+ (\w+)\[([\d.]+)\] - (\S+)(?: \((.*)\))?\s*$`)
	reTopoNode   = regexp.MustCompile(`^(\w+/[0-9A-Za-z-]+)(?: \((.*)\))?\s*$`)
	rePathHead   = regexp.MustCompile(`^(\w+/[0-9A-Za-z-]+) :(.*)$`)
	rePathEntry  = regexp.MustCompile(`(\w+/[0-9A-Za-z-]+) \((\d+)/([\d.]+)/(\w+)\)`)
	rePattern    = regexp.MustCompile(`^Pattern (\d+), crossNic (\d+), nChannels (\d+), (?:bw|speed) ([\d.]+)/([\d.]+), type (\w+)/(\w+), sameChannels (\d+)`)
	reGraphChan  = regexp.MustCompile(`^\s*(\d+) : ((?:\w+/[0-9A-Za-z-]+\s*)+)$`)
	reRing       = regexp.MustCompile(`^(?:Channel|Ring) (\d+)(?:/(\d+))? :((?:\s+\d+)+)\s*$`)
	reRingLink   = regexp.MustCompile(`^Ring (\d+) : (-?\d+) -> (-?\d+) -> (-?\d+)\s*$`)
	reTrees      = regexp.MustCompile(`^Trees((?: \[\d+\] \S+)+)\s*$`)
	reTreeEntry  = regexp.MustCompile(`\[(\d+)\] (\S+)`)
	reTreeOne    = regexp.MustCompile(`^Tree (\d+) : (-?\d+) -> (-?\d+) -> (-?\d+(?:/-?\d+)*)\s*$`)
	reConnection = regexp.MustCompile(`^(?:Channel|Ring) (\d+)(?:/(\d+))? : (\d+)(?:\[([0-9a-fA-F]+)\])? -> (\d+)(?:\[([0-9a-fA-F]+)\])?(?: \[(send|receive)\])? via (\S+(?: \S+)*)\s*$`)
	reChoice     = regexp.MustCompile(`^(?:(\w+): )?(\d+) Bytes -> Algo (\w+) proto (\w+)(?: time ([\d.]+))?(?: channel\{Lo\.\.Hi\}=\{(\d+)\.\.(\d+)\})?(?: comm (\S+))?`)
	reOperation  = regexp.MustCompile(`^(\w+): opCount ([0-9a-fA-Fx]+) sendbuff \S+ recvbuff \S+ count (\d+) datatype (\d+) op (\d+) root (-?\d+) comm (\S+) \[nranks=(\d+)\]`)
	reInitTiming = regexp.MustCompile(`^Init timings(?: - (\w+))?: rank (\d+) nranks (\d+) total ([\d.]+) \((.*)\)`)
	rePhase      = regexp.MustCompile(`(\w+) ([\d.]+)`)
	reChanCount  = regexp.MustCompile(`^(?:comm \S+,? )?(\d+) coll channels, (?:(\d+) collnet channels, )?(?:(\d+) nvls channels, )?(\d+) p2p channels, (\d+) p2p channels per peer`)
	reEnv        = regexp.MustCompile(`^(NCCL_\w+) set by environment to (.*)$`)
	reTableHead  = regexp.MustCompile(`^\s*(Algorithm|Protocol|Latency/AlgBw|Max NThreads)\s*\|(.*)$`)
	reTableRow   = regexp.MustCompile(`^\s*(\w+)\s*\|((?:\s*[\d.]+/\s*[\d.]+\s*\|)+)\s*$`)
)

// Pattern names from NCCL src/graph/topo.h (NCCL_TOPO_PATTERN_*).
var patternNames = map[int]string{1: "BALANCED_TREE", 2: "SPLIT_TREE", 3: "TREE", 4: "RING", 5: "NVLS", 6: "COLLNET_DIRECT"}

// Numeric algorithm and protocol ids printed by 2.23 and older builds
// (NCCL_ALGO_* and NCCL_PROTO_* in src/include/nccl_common.h / device.h).
var (
	algoByID  = []string{"TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"}
	protoByID = []string{"LL", "LL128", "SIMPLE"}
	// ncclDataType_t order and sizes (nccl.h).
	datatypes = []struct {
		name string
		size int64
	}{{"int8", 1}, {"uint8", 1}, {"int32", 4}, {"uint32", 4}, {"int64", 8}, {"uint64", 8},
		{"float16", 2}, {"float32", 4}, {"float64", 8}, {"bfloat16", 2}, {"float8e4m3", 1}, {"float8e5m2", 1}}
)

// canonicalAlgo maps the spellings NCCL used over the years ("Tree",
// "CollNetDirect", "COLLNET_DIRECT", "1") to one name.
func canonicalAlgo(s string) string {
	if n, err := strconv.Atoi(s); err == nil {
		if n >= 0 && n < len(algoByID) {
			return algoByID[n]
		}
		return "ALGO_" + s
	}
	switch k := strings.ToUpper(strings.ReplaceAll(s, "_", "")); k {
	case "COLLNETDIRECT", "COLLNET":
		return "COLLNET_DIRECT"
	case "COLLNETCHAIN":
		return "COLLNET_CHAIN"
	case "NVLSTREE":
		return "NVLS_TREE"
	default:
		return k
	}
}

func canonicalProto(s string) string {
	if n, err := strconv.Atoi(s); err == nil {
		if n >= 0 && n < len(protoByID) {
			return protoByID[n]
		}
		return "PROTO_" + s
	}
	return strings.ToUpper(s)
}

type parser struct {
	log    *Log
	errs   []error
	lineNo int
	// open topology dump per process (index into log.Topology) and the
	// indentation stack of its nodes.
	dump      map[string]int
	dumpStack map[string][]stackEntry
	// last graph search per process:tid, for its channel lines.
	lastSearch map[string]int
	// tuning table being filled per process:tid.
	table map[string]*tableState
	// rank index per host:pid:comm.
	rankIdx  map[string]int
	versions map[string]bool
	procIdx  map[string]int
	// network lines seen so far (nil until the first).
	net *netState
	// hosts seen at the start of a line, to mend glued host names.
	hosts map[string]bool
	// discardedDump takes the lines of a topology dump past the kept
	// ones; scratchRank a rank past the kept ones.
	discardedDump TopoDump
	scratchRank   Rank
	// netWarnings are the distinct network WARN texts; netWarn is set by
	// the first network WARN line.
	netWarnings []string
	netWarn     bool
}

type stackEntry struct {
	indent int
	node   string
}

type tableState struct {
	index   int
	algos   []string
	protos  []string
	threads []int
	// fromOldHeader: cells were named by a `Latency/AlgBw` header.
	cells []string
}

// Parse reads an NCCL debug log. On an error it still returns what parsed.
func Parse(r io.Reader) (*Log, error) {
	p := &parser{
		log:        &Log{},
		dump:       map[string]int{},
		dumpStack:  map[string][]stackEntry{},
		lastSearch: map[string]int{},
		table:      map[string]*tableState{},
		rankIdx:    map[string]int{},
		versions:   map[string]bool{},
		procIdx:    map[string]int{},
		hosts:      map[string]bool{},
	}
	p.log.transports = map[string]int{}
	p.log.hostSet = map[string]bool{}
	br := bufio.NewReaderSize(r, 64*1024)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			p.lineNo++
			complete := strings.HasSuffix(line, "\n")
			p.line(strings.TrimRight(line, "\r\n"), complete)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			p.errs = append(p.errs, &parse.Error{Format: "nccllog", Line: p.lineNo + 1, Err: fmt.Errorf("nccllog: read: %w", err)})
			break
		}
		if len(line) > maxLine {
			p.errs = append(p.errs, &parse.Error{Format: "nccllog", Line: p.lineNo, Err: errors.New("nccllog: line too long")})
		}
	}
	p.finish()
	return p.log, errors.Join(p.errs...)
}

// splitNCCLLine finds "NCCL INFO" (or WARN, ...) and the optional
// "host:pid:tid [dev] file.cc:12 " prefix before it. It returns
// [_, host, pid, tid, dev, where, level, message] like a regexp submatch,
// or nil, and where the prefix starts in text. Searching for the level
// first keeps the common case cheap.
func splitNCCLLine(text string) ([]string, int) {
	for from := 0; from < len(text); {
		i := strings.Index(text[from:], "NCCL ")
		if i < 0 {
			return nil, 0
		}
		at := from + i
		// The level is at most 11 bytes with its space: look no further, so
		// a line full of "NCCL " stays linear.
		if lv := reNCCLLevel.FindStringSubmatchIndex(text[at:min(len(text), at+12)]); lv != nil {
			out := make([]string, 8)
			var start int
			start, out[1], out[2], out[3], out[4], out[5] = splitPrefix(text[:at])
			out[6] = text[at+lv[2] : at+lv[3]]
			if end := at + lv[1]; end < len(text) {
				out[7] = text[end:]
			}
			return out, start
		}
		from = at + len("NCCL ")
	}
	return nil, 0
}

func stripLauncherPrefix(s string) string {
	s, _ = launcher.Strip(s)
	if loc := reRankTag.FindStringIndex(s); loc != nil {
		s = s[strings.IndexByte(s, ' ')+1:]
	}
	return s
}

func (p *parser) line(raw string, complete bool) {
	p.log.Lines++
	p.record(stripLauncherPrefix(raw), complete, false)
}

// record reads one NCCL line, or the NCCL lines that several processes
// wrote into one line of the file.
func (p *parser) record(text string, complete, glued bool) {
	m, start := splitNCCLLine(text)
	if m == nil {
		// "NCCL version 2.9.6+cuda11.2" printed bare at WARN level, and
		// RCCL's "RCCL version : 2.21.5-HEAD:x" block.
		if v := reVersion.FindStringSubmatch(strings.TrimSpace(text)); v != nil {
			p.log.NCCLLines++
			p.version(v[1], v[2])
		}
		return
	}
	p.log.NCCLLines++
	level, msg := m[6], m[7]
	glued = glued || (strings.TrimSpace(text[:start]) != "" && !reHostLabel.MatchString(text[:start]))
	if glued {
		p.log.Interleaved++
	}
	host := p.hostName(m[1], glued)
	// Another process's line that began before this one ended: read this
	// one up to it, then that one.
	if loc := findNestedLine(msg); loc != nil && level != "WARN" {
		at := loc[0] + p.gluedHostStart(msg[loc[0]:])
		defer p.record(msg[at:], complete, true)
		msg = msg[:at]
		complete = true // cut by the other line, not by the end of input
	}
	src := Source{Host: host, PID: parse.Int(m[2]), TID: parse.Int(m[3]), Dev: -1, Line: p.lineNo}
	if m[4] != "" {
		src.Dev = parse.Int(m[4])
	}
	if src.Host != "" {
		p.process(src)
	}
	if level == "WARN" {
		w := Message{Source: src, Where: m[5], Text: strings.TrimSpace(msg)}
		p.networkWarning(w.Text)
		keep(p.log, "warnings", &p.log.Warnings, w)
		return
	}
	if level != "INFO" {
		p.log.Unrecognized++
		return
	}
	if !p.info(src, msg) {
		p.log.Unrecognized++
		if !complete && looksStructured(msg) {
			p.errs = append(p.errs, &parse.Error{Format: "nccllog", Line: p.lineNo, Err: fmt.Errorf("%w: last line ends mid-record: %q", ErrTruncated, msg)})
		}
	}
}

// gluedHostStart is where the host name starts in text, a prefix
// "host:pid:tid [dev] NCCL ..." with other text glued before the host.
func (p *parser) gluedHostStart(text string) int {
	return p.hostStart(text[:max(0, strings.IndexByte(text, ':'))])
}

// hostStart is where a host name with other text glued before it starts
// in tok: after the longest known host tok ends with, else after a glued
// number ("-1node7", "0.00node7"), else 0.
func (p *parser) hostStart(tok string) int {
	best := ""
	for h := range p.hosts {
		if len(h) > len(best) && strings.HasSuffix(tok, h) {
			best = h
		}
	}
	if best != "" {
		return len(tok) - len(best)
	}
	if m := reGluedJunk.FindStringSubmatchIndex(tok); m != nil {
		return m[2]
	}
	return 0
}

// hostName is the host of a line's prefix. A prefix that follows other
// text on its line (a table row, another process's line) may have that
// text's last field glued to the host: hostStart mends it. Hosts of
// prefixes that start their line are the known ones.
func (p *parser) hostName(host string, glued bool) string {
	if host == "" {
		return ""
	}
	if !glued || p.hosts[host] {
		p.hosts[host] = true
		return host
	}
	return host[p.hostStart(host):]
}

// looksStructured: a message that starts like a record this package
// parses, so failing to parse it at the end of input means it was cut.
func looksStructured(msg string) bool {
	for _, k := range []string{"Channel ", "Ring ", "Trees ", "Tree ", "Pattern ", "comm ", "Init timings", "+ ", "=== System"} {
		if strings.HasPrefix(strings.TrimSpace(msg), strings.TrimSpace(k)) {
			return true
		}
	}
	return strings.Contains(msg, "Bytes -> Algo")
}

func (p *parser) version(library, v string) {
	if library == "RCCL" {
		p.log.Library = "RCCL"
	}
	if !p.versions[v] {
		p.versions[v] = true
		p.log.Versions = append(p.log.Versions, v)
	}
}

// info dispatches one INFO message; it reports whether a record matched.
func (p *parser) info(src Source, msg string) bool {
	proc := src.Process()
	thread := proc + ":" + strconv.Itoa(src.TID)
	// Inside a topology dump, lines belong to it until the closing rule.
	if idx, open := p.dump[proc]; open {
		if p.dumpLine(proc, idx, msg) {
			return true
		}
	} else if (strings.Contains(msg, "+ ") && reTopoLink.MatchString(msg)) || (strings.HasPrefix(strings.TrimSpace(msg), "CPU/") && reTopoNode.MatchString(strings.TrimSpace(msg))) {
		// Dump lines without the "=== System" header (an excerpt).
		p.dump[proc] = p.openDump(TopoDump{Source: src, HeaderMissing: true})
		p.dumpStack[proc] = nil
		return p.dumpLine(proc, p.dump[proc], msg)
	}
	trimmed := strings.TrimSpace(msg)
	comm := ""
	if i := strings.LastIndex(trimmed, " comm "); i > 0 {
		if m := reCommSuffix.FindStringSubmatch(trimmed[i:]); m != nil {
			comm, trimmed = m[1], trimmed[:i]
		}
	}
	if m := guarded(strings.HasPrefix(trimmed, "NCCL version") || strings.HasPrefix(trimmed, "RCCL version"), reVersion, trimmed); m != nil {
		p.version(m[1], m[2])
		return true
	}
	if m := guarded(strings.HasPrefix(trimmed, "==="), reSystem, trimmed); m != nil {
		p.dump[proc] = p.openDump(TopoDump{Source: src, MaxBW: atof(m[1]), TotalBW: atof(m[2])})
		p.dumpStack[proc] = nil
		return true
	}
	if p.networkLine(trimmed) {
		return true
	}
	if m := guarded(strings.HasPrefix(trimmed, "Pattern "), rePattern, trimmed); m != nil {
		pat := parse.Int(m[1])
		p.lastSearch[thread] = -1 // its channel lines are read, not kept
		if keep(p.log, "graph_searches", &p.log.GraphSearches, GraphSearch{Source: src, Pattern: pat, PatternName: patternNames[pat],
			CrossNic: parse.Int(m[2]), NChannels: parse.Int(m[3]), BWIntra: atof(m[4]), BWInter: atof(m[5]),
			TypeIntra: m[6], TypeInter: m[7], SameChannels: parse.Int(m[8])}) {
			p.lastSearch[thread] = len(p.log.GraphSearches) - 1
		}
		return true
	}
	if m := guarded(trimmed != "" && trimmed[0] >= '0' && trimmed[0] <= '9', reGraphChan, msg); m != nil {
		if idx, ok := p.lastSearch[thread]; ok {
			if idx < 0 {
				return true
			}
			gs := &p.log.GraphSearches[idx]
			gs.Channels = append(gs.Channels, strings.Fields(m[2]))
			return true
		}
		return false
	}
	if m := guarded(strings.Contains(trimmed, " via "), reConnection, trimmed); m != nil {
		transport := m[8]
		kind := transport
		if i := strings.IndexAny(kind, "/ "); i >= 0 {
			kind = kind[:i]
		}
		p.addHost(src.Host)
		p.log.transports[transport]++
		keep(p.log, "connections", &p.log.Connections, Connection{Source: src, Channel: parse.Int(m[1]), ConnIndex: parse.Int(m[2]),
			FromRank: parse.Int(m[3]), FromDev: m[4], ToRank: parse.Int(m[5]), ToDev: m[6], Direction: m[7], Transport: transport, Kind: kind, Comm: comm})
		return true
	}
	if m := guarded(strings.HasPrefix(trimmed, "Channel ") || strings.HasPrefix(trimmed, "Ring "), reRing, trimmed); m != nil {
		ring := Ring{Source: src, Channel: parse.Int(m[1]), NChannels: parse.Int(m[2]), Comm: comm}
		for _, f := range strings.Fields(m[3]) {
			ring.Ranks = append(ring.Ranks, parse.Int(f))
		}
		p.addHost(src.Host)
		keep(p.log, "rings", &p.log.Rings, ring)
		return true
	}
	if m := guarded(strings.HasPrefix(trimmed, "Ring "), reRingLink, trimmed); m != nil {
		rl := RingLink{Source: src, Channel: parse.Int(m[1]), Prev: parse.Int(m[2]), Rank: parse.Int(m[3]), Next: parse.Int(m[4]), Comm: comm}
		p.addProcessRank(src, rl.Rank)
		keep(p.log, "ring_links", &p.log.RingLinks, rl)
		return true
	}
	if m := guarded(strings.HasPrefix(trimmed, "Trees "), reTrees, trimmed); m != nil {
		for _, e := range reTreeEntry.FindAllStringSubmatch(m[1], -1) {
			for part, spec := range strings.Split(e[2], "|") {
				if t, ok := parseTreeSpec(spec); ok {
					t.Source, t.Channel, t.Part, t.Comm = src, parse.Int(e[1]), part, comm
					p.addTree(t)
				}
			}
		}
		return true
	}
	if m := guarded(strings.HasPrefix(trimmed, "Tree "), reTreeOne, trimmed); m != nil {
		p.addTree(Tree{Source: src, Channel: parse.Int(m[1]), Parent: parse.Int(m[2]), Rank: parse.Int(m[3]), Children: ints(strings.Split(m[4], "/")), Comm: comm})
		return true
	}
	if m := guarded(strings.Contains(trimmed, "Bytes -> Algo"), reChoice, trimmed); m != nil {
		c := Choice{Source: src, Op: m[1], Bytes: parse.Int64(m[2]), Algorithm: canonicalAlgo(m[3]), Protocol: canonicalProto(m[4]),
			TimeUs: atof(m[5]), ChannelLo: -1, ChannelHi: -1, Comm: m[8]}
		if m[6] != "" {
			c.ChannelLo, c.ChannelHi = parse.Int(m[6]), parse.Int(m[7])
		}
		p.foldChoice(c)
		keep(p.log, "choices", &p.log.Choices, c)
		return true
	}
	if m := guarded(strings.Contains(trimmed, "opCount"), reOperation, trimmed); m != nil {
		op := Operation{Source: src, Op: m[1], OpCount: m[2], Count: parse.Int64(m[3]), RedOp: parse.Int(m[5]), Root: parse.Int(m[6]), Comm: m[7], NRanks: parse.Int(m[8])}
		if dt := parse.Int(m[4]); dt >= 0 && dt < len(datatypes) {
			op.Datatype = datatypes[dt].name
			op.Bytes = op.Count * datatypes[dt].size
		} else {
			op.Datatype = "type" + m[4]
		}
		keep(p.log, "operations", &p.log.Operations, op)
		return true
	}
	if m := guarded(strings.Contains(trimmed, "- Init "), reInitRank, trimmed); m != nil {
		r := p.rank(src, m[2])
		r.InitFunc = firstNonEmpty(r.InitFunc, m[1])
		r.Rank, r.NRanks, r.CUDADev = parse.Int(m[3]), parse.Int(m[4]), parse.Int(m[5])
		if m[6] != "" {
			r.NVMLDev = parse.Int(m[6])
		}
		r.BusID = firstNonEmpty(m[7], r.BusID)
		r.CommID = firstNonEmpty(m[8], r.CommID)
		if m[9] == "START" {
			r.InitStarted = true
		} else {
			r.InitComplete = true
		}
		return true
	}
	if m := guarded(strings.HasPrefix(trimmed, "comm "), reCommInfo, trimmed); m != nil {
		r := p.rank(src, m[1])
		r.Rank, r.NRanks, r.NNodes, r.LocalRanks, r.LocalRank = parse.Int(m[2]), parse.Int(m[3]), parse.Int(m[4]), parse.Int(m[5]), parse.Int(m[6])
		r.MNNVL = parse.Int(m[7])
		return true
	}
	if m := guarded(strings.HasPrefix(trimmed, "comm "), reCommEnd, trimmed); m != nil {
		r := p.rank(src, m[1])
		r.Rank, r.NRanks, r.CUDADev = parse.Int(m[2]), parse.Int(m[3]), parse.Int(m[4])
		r.End = m[6]
		return true
	}
	if m := guarded(strings.HasPrefix(trimmed, "Init timings"), reInitTiming, trimmed); m != nil {
		it := InitTiming{Source: src, Func: m[1], Rank: parse.Int(m[2]), NRanks: parse.Int(m[3]), TotalS: atof(m[4])}
		for _, ph := range rePhase.FindAllStringSubmatch(m[5], -1) {
			it.Phases = append(it.Phases, Phase{Name: ph[1], Seconds: atof(ph[2])})
		}
		keep(p.log, "init_timings", &p.log.InitTimings, it)
		return true
	}
	if m := guarded(strings.Contains(trimmed, "coll channels"), reChanCount, trimmed); m != nil {
		keep(p.log, "channel_counts", &p.log.ChannelCounts, ChannelCount{Source: src, Coll: parse.Int(m[1]), CollNet: parse.Int(m[2]),
			NVLS: parse.Int(m[3]), P2P: parse.Int(m[4]), P2PPerPeer: parse.Int(m[5])})
		return true
	}
	if m := guarded(strings.Contains(trimmed, "set by environment"), reEnv, trimmed); m != nil {
		keep(p.log, "env", &p.log.Env, EnvSetting{Source: src, Name: m[1], Value: strings.TrimSpace(m[2])})
		return true
	}
	if strings.Contains(msg, "|") && p.tableLine(src, thread, msg) {
		return true
	}
	if m := guarded(strings.Contains(trimmed, " :"), rePathHead, trimmed); m != nil {
		entries := rePathEntry.FindAllStringSubmatch(m[2], -1)
		if len(entries) == 0 {
			return false
		}
		for _, e := range entries {
			keep(p.log, "paths", &p.log.Paths, TopoPath{Source: src, From: m[1], To: e[1], Hops: parse.Int(e[2]), BW: atof(e[3]), Type: e[4]})
		}
		return true
	}
	return false
}

// guarded runs re only when a cheap test on the text passed: most lines
// are matched by one pattern of many.
func guarded(ok bool, re *regexp.Regexp, text string) []string {
	if !ok {
		return nil
	}
	return re.FindStringSubmatch(text)
}

// parseTreeSpec reads "2/-1/-1->1->0" (children->rank->parent, 2.7+)
// or "26->25->-1/-1/-1" (parent->rank->children, older).
func parseTreeSpec(spec string) (Tree, bool) {
	parts := strings.Split(spec, "->")
	if len(parts) != 3 {
		return Tree{}, false
	}
	rank, err := strconv.Atoi(parts[1])
	if err != nil {
		return Tree{}, false
	}
	if strings.Contains(parts[0], "/") || !strings.Contains(parts[2], "/") {
		parent, err := strconv.Atoi(parts[2])
		if err != nil {
			return Tree{}, false
		}
		return Tree{Rank: rank, Parent: parent, Children: ints(strings.Split(parts[0], "/"))}, true
	}
	parent, err := strconv.Atoi(parts[0])
	if err != nil {
		return Tree{}, false
	}
	return Tree{Rank: rank, Parent: parent, Children: ints(strings.Split(parts[2], "/"))}, true
}

// dumpLine handles a line while a topology dump is open.
func (p *parser) dumpLine(proc string, idx int, msg string) bool {
	d := &p.discardedDump
	if idx >= 0 {
		d = &p.log.Topology[idx]
	}
	if strings.HasPrefix(strings.TrimSpace(msg), "=====") {
		d.Complete = true
		delete(p.dump, proc)
		delete(p.dumpStack, proc)
		return true
	}
	if m := reTopoLink.FindStringSubmatch(msg); m != nil {
		indent := len(m[1])
		stack := p.dumpStack[proc]
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		from := ""
		if len(stack) > 0 {
			from = stack[len(stack)-1].node
		}
		d.Links = append(d.Links, TopoLink{From: from, Type: m[2], BW: atof(m[3]), To: m[4], Info: m[5]})
		p.dumpStack[proc] = append(stack, stackEntry{indent: indent, node: m[4]})
		return true
	}
	if m := reTopoNode.FindStringSubmatch(strings.TrimSpace(msg)); m != nil {
		d.Nodes = append(d.Nodes, m[1])
		p.dumpStack[proc] = []stackEntry{{indent: -1, node: m[1]}}
		return true
	}
	return false
}

// tableLine parses the tuning table. New builds print blocks of up to
// three algorithms: `  Algorithm   |  <name> |`, `  Protocol    | LL |
// LL128 | Simple | ...`, ` Max NThreads | 512 | ...`, then one row per
// function with `lat/bw` cells. Older builds print one `Latency/AlgBw |
// Tree/    LL | ...` header naming every cell.
func (p *parser) tableLine(src Source, thread, msg string) bool {
	if m := reTableHead.FindStringSubmatch(msg); m != nil {
		cells := splitCells(m[2])
		st := p.table[thread]
		switch m[1] {
		case "Algorithm":
			if st == nil || (len(cells) > 0 && canonicalAlgo(cells[0]) == "TREE") {
				st = p.newTable(src, thread)
			}
			st.algos = nil
			for _, c := range cells {
				st.algos = append(st.algos, strings.Join(strings.Fields(c), ""))
			}
			st.protos, st.threads, st.cells = nil, nil, nil
		case "Latency/AlgBw":
			st = p.newTable(src, thread)
			st.cells = nil
			for _, c := range cells {
				st.cells = append(st.cells, strings.Join(strings.Fields(c), ""))
			}
		case "Protocol":
			if st == nil {
				st = p.newTable(src, thread)
				st.algos = []string{"Tree", "Ring", "CollNetDirect"}
				if st.index >= 0 {
					p.log.Tuning[st.index].AlgorithmsAssumed = true
				}
			}
			st.protos = nil
			for _, c := range cells {
				st.protos = append(st.protos, strings.TrimSpace(c))
			}
		case "Max NThreads":
			if st == nil {
				return false
			}
			st.threads = nil
			for _, c := range cells {
				st.threads = append(st.threads, parse.Int(strings.TrimSpace(c)))
			}
		}
		return true
	}
	st := p.table[thread]
	if st == nil {
		return false
	}
	m := reTableRow.FindStringSubmatch(msg)
	if m == nil {
		return false
	}
	cells := splitCells(m[2])
	if st.index < 0 {
		return true
	}
	tbl := &p.log.Tuning[st.index]
	for i, c := range cells {
		lat, bw, ok := strings.Cut(c, "/")
		if !ok {
			continue
		}
		e := TuningEntry{Function: m[1], LatencyUs: atof(strings.TrimSpace(lat)), BandwidthGBs: atof(strings.TrimSpace(bw))}
		switch {
		case len(st.cells) > 0:
			if i >= len(st.cells) {
				continue
			}
			a, pr, _ := strings.Cut(st.cells[i], "/")
			e.Algorithm, e.Protocol = canonicalAlgo(a), canonicalProto(pr)
		default:
			nProto := 3 // NCCL_NUM_PROTOCOLS
			if i/nProto >= len(st.algos) {
				continue
			}
			e.Algorithm = canonicalAlgo(st.algos[i/nProto])
			if i < len(st.protos) {
				e.Protocol = canonicalProto(st.protos[i])
			}
		}
		if i < len(st.threads) {
			e.MaxThreads = st.threads[i]
		}
		tbl.Entries = append(tbl.Entries, e)
	}
	return true
}

func (p *parser) newTable(src Source, thread string) *tableState {
	st := &tableState{index: -1} // read, not kept
	if keep(p.log, "tuning", &p.log.Tuning, TuningTable{Source: src}) {
		st.index = len(p.log.Tuning) - 1
	}
	p.table[thread] = st
	return st
}

func splitCells(s string) []string {
	var out []string
	for _, c := range strings.Split(s, "|") {
		if strings.TrimSpace(c) != "" {
			out = append(out, c)
		}
	}
	return out
}

// rank returns the Rank record for host:pid:comm, creating it.
func (p *parser) rank(src Source, comm string) *Rank {
	key := src.Process() + ":" + comm
	if i, ok := p.rankIdx[key]; ok {
		return &p.log.Ranks[i]
	}
	p.addHost(src.Host)
	if !keep(p.log, "ranks", &p.log.Ranks, Rank{Source: src, Comm: comm, CUDADev: src.Dev, NVMLDev: -1}) {
		p.scratchRank = Rank{Source: src, Comm: comm, CUDADev: src.Dev, NVMLDev: -1}
		return &p.scratchRank
	}
	p.rankIdx[key] = len(p.log.Ranks) - 1
	return &p.log.Ranks[len(p.log.Ranks)-1]
}

// process counts a line for its host:pid and notes its device.
func (p *parser) process(src Source) {
	key := src.Process()
	i, ok := p.procIdx[key]
	if !ok {
		if !keep(p.log, "processes", &p.log.Processes, Process{Host: src.Host, PID: src.PID, Devices: []int{}, FirstLine: src.Line}) {
			return
		}
		i = len(p.log.Processes) - 1
		p.procIdx[key] = i
	}
	pr := &p.log.Processes[i]
	pr.Lines++
	if src.Dev >= 0 && !slices.Contains(pr.Devices, src.Dev) {
		pr.Devices = append(pr.Devices, src.Dev)
		slices.Sort(pr.Devices)
	}
}

func (p *parser) finish() {
	// A process's ranks: from its communicator lines, and from the tree
	// and ring lines, which name the rank that printed them.
	addRank := func(src Source, rank int) {
		if i, ok := p.procIdx[src.Process()]; ok && !slices.Contains(p.log.Processes[i].Ranks, rank) {
			p.log.Processes[i].Ranks = append(p.log.Processes[i].Ranks, rank)
			slices.Sort(p.log.Processes[i].Ranks)
		}
	}
	for _, r := range p.log.Ranks {
		addRank(r.Source, r.Rank)
	}
	// Trees and ring links added theirs as they were read
	// (addProcessRank): every one counts, kept or not.
	p.finishNetwork()
	open := make([]int, 0, len(p.dump))
	for _, idx := range p.dump {
		open = append(open, idx)
	}
	sort.Ints(open)
	for _, idx := range open {
		d := p.discardedDump
		if idx >= 0 {
			d = p.log.Topology[idx]
		}
		p.errs = append(p.errs, &parse.Error{Format: "nccllog", Line: d.Source.Line, Err: fmt.Errorf("%w: topology dump started here has no closing \"=====\" line", ErrTruncated)})
	}
	if p.log.NCCLLines == 0 {
		p.errs = append(p.errs, &parse.Error{Format: "nccllog", Msg: "no NCCL debug lines found", Err: parse.ErrFormat})
	}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func ints(fields []string) []int {
	out := make([]int, 0, len(fields))
	for _, f := range fields {
		out = append(out, parse.Int(strings.TrimSpace(f)))
	}
	return out
}

func atof(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// ParseBytes is Parse over a byte slice.
func ParseBytes(data []byte) (*Log, error) { return Parse(bytes.NewReader(data)) }

// maxRecords bounds each list of records a Log keeps (connections, trees,
// choices, ...): a large job's log repeats them per rank and per call, and
// memory must not grow with the log's length. Past it records are still
// read and counted (Log.Omitted, and every total the summary prints).
var maxRecords = 1000

// maxDumps bounds the topology dumps kept: each holds a machine's whole
// graph, and every rank of a large job prints its own.
const maxDumps = 64

// keep appends r to *list while it holds fewer than maxRecords records,
// and reports whether it did; past that, r is counted in l.Omitted[kind].
func keep[T any](l *Log, kind string, list *[]T, r T) bool {
	limit := maxRecords
	if kind == "topology" {
		limit = min(limit, maxDumps)
	}
	if len(*list) < limit {
		*list = append(*list, r)
		return true
	}
	if l.Omitted == nil {
		l.Omitted = map[string]int{}
	}
	l.Omitted[kind]++
	return false
}

// openDump starts a topology dump and returns its index, -1 when it is
// read but not kept.
func (p *parser) openDump(d TopoDump) int {
	if keep(p.log, "topology", &p.log.Topology, d) {
		return len(p.log.Topology) - 1
	}
	p.discardedDump = TopoDump{}
	return -1
}

func (p *parser) addHost(host string) {
	if host != "" && !p.log.hostSet[host] {
		p.log.hostSet[host] = true
	}
}

func (p *parser) addTree(t Tree) {
	p.addHost(t.Source.Host)
	p.addProcessRank(t.Source, t.Rank)
	keep(p.log, "trees", &p.log.Trees, t)
}

// addProcessRank notes that the process of src holds rank.
func (p *parser) addProcessRank(src Source, rank int) {
	if i, ok := p.procIdx[src.Process()]; ok && !slices.Contains(p.log.Processes[i].Ranks, rank) {
		p.log.Processes[i].Ranks = append(p.log.Processes[i].Ranks, rank)
		slices.Sort(p.log.Processes[i].Ranks)
	}
}

// foldChoice folds c into the runs of identical consecutive choices
// (FoldedChoices), over every choice read, kept or not.
func (p *parser) foldChoice(c Choice) {
	key := c
	key.Source = Source{}
	if n := len(p.log.folds); n > 0 {
		last := p.log.folds[n-1].Choice
		last.Source = Source{}
		if last == key {
			p.log.folds[n-1].Count++
			return
		}
	}
	keep(p.log, "choice_runs", &p.log.folds, FoldedChoice{Choice: c, Count: 1})
}

// findNestedLine is reNestedLine's match in msg; the regexp runs only on
// the few messages that hold a second "NCCL INFO" or "NCCL WARN".
func findNestedLine(msg string) []int {
	if !strings.Contains(msg, "NCCL INFO ") && !strings.Contains(msg, "NCCL WARN ") {
		return nil
	}
	return reNestedLine.FindStringIndex(msg)
}

// splitPrefix reads what reNCCLPrefix matches at the end of p, the text
// before "NCCL INFO": "host:pid:tid [dev] " and "file.cc:123 ", each
// optional, and where the match starts (len(p) when neither is there).
// It is reNCCLPrefix by hand, the same leftmost match without the regexp
// engine's scan of every start position, which cost a third of the parse.
func splitPrefix(p string) (start int, host, pid, tid, dev, where string) {
	start = len(p)
	end := len(p) // where part A (host and dev) must end
	// B: "file.cc:123 " as the last blank-ended token.
	if tok, at, ok := lastToken(p, end); ok {
		if c := strings.LastIndexByte(tok, ':'); c > 0 && allDigits(tok[c+1:]) {
			where, start, end = tok, at, at
		}
	}
	// A plugin that logs its function's signature: "tcpxResult_t
	// tcpxCommProgress(tcpxComm*):1231 " (GPUDirect-TCPX); the return type
	// belongs to where, not to the text before the prefix.
	if strings.Contains(where, "(") {
		if tok, at, ok := lastToken(p, end); ok {
			if i := identSuffix(tok); i < len(tok) {
				where, start, end = tok[i:]+" "+where, at+i, at+i
			}
		}
	}
	// A: "[dev] ", and before it "host:pid:tid ".
	if end < 3 || p[end-1] != ' ' || p[end-2] != ']' {
		return start, "", "", "", "", where
	}
	open := strings.LastIndexByte(p[:end-2], '[')
	if open < 0 || !allDigits(p[open+1:end-2]) {
		return start, "", "", "", "", where
	}
	start, dev = open, p[open+1:end-2]
	if tok, at, ok := lastToken(p, open); ok {
		c2 := strings.LastIndexByte(tok, ':')
		if c2 > 0 && allDigits(tok[c2+1:]) {
			c1 := strings.LastIndexByte(tok[:c2], ':')
			if c1 > 0 && allDigits(tok[c1+1:c2]) {
				start, host, pid, tid = at, tok[:c1], tok[c1+1:c2], tok[c2+1:]
			}
		}
	}
	return start, host, pid, tid, dev, where
}

// lastToken is the token that ends with the blank at p[end-1]: the text
// between the blank before it (or the start of p) and that blank.
func lastToken(p string, end int) (tok string, at int, ok bool) {
	if end < 2 || p[end-1] != ' ' {
		return "", 0, false
	}
	at = strings.LastIndexAny(p[:end-1], " \t\n\f\r") + 1
	if at >= end-1 {
		return "", 0, false
	}
	return p[at : end-1], at, true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// identSuffix is where the C identifier that ends tok begins (a return
// type before a function's name); len(tok) when tok ends in none.
func identSuffix(tok string) int {
	i := len(tok)
	for i > 0 && isWordByte(tok[i-1]) {
		i--
	}
	for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
		i++
	}
	return i
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
