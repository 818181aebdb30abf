package topom

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/commlab/commlab/probes"
)

// Source is the Topology.Source of every parsed matrix.
const Source = "nvidia-smi topo -m"

// ErrNoMatrix says the input holds no `nvidia-smi topo -m` matrix at all.
var ErrNoMatrix = errors.New("topom: no topology matrix found")

// LineError is a problem at one line of the input; parsing goes on past
// it, so the Topology returned with it holds everything else.
type LineError struct {
	Line int
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("topom: line %d: %s", e.Line, e.Msg) }

// ParseString parses the text of `nvidia-smi topo -m`.
func ParseString(s string) (*probes.Topology, error) { return Parse(strings.NewReader(s)) }

// Parse reads `nvidia-smi topo -m` output. Text before the matrix (a shell
// prompt, "NVIDIA Topology:") and after the legends is ignored. On a
// truncated or damaged matrix it returns what it read together with an
// error naming the first bad line; on input without a matrix, ErrNoMatrix.
func Parse(r io.Reader) (*probes.Topology, error) {
	p := parser{topo: &probes.Topology{Source: Source}, nicNames: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		p.line++
		p.feed(stripEscapes(sc.Text()))
	}
	if err := sc.Err(); err != nil {
		p.fail(p.line, "read: "+err.Error())
	}
	return p.finish()
}

type parser struct {
	topo  *probes.Topology
	line  int
	state int // 0 before header, 1 in matrix, 2 in legend, 3 in NIC legend
	// columns are the header's device names as printed; ids the matrix
	// names they map to (mlx5_0 -> NIC0 in old outputs).
	columns   []string
	ids       []string
	rowsSeen  map[string]bool
	lastRow   int
	nicNames  map[string]string // NIC0 -> mlx5_0
	legendSOC bool
	legendOld bool // "PCIe switches" wording of older drivers
	namedNICs bool // NIC columns named after the device (older drivers)
	hasNUMA   bool
	hasGPUNID bool
	err       error
}

func (p *parser) fail(line int, msg string) {
	if p.err == nil {
		p.err = &LineError{Line: line, Msg: msg}
	}
}

const (
	stateBefore = iota
	stateMatrix
	stateLegend
	stateNICLegend
	stateDone
)

func (p *parser) feed(raw string) {
	text := strings.TrimRight(raw, " \t\r")
	trimmed := strings.TrimSpace(text)
	switch {
	case trimmed == "Legend:":
		p.state = stateLegend
		return
	case trimmed == "NIC Legend:":
		p.state = stateNICLegend
		return
	}
	switch p.state {
	case stateBefore:
		if p.isHeader(trimmed) {
			p.readHeader(text)
			p.state = stateMatrix
		}
	case stateMatrix:
		if trimmed == "" {
			return
		}
		p.readRow(text)
	case stateLegend:
		if strings.HasPrefix(trimmed, "SOC") {
			p.legendSOC = true
		}
		if strings.Contains(trimmed, "PCIe switch") {
			p.legendOld = true
		}
	case stateNICLegend:
		if trimmed == "" {
			return
		}
		name, dev, ok := strings.Cut(trimmed, ":")
		if !ok || !strings.HasPrefix(name, "NIC") {
			// The legend is over; what follows is someone else's text.
			p.state = stateDone
			return
		}
		p.nicNames[strings.TrimSpace(name)] = strings.TrimSpace(dev)
	}
}

// maxColumns bounds the matrix, which grows as its square: no node has
// more GPUs and NICs than this, and a damaged header must not exhaust memory.
const maxColumns = 512

// isHeader says whether a line is the matrix header: its first field is
// GPU0 (or, on machines nvidia-smi shows no GPU rows for, NIC0).
func (p *parser) isHeader(trimmed string) bool {
	f := strings.Fields(trimmed)
	return len(f) > 0 && (f[0] == "GPU0" || f[0] == "NIC0")
}

func (p *parser) readHeader(text string) {
	f := strings.Fields(text)
	nics := 0
	for i := 0; i < len(f); i++ {
		tok := f[i]
		if tok == "CPU" || tok == "NUMA" || (tok == "GPU" && i+1 < len(f) && f[i+1] == "NUMA") {
			rest := strings.Join(f[i:], " ")
			p.hasNUMA = strings.Contains(rest, "NUMA Affinity")
			p.hasGPUNID = strings.Contains(rest, "GPU NUMA ID")
			break
		}
		if len(p.ids) == maxColumns {
			p.fail(p.line, fmt.Sprintf("header has more than %d devices; the rest are ignored", maxColumns))
			break
		}
		id := tok
		switch {
		case strings.HasPrefix(tok, "GPU"):
		case strings.HasPrefix(tok, "NIC"):
			nics++
		default:
			// Older drivers name NIC columns after the device.
			id = "NIC" + strconv.Itoa(nics)
			nics++
			p.nicNames[id] = tok
			p.namedNICs = true
		}
		if p.topo.AddDevice(id) != len(p.ids) {
			// The matrix stays square only with distinct names; keep the
			// columns read so far.
			p.fail(p.line, fmt.Sprintf("header names %s twice", tok))
			break
		}
		p.columns = append(p.columns, tok)
		p.ids = append(p.ids, id)
	}
	p.rowsSeen = map[string]bool{}
}

