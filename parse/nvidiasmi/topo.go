package nvidiasmi

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/internal/textinput"
	"io"
	"strconv"
	"strings"
)

// topoFormat starts the errors ParseTopoMatrix returns; it is the name the
// parser had before this package held both nvidia-smi outputs.
const topoFormat = "topom"

// TopoMatrix is a parsed `nvidia-smi topo -m`. Its Topology method gives
// the probes.Topology it describes, which a notebook cell draws as a
// picture of GPUs, switches, NICs and links:
//
//	m, err := nvidiasmi.ParseTopoMatrixString(text)
//	m.Topology() // a cell result: the drawing
//
// In a notebook the matrix itself shows as a table of path cells; String
// prints it as nvidia-smi does.
type TopoMatrix struct {
	// Devices name the rows and columns: "GPU0".., "NIC0".. (NIC columns
	// that old drivers named after the device are renamed NICn; Columns
	// keeps the names as printed).
	Devices []string `json:"devices"`
	Columns []string `json:"columns"`
	// Cells[i][j] is the path between Devices[i] and Devices[j] in
	// nvidia-smi's words: "X", "NV18", "PIX", "PXB", "PHB", "NODE", "SYS"
	// (old SOC is given as SYS); "" where the input had no cell.
	Cells [][]string `json:"cells"`
	GPUs  []GPURow   `json:"gpus"`
	NICs  []NICRow   `json:"nics,omitempty"`
	// Notes say which format variant this was, in plain words.
	Notes []string `json:"notes,omitempty"`
}

// GPURow holds a GPU row's affinity columns; -1 and "" where the output has
// N/A or lacks the column.
type GPURow struct {
	ID           string `json:"id"`
	Index        int    `json:"index"`
	CPUAffinity  string `json:"cpu_affinity,omitempty"`
	NUMAAffinity int    `json:"numa_affinity"`
	GPUNUMAID    int    `json:"gpu_numa_id"`
}

// NICRow maps a NIC of the matrix to its device name (mlx5_0).
type NICRow struct {
	ID    string `json:"id"`
	Index int    `json:"index"`
	Name  string `json:"name"`
}

// Cell returns the path between two devices ("GPU0", "NIC3").
func (m *TopoMatrix) Cell(a, b string) (string, bool) {
	i, j := m.index(a), m.index(b)
	if i < 0 || j < 0 || i >= len(m.Cells) || j >= len(m.Cells[i]) {
		return "", false
	}
	return m.Cells[i][j], true
}

func (m *TopoMatrix) index(id string) int {
	for i, d := range m.Devices {
		if d == id {
			return i
		}
	}
	return -1
}

// NormalizeCell checks one matrix cell and returns it as current drivers
// print it: "X", "NV#", "PIX", "PXB", "PHB", "NODE", "SYS"; the old "SOC"
// becomes "SYS".
func NormalizeCell(s string) (string, error) {
	t := strings.TrimSpace(s)
	switch t {
	case "X", "PIX", "PXB", "PHB", "NODE", "SYS":
		return t, nil
	case "SOC":
		return "SYS", nil
	}
	if rest, ok := strings.CutPrefix(t, "NV"); ok {
		if n, err := strconv.Atoi(rest); err == nil && n > 0 && n < 1000 {
			return "NV" + strconv.Itoa(n), nil
		}
	}
	return "", fmt.Errorf("unknown topology cell %q", t)
}

// ParseTopoMatrixString parses the text of `nvidia-smi topo -m`.
func ParseTopoMatrixString(s string) (*TopoMatrix, error) {
	return ParseTopoMatrix(strings.NewReader(s))
}

