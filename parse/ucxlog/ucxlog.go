package ucxlog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
)

// ErrNoUCX means the text holds no line UCX printed about its choices; it
// wraps parse.ErrFormat.
var ErrNoUCX = fmt.Errorf("%w: no UCX info line (UCX_LOG_LEVEL=info prints them)", parse.ErrFormat)

// ErrMalformed means a protocol table row could not be read.
var ErrMalformed = errors.New("ucxlog: malformed line")

// maxLine bounds one line; UCX's longest lines are protocol tables of a
// few hundred bytes.
const maxLine = 1 << 20

// Log is what UCX said about its choices.
type Log struct {
	// Version is the "Version 1.23.0" UCX prints at init, first seen.
	Version string `json:"version,omitempty"`
	// Env are the UCX_* settings UCX printed ("UCX_TLS=tcp").
	Env []string `json:"env,omitempty"`
	// Configs are the endpoint configurations, in the order printed.
	Configs []Config `json:"configs,omitempty"`
	// Protocols are the UCX_PROTO_INFO tables.
	Protocols []Protocol `json:"protocols,omitempty"`
	// Problems are UCX's WARN and ERROR lines, as printed after the level.
	Problems []Problem `json:"problems,omitempty"`
	// Lines counts the lines read; UCXLines those this package understood.
	Lines    int `json:"lines"`
	UCXLines int `json:"ucx_lines"`
}

// Config is one endpoint configuration: the lanes a worker uses to reach
// one kind of peer.
type Config struct {
	// Worker is the worker's name ("gpu", "ucp_context_0"); Scope is
	// "self", "intra-node" or "inter-node" ("" from UCX before 1.13).
	Worker string `json:"worker,omitempty"`
	Scope  string `json:"scope,omitempty"`
	Index  int    `json:"index"`
	Lanes  []Lane `json:"lanes"`
	Line   int    `json:"line"`
}

// Lane is one use of the configuration ("rma_am", "am", "tag", "rma_bw",
// "ka") and the transports/devices that serve it ("tcp/lo", "rc_mlx5/mlx5_0:1").
type Lane struct {
	Use        string   `json:"use"`
	Transports []string `json:"transports"`
}

// Protocol is one UCX_PROTO_INFO table: an operation on one configuration
// and the protocol chosen for each size range.
type Protocol struct {
	// Config names the configuration as the table's title does
	// ("gpu intra-node cfg#2").
	Config string `json:"config"`
	// Operation is the table's second title line ("remote memory write by
	// ucp_put*(multi) from cuda/GPU0 to host").
	Operation string  `json:"operation"`
	Ranges    []Range `json:"ranges"`
	Line      int     `json:"line"`
}

// Range is one row: sizes From..To bytes (To -1: no upper bound), the
// protocol's description ("zero-copy", "software emulation", "rendezvous
// zero-copy read from remote") and the transports it runs on.
type Range struct {
	From        int64  `json:"from"`
	To          int64  `json:"to"`
	Description string `json:"description"`
	Transports  string `json:"transports"`
}

// Problem is a WARN or ERROR line.
type Problem struct {
	Level string `json:"level"`
	Text  string `json:"text"`
	Line  int    `json:"line"`
}

var (
	// "[1796551597.183085] [vm:834  :0]      ucp_worker.c:1997 UCX  INFO  "
	reUCXLevel = regexp.MustCompile(`\bUCX\s+(INFO|WARN|ERROR|DIAG|DEBUG)\s+(.*)$`)
	reVersion  = regexp.MustCompile(`^Version (\S+)`)
	// "gpu intra-node cfg#2 rma_am(tcp/lo)  amo_am(tcp/lo) ..."
	reConfig = regexp.MustCompile(`^(?:(\S+) )?(self|intra-node|inter-node)\s+cfg#(\d+)\s+(.*)$`)
	// UCX before 1.13: "ep_cfg[2]: tag(rc_mlx5/mlx5_0:1 ...) rma(...)"
	reOldConfig = regexp.MustCompile(`^(?:(\S+) )?ep_cfg\[(\d+)\]:\s+(.*)$`)
	reLane      = regexp.MustCompile(`([A-Za-z0-9_]+)\(([^)]*)\)`)
	// The table rows follow the log prefix: "... [vm:834  :0]   | a | b |".
	reTableRow   = regexp.MustCompile(`^\s*\|(.*)\|\s*$`)
	reTableRule  = regexp.MustCompile(`^\s*\+[-+]+\+\s*$`)
	reLogPrefix  = regexp.MustCompile(`^\[\d+\.\d+\]\s+\[[^\]]*\]`)
	reTableTitle = regexp.MustCompile(`^(.*\bcfg#\d+)$`)
)