// cells splits a row: by tabs when it has them (empty cells matter), else
// by runs of spaces (text copied from a terminal).
func cells(text string) []string {
	if strings.Contains(text, "\t") {
		parts := strings.Split(text, "\t")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		return parts
	}
	return strings.Fields(text)
}

func (p *parser) readRow(text string) {
	c := cells(text)
	label := c[0]
	row := -1
	for i, col := range p.columns {
		if col == label {
			row = i
		}
	}
	if row < 0 {
		// Not a matrix row: the matrix ended without a legend, which is
		// fine once every row is in.
		if len(p.rowsSeen) < len(p.columns) {
			p.fail(p.line, fmt.Sprintf("unexpected line %q inside the matrix", clip(text)))
		}
		p.state = stateDone
		return
	}
	if p.rowsSeen[label] {
		p.fail(p.line, "row "+label+" appears twice")
		return
	}
	p.rowsSeen[label] = true
	p.lastRow = p.line
	n := len(p.columns)
	if len(c)-1 < n {
		p.fail(p.line, fmt.Sprintf("row %s has %d of %d cells (input truncated?)", label, len(c)-1, n))
	}
	for j := 0; j < n && j+1 < len(c); j++ {
		path, err := probes.ParsePath(c[j+1])
		if err != nil {
			p.fail(p.line, fmt.Sprintf("row %s column %s: %v", label, p.columns[j], err))
			continue
		}
		if j == row && path.Level != probes.LevelSelf {
			p.fail(p.line, fmt.Sprintf("row %s: diagonal is %q, want X", label, c[j+1]))
		}
		i := row
		p.topo.Paths[i][j] = path
	}
	id := p.ids[row]
	if !strings.HasPrefix(id, "GPU") {
		return
	}
	idx, err := strconv.Atoi(strings.TrimPrefix(id, "GPU"))
	if err != nil {
		p.fail(p.line, "bad GPU name "+id)
		return
	}
	g := probes.GPU{Index: idx, NUMANode: -1, MemoryNUMANode: -1}
	var extra []string
	if len(c)-1 > n {
		extra = c[n+1:]
	}
	if len(extra) > 0 {
		if extra[0] != "N/A" {
			g.CPUAffinity = extra[0]
		}
		var rest []string
		for _, e := range extra[1:] {
			if e != "" {
				rest = append(rest, e)
			}
		}
		if len(rest) > 0 && p.hasNUMA {
			g.NUMANode = numaValue(rest[0])
		}
		if len(rest) > 1 && p.hasGPUNID {
			g.MemoryNUMANode = numaValue(rest[1])
		}
	}
	p.topo.GPUs = append(p.topo.GPUs, g)
}

func numaValue(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

func (p *parser) finish() (*probes.Topology, error) {
	t := p.topo
	if p.columns == nil {
		if p.err != nil {
			return t, p.err
		}
		return t, fmt.Errorf("%w in %d lines (the header line starts with GPU0)", ErrNoMatrix, p.line)
	}
	if len(p.rowsSeen) < len(p.columns) {
		var missing []string
		for _, c := range p.columns {
			if !p.rowsSeen[c] {
				missing = append(missing, c)
			}
		}
		p.fail(max(p.lastRow, 1), fmt.Sprintf("matrix ends after %d of %d rows; missing %s (input truncated?)",
			len(p.rowsSeen), len(p.columns), strings.Join(missing, ", ")))
	}
	for i, id := range p.ids {
		if !strings.HasPrefix(id, "NIC") {
			continue
		}
		idx, _ := strconv.Atoi(strings.TrimPrefix(id, "NIC"))
		name := p.nicNames[id]
		if name == "" {
			name = p.columns[i]
		}
		t.NICs = append(t.NICs, probes.NIC{Index: idx, Name: name, NUMANode: -1})
	}
	switch {
	case p.legendSOC:
		t.Notes = append(t.Notes, "old nvidia-smi format: SOC level (now SYS), no NODE level")
	case p.namedNICs:
		t.Notes = append(t.Notes, "older nvidia-smi format: NIC columns named after the device")
	case p.legendOld:
		t.Notes = append(t.Notes, "older nvidia-smi legend: PIX and PXB described as PCIe switches")
	}
	if !p.hasNUMA {
		t.Notes = append(t.Notes, "no NUMA Affinity column: NUMA nodes unknown")
	}
	t.Notes = append(t.Notes, "PCIe switches and NVLink fabric inferred from the matrix")
	t.InferGraph()
	return t, p.err
}

// stripEscapes removes terminal escape sequences (CSI: ESC [ ... letter),
// which nvidia-smi writes to underline the header on a terminal.
func stripEscapes(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && !(s[j] >= 0x40 && s[j] <= 0x7e) {
				j++
			}
			i = j
			continue
		}
		// A short escape: ESC ( B selects a character set, ESC c and the
		// like are two bytes.
		if i+1 < len(s) && (s[i+1] == '(' || s[i+1] == ')') {
			i++
		}
		i++
	}
	return b.String()
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