// ParseTopoMatrix reads `nvidia-smi topo -m` output. Text before the matrix (a shell
// prompt, "NVIDIA Topology:") and after the legends is ignored. On a
// truncated or damaged matrix it returns what it read together with an
// error naming the first bad line; on input without a matrix, an error
// wrapping parse.ErrFormat.
func ParseTopoMatrix(r io.Reader) (*TopoMatrix, error) {
	p := topoParser{m: &TopoMatrix{}, nicNames: map[string]string{}}
	// Launchers' prefixes (srun's "0: ", pdsh's "host: ") come off first.
	data, err := textinput.ReadClean(r)
	if err != nil {
		p.fail(1, "read: "+err.Error())
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
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

type topoParser struct {
	m         *TopoMatrix
	line      int
	state     int
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

func (p *topoParser) fail(line int, msg string) {
	if p.err == nil {
		p.err = &parse.Error{Format: topoFormat, Line: line, Msg: msg}
	}
}

const (
	stateBefore = iota
	stateMatrix
	stateLegend
	stateNICLegend
	stateDone
)

// maxColumns bounds the matrix, which grows as its square: no node has
// more GPUs and NICs than this, and a damaged header must not exhaust memory.
const maxColumns = 256

func (p *topoParser) feed(raw string) {
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
		if f := strings.Fields(trimmed); len(f) > 0 && (f[0] == "GPU0" || f[0] == "NIC0") {
			p.readHeader(text)
			p.state = stateMatrix
		}
	case stateMatrix:
		if trimmed != "" {
			p.readRow(text)
		}
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

func (p *topoParser) readHeader(text string) {
	f := strings.Fields(text)
	nics := 0
	seen := map[string]bool{}
	for i := 0; i < len(f); i++ {
		tok := f[i]
		if tok == "CPU" || tok == "NUMA" || (tok == "GPU" && i+1 < len(f) && f[i+1] == "NUMA") {
			rest := strings.Join(f[i:], " ")
			p.hasNUMA = strings.Contains(rest, "NUMA Affinity")
			p.hasGPUNID = strings.Contains(rest, "GPU NUMA ID")
			break
		}
		if len(p.m.Devices) == maxColumns {
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
		if seen[id] {
			// The matrix stays square only with distinct names; keep the
			// columns read so far.
			p.fail(p.line, fmt.Sprintf("header names %s twice", tok))
			break
		}
		seen[id] = true
		p.m.Columns = append(p.m.Columns, tok)
		p.m.Devices = append(p.m.Devices, id)
	}
	n := len(p.m.Devices)
	p.m.Cells = make([][]string, n)
	for i := range p.m.Cells {
		p.m.Cells[i] = make([]string, n)
	}
	p.rowsSeen = map[string]bool{}
}

// cells splits a row of a matrix with n columns: the label and the n path
// cells, which are never empty, by any run of blanks (tabs, spaces, tabs
// padded with spaces as terminals and pastes mix them); the affinity
// columns after them by tabs when the rest has them (an empty "GPU NUMA
// ID" or NUMA cell is "\t\t"), else by runs of spaces.
func cells(text string, n int) []string {
	out := make([]string, 0, n+4)
	rest := text
	for len(out) < n+1 {
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			return out
		}
		end := strings.IndexAny(rest, " \t")
		if end < 0 {
			end = len(rest)
		}
		out = append(out, rest[:end])
		rest = rest[end:]
	}
	if strings.Contains(rest, "\t") {
		parts := strings.Split(strings.TrimLeft(rest, " "), "\t")
		if len(parts) > 0 && strings.TrimSpace(parts[0]) == "" {
			parts = parts[1:] // the separator before the first affinity cell
		}
		for _, p := range parts {
			out = append(out, strings.TrimSpace(p))
		}
		return out
	}
	return append(out, strings.Fields(rest)...)
}

func (p *topoParser) readRow(text string) {
	c := cells(text, len(p.m.Columns))
	label := c[0]
	row := -1
	for i, col := range p.m.Columns {
		if col == label {
			row = i
		}
	}
	if row < 0 {
		// Not a matrix row: the matrix ended without a legend, which is
		// fine once every row is in.
		if len(p.rowsSeen) < len(p.m.Columns) {
			p.fail(p.line, fmt.Sprintf("unexpected line %q inside the matrix", parse.Clip(text, 60)))
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
	n := len(p.m.Columns)
	if len(c)-1 < n {
		p.fail(p.line, fmt.Sprintf("row %s has %d of %d cells (input truncated?)", label, len(c)-1, n))
	}
	for j := 0; j < n && j+1 < len(c); j++ {
		cell, err := NormalizeCell(c[j+1])
		if err != nil {
			p.fail(p.line, fmt.Sprintf("row %s column %s: %v", label, p.m.Columns[j], err))
			continue
		}
		if (j == row) != (cell == "X") {
			p.fail(p.line, fmt.Sprintf("row %s column %s: %q where the diagonal must be X and only it", label, p.m.Columns[j], cell))
			continue
		}
		p.m.Cells[row][j] = cell
	}
	id := p.m.Devices[row]
	if !strings.HasPrefix(id, "GPU") {
		return
	}
	idx, err := strconv.Atoi(strings.TrimPrefix(id, "GPU"))
	if err != nil {
		p.fail(p.line, "bad GPU name "+id)
		return
	}
	g := GPURow{ID: id, Index: idx, NUMAAffinity: -1, GPUNUMAID: -1}
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
			g.NUMAAffinity = numaValue(rest[0])
		}
		if len(rest) > 1 && p.hasGPUNID {
			g.GPUNUMAID = numaValue(rest[1])
		}
	}
	p.m.GPUs = append(p.m.GPUs, g)
}

func numaValue(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

func (p *topoParser) finish() (*TopoMatrix, error) {
	m := p.m
	if m.Columns == nil {
		if p.err != nil {
			return m, p.err
		}
		return m, &parse.Error{Format: topoFormat, Msg: fmt.Sprintf("no topology matrix found in %d lines (the header line starts with GPU0)", p.line), Err: parse.ErrFormat}
	}
	if len(p.rowsSeen) < len(m.Columns) {
		var missing []string
		for _, c := range m.Columns {
			if !p.rowsSeen[c] {
				missing = append(missing, c)
			}
		}
		if p.err == nil {
			p.err = &parse.Error{Format: topoFormat, Line: max(p.lastRow, 1), Err: ErrRowsMissing,
				Msg: fmt.Sprintf("matrix ends after %d of %d rows; missing %s (input truncated?)",
					len(p.rowsSeen), len(m.Columns), strings.Join(missing, ", "))}
		}
	}
	for i, id := range m.Devices {
		if !strings.HasPrefix(id, "NIC") {
			continue
		}
		idx, _ := strconv.Atoi(strings.TrimPrefix(id, "NIC"))
		name := p.nicNames[id]
		if name == "" {
			name = m.Columns[i]
		}
		m.NICs = append(m.NICs, NICRow{ID: id, Index: idx, Name: name})
	}
	switch {
	case p.legendSOC:
		m.Notes = append(m.Notes, "old nvidia-smi format: SOC level (now SYS), no NODE level")
	case p.namedNICs:
		m.Notes = append(m.Notes, "older nvidia-smi format: NIC columns named after the device")
	case p.legendOld:
		m.Notes = append(m.Notes, "older nvidia-smi legend: PIX and PXB described as PCIe switches")
	}
	if !p.hasNUMA {
		m.Notes = append(m.Notes, "no NUMA Affinity column: NUMA nodes unknown")
	}
	return m, p.err
}

// stripEscapes removes terminal escape sequences (CSI: ESC [ ... letter),
// which nvidia-smi writes to underline the header.
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