// Parse reads UCX's log (its own file or the process's output, other
// lines mixed in). Text with no line UCX printed about its choices is
// ErrNoUCX; a table row it cannot read is skipped and the first such
// error returned with everything else read.
func Parse(r io.Reader) (*Log, error) {
	l := &Log{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var table *Protocol
	var titles []string // the current table's title lines, before its header
	inBody := false
	var firstErr error // a row that could not be read; the rest still is
	for sc.Scan() {
		l.Lines++
		raw := sc.Text()
		line := strings.TrimRight(raw, " \t\r")
		if m := reLogPrefix.FindStringIndex(line); m != nil {
			body := line[m[1]:]
			if reTableRule.MatchString(body) {
				l.UCXLines++
				if table != nil && inBody && len(table.Ranges) > 0 {
					table, titles, inBody = nil, nil, false
				}
				continue
			}
			if cells, ok := tableCells(body); ok {
				l.UCXLines++
				switch {
				case len(cells) == 1 && !inBody:
					titles = append(titles, cells[0])
					if len(titles) == 2 && reTableTitle.MatchString(titles[0]) {
						l.Protocols = append(l.Protocols, Protocol{Config: titles[0], Operation: titles[1], Line: l.Lines - 1})
						table = &l.Protocols[len(l.Protocols)-1]
					}
				case len(cells) == 3 && cells[0] == "Range":
					inBody = true
				case len(cells) == 3 && table != nil && inBody:
					from, to, err := sizeRange(cells[0])
					if err != nil {
						if firstErr == nil {
							firstErr = &parse.Error{Format: "ucxlog", Line: l.Lines, Msg: err.Error(), Err: ErrMalformed}
						}
						continue
					}
					table.Ranges = append(table.Ranges, Range{From: from, To: to, Description: cells[1], Transports: cells[2]})
				}
				continue
			}
			table, titles, inBody = nil, nil, false
		}
		m := reUCXLevel.FindStringSubmatch(line)
		if m == nil {
			if c, ok := parseConfig(strings.TrimSpace(line), l.Lines); ok {
				l.Configs = append(l.Configs, c)
				l.UCXLines++
			}
			continue
		}
		level, text := m[1], strings.TrimSpace(m[2])
		l.UCXLines++
		switch {
		case level == "WARN" || level == "ERROR":
			l.Problems = append(l.Problems, Problem{Level: level, Text: text, Line: l.Lines})
		case reVersion.MatchString(text):
			if l.Version == "" {
				l.Version = reVersion.FindStringSubmatch(text)[1]
			}
		case strings.HasPrefix(text, "UCX_* env variables:"):
			for _, kv := range strings.Fields(strings.TrimPrefix(text, "UCX_* env variables:")) {
				if !contains(l.Env, kv) {
					l.Env = append(l.Env, kv)
				}
			}
		default:
			if c, ok := parseConfig(text, l.Lines); ok {
				l.Configs = append(l.Configs, c)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return l, &parse.Error{Format: "ucxlog", Line: l.Lines + 1, Err: err}
	}
	if l.UCXLines == 0 {
		return l, &parse.Error{Format: "ucxlog", Err: ErrNoUCX}
	}
	return l, firstErr
}

// tableCells splits "| a | b |" into trimmed cells.
func tableCells(s string) ([]string, bool) {
	m := reTableRow.FindStringSubmatch(s)
	if m == nil {
		return nil, false
	}
	cells := strings.Split(m[1], "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells, true
}

// parseConfig reads an endpoint configuration line, new or old form.
func parseConfig(text string, line int) (Config, bool) {
	var c Config
	var lanes string
	if m := reConfig.FindStringSubmatch(text); m != nil {
		c.Worker, c.Scope, lanes = m[1], m[2], m[4]
		c.Index, _ = strconv.Atoi(m[3])
	} else if m := reOldConfig.FindStringSubmatch(text); m != nil {
		c.Worker, lanes = m[1], m[3]
		c.Index, _ = strconv.Atoi(m[2])
	} else {
		return c, false
	}
	for _, lm := range reLane.FindAllStringSubmatch(lanes, -1) {
		c.Lanes = append(c.Lanes, Lane{Use: lm[1], Transports: strings.Fields(lm[2])})
	}
	c.Line = line
	return c, len(c.Lanes) > 0
}

// sizeRange reads "0", "0..4294967295" or "16516..inf": UCX prints
// plain byte counts.
func sizeRange(s string) (int64, int64, error) {
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		// One size: "0".
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("size range %q: %w", s, err)
		}
		return n, n, nil
	}
	from, err := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("size range %q: %w", s, err)
	}
	if strings.TrimSpace(b) == "inf" {
		return from, -1, nil
	}
	to, err := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("size range %q: %w", s, err)
	}
	return from, to, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
