package nvbandwidth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/commlab/commlab/probes/parse"
	"github.com/commlab/commlab/probes/parse/internal/jsonmatrix"
	"github.com/commlab/commlab/probes/parse/internal/textinput"
)

// Sentinel errors callers can branch on with errors.Is.
var (
	// ErrTruncated means the input stops inside a testcase or a matrix.
	ErrTruncated = errors.New("nvbandwidth: truncated output")
	// ErrMalformed means a line that should be part of a matrix or a
	// summary could not be read.
	ErrMalformed = errors.New("nvbandwidth: malformed line")
)

// Status values a testcase can have. The first four are nvbandwidth's own
// words; StatusIncomplete marks a testcase whose output stopped early.
const (
	StatusPassed     = "Passed"
	StatusWaived     = "Waived"
	StatusError      = "Error"
	StatusNotFound   = "Not Found"
	StatusIncomplete = "Incomplete"
)

// Device is one GPU from the header ("Device 0: NAME (0000:xx:00)") or,
// for multinode builds, one process line.
type Device struct {
	Index   int    `json:"index"`
	Name    string `json:"name"`
	BusID   string `json:"bus_id,omitempty"`
	Process int    `json:"process"` // -1 for single-node output
	Host    string `json:"host,omitempty"`
}

// Testcase is one measured pattern.
type Testcase struct {
	Name        string `json:"name"`
	Status      string `json:"status"`
	Description string `json:"description,omitempty"`
	// Method is "CE" (copy engine), "SM" (kernel copy) or "" when the
	// description names neither.
	Method string `json:"method,omitempty"`
	// Unit is the unit printed in the description: "GB/s" or "ns".
	Unit string `json:"unit,omitempty"`
	// RowLabel and ColumnLabel are the endpoints named in the description,
	// e.g. "CPU" and "GPU"; Direction is "->", "<-", "<->" or "".
	RowLabel    string `json:"row_label,omitempty"`
	ColumnLabel string `json:"column_label,omitempty"`
	Direction   string `json:"direction,omitempty"`
	// Bidirectional marks nvbandwidth's "bidirectional" testcases, which
	// copy both ways at once. DirectionNote says what their numbers are:
	// mostly OneWay (one direction, measured while the reverse runs), never
	// a two-way total unless it says so (TwoWaySum, TwoWayAggregate).
	Bidirectional bool   `json:"bidirectional,omitempty"`
	DirectionNote string `json:"direction_note,omitempty"`
	// Group is the testcase nvbandwidth ran ("Running <Group>.") when it
	// printed several matrices under it: from v0.6 a device-to-device
	// bidirectional testcase prints each direction and their total, and
	// each becomes a Testcase named by its SUM key (<Group>_read1,
	// <Group>_read2, <Group>_total; _write1, _write2 for write tests).
	Group string `json:"group,omitempty"`
	// Matrix[row][col] in Unit; N/A cells are NaN.
	Matrix [][]float64 `json:"-"`
	Sum    float64     `json:"sum"`
	HasSum bool        `json:"has_sum"`
	// CoefficientOfVariation is printed from nvbandwidth v0.10.
	CoefficientOfVariation float64 `json:"coefficient_of_variation,omitempty"`
	HasCoefficient         bool    `json:"has_coefficient_of_variation,omitempty"`
	// Min, Max and Average come from verbose JSON output only.
	Min     float64 `json:"min,omitempty"`
	Max     float64 `json:"max,omitempty"`
	Average float64 `json:"average,omitempty"`
	Error   string  `json:"error,omitempty"`
	// Line is where the testcase starts in text input (0 for JSON).
	Line int `json:"line,omitempty"`
}

// Report is one nvbandwidth run.
type Report struct {
	Format             string     `json:"format"` // "text" or "json"
	Version            string     `json:"version,omitempty"`
	GitVersion         string     `json:"git_version,omitempty"`
	CUDARuntimeVersion int        `json:"cuda_runtime_version,omitempty"`
	CUDADriverVersion  int        `json:"cuda_driver_version,omitempty"`
	DriverVersion      string     `json:"driver_version,omitempty"`
	Hostname           string     `json:"hostname,omitempty"`
	Devices            []Device   `json:"devices,omitempty"`
	Testcases          []Testcase `json:"testcases"`
	// Waived counts "Waived:" lines: text output does not name the waived
	// testcase, so they are counted rather than listed.
	Waived   int      `json:"waived,omitempty"`
	Errors   []string `json:"errors,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// What a bidirectional testcase's numbers are (DirectionNote), from
// nvbandwidth's testcases_ce.cpp, testcases_sm.cpp and memcpy.cpp (v0.5 to
// v0.8) and its testcase list (v0.10).
const (
	// OneWay: the copy in one direction, timed on its own stream while a
	// copy the other way runs and is not counted (CE); for SM copies, half
	// of a kernel whose warps copy both ways at once (v0.7+). Host-device
	// testcases and the per-direction matrices of device-to-device ones.
	OneWay = "one direction, measured while the reverse runs"
	// TwoWaySum: the "Total" matrix of a device-to-device testcase (v0.6+),
	// each cell the sum of the two one-way cells above it.
	TwoWaySum = "both directions added: the sum of the two one-way rates, each measured while the other ran"
	// TwoWayAggregate: device-to-device SM testcases up to v0.5, which
	// divide the bytes of both copies by their common time.
	TwoWayAggregate = "both directions together: the bytes of both copies over their common time (nvbandwidth v0.5 and older)"
)

// IsTwoWay reports whether the testcase's numbers count both directions.
func (t Testcase) IsTwoWay() bool {
	return t.DirectionNote == TwoWaySum || t.DirectionNote == TwoWayAggregate
}

// classify sets Bidirectional and DirectionNote from the name (or the
// group), the description and the report's version.
func classify(t *Testcase, version string) {
	name := t.Name
	if t.Group != "" {
		name = t.Group
	}
	t.Bidirectional = strings.Contains(name, "bidirectional")
	if !t.Bidirectional {
		return
	}
	sm := t.Method == "SM" || (t.Method == "" && strings.HasSuffix(name, "_sm"))
	switch {
	case strings.HasSuffix(t.Name, "_total") || strings.Contains(t.Description, " Total bandwidth"):
		t.DirectionNote = TwoWaySum
	case strings.HasPrefix(name, "device_to_device_") && sm && t.Group == "" && !before06(version, true):
		t.DirectionNote = OneWay
	case strings.HasPrefix(name, "device_to_device_") && sm && t.Group == "":
		t.DirectionNote = TwoWayAggregate
	default:
		t.DirectionNote = OneWay
	}
}

var reVersion = regexp.MustCompile(`^v?(\d+)\.(\d+)`)

// before06 reports whether version is older than v0.6, the release that
// split device-to-device bidirectional results by direction; unknown
// versions give ifUnknown.
func before06(version string, ifUnknown bool) bool {
	m := reVersion.FindStringSubmatch(strings.TrimSpace(version))
	if m == nil {
		return ifUnknown
	}
	major, minor := atoi(m[1]), atoi(m[2])
	return major == 0 && minor < 6
}

// Cell is one measured matrix entry.
type Cell struct {
	Row   int     `json:"row"`
	Col   int     `json:"col"`
	Value float64 `json:"value"`
}

// IsLatency reports whether the testcase measures latency rather than
// bandwidth.
func (t Testcase) IsLatency() bool { return t.Unit == "ns" }

// Cells lists the measured (non-N/A) entries in row-major order.
func (t Testcase) Cells() []Cell {
	var cells []Cell
	for r, row := range t.Matrix {
		for c, v := range row {
			if !math.IsNaN(v) {
				cells = append(cells, Cell{Row: r, Col: c, Value: v})
			}
		}
	}
	return cells
}

// Value returns the cell at row, col, or NaN when it is N/A or out of range.
func (t Testcase) Value(row, col int) float64 {
	if row < 0 || row >= len(t.Matrix) || col < 0 || col >= len(t.Matrix[row]) {
		return math.NaN()
	}
	return t.Matrix[row][col]
}

// BytesPerSecond returns the cell as bytes per second (GB/s x 1e9), or NaN
// for N/A cells and latency testcases.
func (t Testcase) BytesPerSecond(row, col int) float64 {
	if t.Unit != "GB/s" {
		return math.NaN()
	}
	return t.Value(row, col) * 1e9
}

// Testcase returns the testcase with the given name.
func (r *Report) Testcase(name string) (Testcase, bool) {
	for _, t := range r.Testcases {
		if t.Name == name {
			return t, true
		}
	}
	return Testcase{}, false
}

// MarshalJSON writes N/A cells as null, since JSON has no NaN.
func (t Testcase) MarshalJSON() ([]byte, error) {
	type plain Testcase
	return json.Marshal(struct {
		plain
		Matrix [][]*float64 `json:"matrix"`
	}{plain(t), jsonmatrix.WithNulls(t.Matrix)})
}

// Parse reads nvbandwidth text or JSON output, whichever r holds. On error
// the returned Report holds what was parsed before the failing line.
func Parse(r io.Reader) (*Report, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return &Report{}, fmt.Errorf("nvbandwidth: read: %w", err)
	}
	if start, ok := jsonStart(data); ok {
		return parseJSON(data, start)
	}
	return ParseText(bytes.NewReader(data))
}

// ParseJSON reads the output of nvbandwidth -j. Lines printed before the
// JSON object (warnings) are skipped.
func ParseJSON(r io.Reader) (*Report, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return &Report{}, fmt.Errorf("nvbandwidth: read: %w", err)
	}
	start, ok := jsonStart(data)
	if !ok {
		return &Report{Format: "json"}, &parse.Error{Format: "nvbandwidth", Msg: "no JSON object with an \"nvbandwidth\" key", Err: parse.ErrFormat}
	}
	return parseJSON(data, start)
}

// jsonStart finds the first line opening a JSON object that holds the
// "nvbandwidth" key; DCGM's captured outputs show warnings printed first.
func jsonStart(data []byte) (int, bool) {
	off := 0
	for off < len(data) {
		end := bytes.IndexByte(data[off:], '\n')
		line := data[off:]
		if end >= 0 {
			line = data[off : off+end]
		}
		trimmed := bytes.TrimLeft(line, " \t\r")
		if len(trimmed) > 0 && trimmed[0] == '{' {
			rest := data[off:]
			if len(rest) > 4096 {
				rest = rest[:4096]
			}
			if bytes.Contains(rest, []byte(`"nvbandwidth"`)) {
				return off + (len(line) - len(trimmed)), true
			}
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return 0, false
}

type jsonTestcase struct {
	Name        string      `json:"name"`
	Status      string      `json:"status"`
	Description string      `json:"bandwidth_description"`
	Matrix      [][]jsonNum `json:"bandwidth_matrix"`
	Sum         *float64    `json:"sum"`
	Min         *float64    `json:"min"`
	Max         *float64    `json:"max"`
	Average     *float64    `json:"average"`
	Error       string      `json:"error"`
}

// jsonNum accepts the matrix cells nvbandwidth writes: numbers printed as
// strings ("12.3964"), "N/A", and plain numbers for robustness.
type jsonNum float64

func (n *jsonNum) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		s = strings.TrimSpace(s)
		if s == "N/A" || s == "" {
			*n = jsonNum(math.NaN())
			return nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("matrix cell %q: %w", s, err)
		}
		*n = jsonNum(v)
		return nil
	}
	if string(b) == "null" {
		*n = jsonNum(math.NaN())
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("matrix cell %s: %w", b, err)
	}
	*n = jsonNum(v)
	return nil
}

func parseJSON(data []byte, start int) (*Report, error) {
	rep := &Report{Format: "json"}
	var doc struct {
		NV map[string]json.RawMessage `json:"nvbandwidth"`
	}
	dec := json.NewDecoder(bytes.NewReader(data[start:]))
	if err := dec.Decode(&doc); err != nil {
		line := 1 + bytes.Count(data[:start], []byte{'\n'})
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off := start + int(se.Offset)
			if off > len(data) {
				off = len(data)
			}
			line = 1 + bytes.Count(data[:off], []byte{'\n'})
		}
		kind := ErrMalformed
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			kind = ErrTruncated
		}
		return rep, &parse.Error{Format: "nvbandwidth", Line: line, Msg: "JSON: " + err.Error(), Err: kind}
	}
	if doc.NV == nil {
		return rep, &parse.Error{Format: "nvbandwidth", Msg: "JSON has no \"nvbandwidth\" object", Err: parse.ErrFormat}
	}
	str := func(key string) string {
		var s string
		if raw, ok := doc.NV[key]; ok {
			_ = json.Unmarshal(raw, &s)
		}
		return s
	}
	rep.Version = str("version")
	rep.GitVersion = str("git_version")
	rep.DriverVersion = str("Driver Version")
	rep.Hostname = str("Hostname")
	if raw, ok := doc.NV["CUDA Runtime Version"]; ok {
		_ = json.Unmarshal(raw, &rep.CUDARuntimeVersion)
	}
	if e := str("error"); e != "" {
		rep.Errors = append(rep.Errors, e)
	}
	if w := str("warning"); w != "" {
		rep.Warnings = append(rep.Warnings, w)
	}
	if raw, ok := doc.NV["GPU Device list"]; ok {
		var list []string
		if err := json.Unmarshal(raw, &list); err == nil {
			for i, s := range list {
				rep.Devices = append(rep.Devices, jsonDevice(i, s))
			}
		}
	}
	if raw, ok := doc.NV["testcases"]; ok {
		var tcs []jsonTestcase
		if err := json.Unmarshal(raw, &tcs); err != nil {
			return rep, &parse.Error{Format: "nvbandwidth", Msg: "JSON testcases: " + err.Error(), Err: ErrMalformed}
		}
		for _, jt := range tcs {
			t := Testcase{Name: jt.Name, Status: jt.Status, Error: jt.Error}
			describe(&t, strings.TrimSpace(jt.Description))
			for _, row := range jt.Matrix {
				vals := make([]float64, len(row))
				for i, v := range row {
					vals[i] = float64(v)
				}
				t.Matrix = append(t.Matrix, vals)
			}
			if jt.Sum != nil {
				t.Sum, t.HasSum = *jt.Sum, true
			}
			if jt.Min != nil {
				t.Min = *jt.Min
			}
			if jt.Max != nil {
				t.Max = *jt.Max
			}
			if jt.Average != nil {
				t.Average = *jt.Average
			}
			if t.Status == StatusWaived {
				rep.Waived++
			}
			rep.Testcases = append(rep.Testcases, splitParts(t)...)
		}
	}
	for i := range rep.Testcases {
		classify(&rep.Testcases[i], rep.Version)
	}
	return rep, nil
}

// splitParts undoes what -j does to a testcase that prints several
// matrices: json_output.cpp appends each to one bandwidth_matrix and keeps
// the last description and sum, so a v0.6+ device-to-device bidirectional
// testcase holds three n x n matrices, the two directions then their
// "Total". They come back as the three Testcases text output gives, named
// by the keys its SUM lines use; the per-direction descriptions and sums
// are rebuilt (sums as nvbandwidth adds them, N/A as 0).
func splitParts(t Testcase) []Testcase {
	rows := len(t.Matrix)
	if !strings.Contains(t.Description, " Total bandwidth") || rows == 0 || rows != 3*len(t.Matrix[0]) {
		return []Testcase{t}
	}
	kind := ""
	switch {
	case strings.Contains(t.Name, "_read_"):
		kind = "read"
	case strings.Contains(t.Name, "_write_"):
		kind = "write"
	default:
		return []Testcase{t}
	}
	n := rows / 3
	parts := make([]Testcase, 3)
	for i, suffix := range []string{kind + "1", kind + "2", "total"} {
		p := t
		p.Name, p.Group = t.Name+"_"+suffix, t.Name
		p.Matrix = t.Matrix[i*n : (i+1)*n]
		if suffix != "total" {
			word := strings.ToUpper(suffix[:1]) + suffix[1:]
			p.Description = strings.Replace(t.Description, " Total bandwidth", " "+word+" bandwidth", 1)
			p.Sum, p.HasSum = 0, true
			for _, c := range p.Cells() {
				p.Sum += c.Value
			}
			p.Min, p.Max, p.Average = 0, 0, 0
		}
		parts[i] = p
	}
	return parts
}

// jsonDevice reads "0: NVIDIA H200 (00000000:19:00): (host)".
func jsonDevice(i int, s string) Device {
	d := Device{Index: i, Process: -1}
	if m := reJSONDevice.FindStringSubmatch(s); m != nil {
		d.Index, _ = strconv.Atoi(m[1])
		d.Name = strings.TrimSpace(m[2])
		d.BusID = m[3]
		d.Host = m[4]
		return d
	}
	d.Name = s
	return d
}

var (
	reJSONDevice = regexp.MustCompile(`^(\d+):\s*(.*?)\s*\(([0-9A-Fa-f:.]+)\)(?::\s*\((.*)\))?\s*$`)
	reDevice     = regexp.MustCompile(`^Device (\d+): (.*?)(?: \(([0-9A-Fa-f:.]+)\))?\s*$`)
	reProcess    = regexp.MustCompile(`^Process (\d+) \((.*?)\): device (\d+): (.*?)(?: \(([0-9A-Fa-f:.]+)\))?\s*$`)
	reDescEnds   = regexp.MustCompile(`(?i)^(\S+)\((rows?|columns?)\)\s*(<->|->|<-)\s*(\S+)\((rows?|columns?)\)`)
	reUnit       = regexp.MustCompile(`\(([^()]*)\)\s*$`)
)

// describe fills the fields derived from the description line.
func describe(t *Testcase, desc string) {
	t.Description = desc
	if desc == "" {
		return
	}
	if m := reUnit.FindStringSubmatch(desc); m != nil {
		t.Unit = m[1]
	}
	fields := strings.Fields(desc)
	for i, f := range fields {
		if (f == "CE" || f == "SM") && i > 0 {
			t.Method = f
			if m := reDescEnds.FindStringSubmatch(strings.Join(fields[i+1:], " ")); m != nil {
				t.Direction = m[3]
				// Old builds say "GPU(columns) <- CPU(rows)"; normalise to
				// the row endpoint first.
				if strings.HasPrefix(strings.ToLower(m[2]), "row") {
					t.RowLabel, t.ColumnLabel = m[1], m[4]
				} else {
					t.RowLabel, t.ColumnLabel = m[4], m[1]
					t.Direction = flip(m[3])
				}
			}
			break
		}
	}
}

func flip(dir string) string {
	switch dir {
	case "->":
		return "<-"
	case "<-":
		return "->"
	}
	return dir
}

// ParseText reads nvbandwidth's plain text output.
func ParseText(r io.Reader) (*Report, error) {
	rep := &Report{Format: "text"}
	p := textParser{Scanner: textinput.Scanner{Format: "nvbandwidth", Malformed: ErrMalformed}, rep: rep}
	err := p.Scan(r, p.feed)
	if err == nil {
		err = p.finish()
	}
	for i := range rep.Testcases {
		classify(&rep.Testcases[i], rep.Version)
	}
	return rep, err
}

type textParser struct {
	textinput.Scanner
	rep        *Report
	recognised bool
	cur        *Testcase // testcase being read, nil between testcases
	header     []int     // column indices of the current matrix
	pending    string    // a lone word that may be the hostname
	// preamble holds unknown lines seen before any nvbandwidth line.
	preamble         []string
	firstUnknown     int
	firstUnknownText string
}

func (p *textParser) feed(raw string) error {
	line := strings.TrimSpace(raw)
	pending := p.pending
	p.pending = ""
	if line == "" {
		if p.cur != nil && p.cur.Matrix != nil {
			p.closeMatrix()
		}
		return nil
	}
	if p.cur != nil && p.header != nil {
		if row, ok, err := p.matrixRow(line); ok || err != nil {
			if err != nil {
				return err
			}
			p.cur.Matrix = append(p.cur.Matrix, row)
			return nil
		}
		p.closeMatrix()
	}
	switch {
	case strings.HasPrefix(line, "nvbandwidth Version:"):
		p.recognised = true
		p.rep.Version = strings.TrimSpace(strings.TrimPrefix(line, "nvbandwidth Version:"))
	case strings.HasPrefix(line, "Built from Git version:"):
		p.rep.GitVersion = strings.TrimSpace(strings.TrimPrefix(line, "Built from Git version:"))
	case strings.HasPrefix(line, "CUDA Runtime Version:"):
		p.rep.CUDARuntimeVersion = atoi(strings.TrimPrefix(line, "CUDA Runtime Version:"))
	case strings.HasPrefix(line, "CUDA Driver Version:"):
		p.rep.CUDADriverVersion = atoi(strings.TrimPrefix(line, "CUDA Driver Version:"))
	case strings.HasPrefix(line, "Driver Version:"):
		p.rep.DriverVersion = strings.TrimSpace(strings.TrimPrefix(line, "Driver Version:"))
	case strings.HasPrefix(line, "Device ") && reDevice.MatchString(line):
		m := reDevice.FindStringSubmatch(line)
		p.recognised = true
		if pending != "" && len(p.rep.Devices) == 0 {
			p.rep.Hostname = pending
			if n := len(p.preamble); n > 0 && p.preamble[n-1] == pending {
				p.preamble = p.preamble[:n-1]
			}
		}
		p.rep.Devices = append(p.rep.Devices, Device{Index: atoi(m[1]), Name: m[2], BusID: m[3], Process: -1, Host: p.rep.Hostname})
	case strings.HasPrefix(line, "Process ") && reProcess.MatchString(line):
		m := reProcess.FindStringSubmatch(line)
		p.recognised = true
		p.rep.Devices = append(p.rep.Devices, Device{Process: atoi(m[1]), Host: m[2], Index: atoi(m[3]), Name: m[4], BusID: m[5]})
	case strings.HasPrefix(line, "Running "):
		p.recognised = true
		if err := p.endTestcase(); err != nil {
			return err
		}
		name := strings.TrimSuffix(strings.TrimPrefix(line, "Running "), ".")
		name = strings.TrimPrefix(name, "benchmark ") // README of the first releases
		p.rep.Testcases = append(p.rep.Testcases, Testcase{Name: strings.TrimSpace(name), Status: StatusIncomplete, Line: p.Line})
		p.cur = &p.rep.Testcases[len(p.rep.Testcases)-1]
	case strings.HasPrefix(line, "SUM "):
		return p.summary(line, "SUM", func(t *Testcase, v float64) { t.Sum, t.HasSum = v, true })
	case strings.HasPrefix(line, "COEFFICIENT_OF_VARIATION "):
		return p.summary(line, "COEFFICIENT_OF_VARIATION", func(t *Testcase, v float64) {
			t.CoefficientOfVariation, t.HasCoefficient = v, true
		})
	case strings.HasPrefix(line, "Waived:"):
		p.recognised = true
		p.rep.Waived++
	case strings.HasPrefix(line, "NOTE:") || strings.HasPrefix(line, "Performance can vary") ||
		strings.HasPrefix(line, "Additional system-specific") || strings.HasPrefix(line, "MPI version:"):
		// informational footer and header lines
	case p.cur != nil && p.cur.Description == "" && p.cur.Matrix == nil && looksLikeDescription(line):
		describe(p.cur, line)
	case p.cur == nil && (strings.HasPrefix(line, "memcpy ") || strings.HasPrefix(line, "memory latency")):
		// A pasted excerpt that lost its "Running" line: the SUM line that
		// follows names the testcase.
		p.rep.Testcases = append(p.rep.Testcases, Testcase{Status: StatusIncomplete, Line: p.Line})
		p.cur = &p.rep.Testcases[len(p.rep.Testcases)-1]
		describe(p.cur, line)
	case p.cur != nil && p.cur.Description != "" && p.cur.Matrix == nil && p.header == nil && isHeader(line):
		p.header = headerIndices(line)
	case p.cur != nil && p.cur.Matrix != nil && p.header == nil && p.cur.Group != "" && looksLikeDescription(line):
		// The next matrix under the same "Running" line; its SUM line
		// will name it.
		group := p.cur.Group
		p.rep.Testcases = append(p.rep.Testcases, Testcase{Status: StatusIncomplete, Line: p.Line, Group: group})
		p.cur = &p.rep.Testcases[len(p.rep.Testcases)-1]
		describe(p.cur, line)
	case p.cur != nil:
		// An assertion or CUDA error printed inside a testcase.
		p.cur.Status = StatusError
		if p.cur.Error != "" {
			p.cur.Error += "\n"
		}
		p.cur.Error += line
	case strings.HasPrefix(line, "Warning:") || strings.HasPrefix(line, "WARNING"):
		p.rep.Warnings = append(p.rep.Warnings, line)
	case !strings.ContainsAny(line, " \t") && !p.recognisedTestcases():
		p.pending = line // a hostname line precedes the device list (v0.8+)
		if !p.recognised {
			p.unknown(line)
		}
	default:
		if !p.recognised {
			// A shell prompt or pasted command may precede the output;
			// only a file with nothing of nvbandwidth's is foreign.
			p.unknown(line)
			return nil
		}
		p.rep.Errors = append(p.rep.Errors, line)
	}
	return nil
}

// unknown keeps a line seen before any nvbandwidth line.
func (p *textParser) unknown(line string) {
	if p.firstUnknown == 0 {
		p.firstUnknown, p.firstUnknownText = p.Line, line
	}
	p.preamble = append(p.preamble, line)
}

func (p *textParser) recognisedTestcases() bool { return len(p.rep.Testcases) > 0 }

func (p *textParser) summary(line, key string, set func(*Testcase, float64)) error {
	p.recognised = true
	fields := strings.Fields(line)
	if len(fields) != 3 {
		return p.Errorf(ErrMalformed, "%s line wants a testcase name and a value: %q", key, parse.Clip(line, 80))
	}
	v, err := strconv.ParseFloat(fields[2], 64)
	if err != nil {
		return p.Errorf(ErrMalformed, "%s value %q is not a number", key, fields[2])
	}
	t := p.find(fields[1])
	if t == nil && p.cur != nil && p.cur.Name != "" && !p.cur.HasSum && strings.HasPrefix(fields[1], p.cur.Name+"_") {
		// The first of several matrices under one "Running" line: its
		// SUM key names it (device_to_device_..._read1).
		p.cur.Group, p.cur.Name = p.cur.Name, fields[1]
		t = p.cur
	}
	if t == nil && len(p.rep.Testcases) > 0 && p.rep.Testcases[len(p.rep.Testcases)-1].Name == "" {
		t = &p.rep.Testcases[len(p.rep.Testcases)-1]
		t.Name = fields[1]
	}
	if t == nil {
		p.rep.Testcases = append(p.rep.Testcases, Testcase{Name: fields[1], Status: StatusPassed, Line: p.Line})
		t = &p.rep.Testcases[len(p.rep.Testcases)-1]
	}
	set(t, v)
	if t.Status == StatusIncomplete && t.Matrix != nil {
		t.Status = StatusPassed
	}
	return nil
}

func (p *textParser) find(name string) *Testcase {
	for i := len(p.rep.Testcases) - 1; i >= 0; i-- {
		if p.rep.Testcases[i].Name == name {
			return &p.rep.Testcases[i]
		}
	}
	return nil
}

func (p *textParser) matrixRow(line string) ([]float64, bool, error) {
	fields := strings.Fields(line)
	idx, err := strconv.Atoi(fields[0])
	if err != nil {
		return nil, false, nil
	}
	if idx != len(p.cur.Matrix) {
		return nil, false, p.Errorf(ErrMalformed, "matrix row %d where row %d was expected", idx, len(p.cur.Matrix))
	}
	cells := fields[1:]
	if len(cells) != len(p.header) {
		return nil, false, p.Errorf(ErrMalformed, "matrix row %d has %d cells, header has %d", idx, len(cells), len(p.header))
	}
	row := make([]float64, len(cells))
	for i, c := range cells {
		if c == "N/A" {
			row[i] = math.NaN()
			continue
		}
		v, err := strconv.ParseFloat(c, 64)
		if err != nil {
			return nil, false, p.Errorf(ErrMalformed, "matrix row %d cell %d: %q is not a number", idx, i, c)
		}
		row[i] = v
	}
	return row, true, nil
}

func (p *textParser) closeMatrix() {
	p.header = nil
	if p.cur != nil && p.cur.Status == StatusIncomplete && len(p.cur.Matrix) > 0 {
		p.cur.Status = StatusPassed
	}
}

// endTestcase checks the testcase being read is complete before the next.
func (p *textParser) endTestcase() error {
	p.closeMatrix()
	p.header = nil
	p.cur = nil
	return nil
}

func (p *textParser) finish() error {
	if !p.recognised {
		if p.firstUnknown > 0 {
			return p.ErrorAt(p.firstUnknown, parse.ErrFormat, "not nvbandwidth output: %q", parse.Clip(p.firstUnknownText, 80))
		}
		return p.Errorf(parse.ErrFormat, "no nvbandwidth header, testcase or SUM line found")
	}
	if len(p.preamble) > 0 {
		p.rep.Warnings = append(p.preamble, p.rep.Warnings...)
	}
	if p.cur != nil {
		t := p.cur
		if p.header != nil && len(t.Matrix) < len(p.header) && isSquare(t) {
			return p.Errorf(ErrTruncated, "output ends inside the matrix of %s (started line %d)", t.Name, t.Line)
		}
		p.closeMatrix()
		if t.Status == StatusIncomplete && len(t.Matrix) == 0 {
			return p.Errorf(ErrTruncated, "output ends before %s (started line %d) printed its results", t.Name, t.Line)
		}
	}
	return nil
}

// isSquare reports whether the matrix has one row per GPU. Host, latency
// and all-to-one testcases print a single row by design, so only GPU x GPU
// matrices can be known to be cut short.
func isSquare(t *Testcase) bool {
	return t.RowLabel == "GPU" && t.ColumnLabel == "GPU"
}

func looksLikeDescription(line string) bool {
	return strings.HasPrefix(line, "memcpy ") || strings.HasPrefix(line, "memory latency") ||
		strings.Contains(line, "bandwidth (") || strings.Contains(line, "Latency") || strings.HasSuffix(line, "(ns)")
}

func isHeader(line string) bool {
	fields := strings.Fields(line)
	for i, f := range fields {
		if n, err := strconv.Atoi(f); err != nil || n != i {
			return false
		}
	}
	return len(fields) > 0
}

func headerIndices(line string) []int {
	fields := strings.Fields(line)
	out := make([]int, len(fields))
	for i := range fields {
		out[i] = i
	}
	return out
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}

// WriteSummary writes what a person reads first about an nvbandwidth report:
// a line naming the input (file) and the versions, then the devices and, per
// testcase, its status, sum, what a bidirectional testcase's numbers are
// (its DirectionNote, in brackets) and matrix. A nil Report writes "nothing
// parsed".
func (rep *Report) WriteSummary(w io.Writer, file string) error {
	if rep == nil {
		return parse.WriteNothingParsed(w, file)
	}
	return parse.WriteBuffered(w, func(w io.Writer) {
		head := []string{rep.Format}
		if rep.Version != "" {
			head = append(head, "nvbandwidth "+rep.Version)
		}
		if rep.CUDARuntimeVersion > 0 {
			head = append(head, fmt.Sprintf("CUDA runtime %d", rep.CUDARuntimeVersion))
		}
		if rep.DriverVersion != "" {
			head = append(head, "driver "+rep.DriverVersion)
		}
		if rep.Hostname != "" {
			head = append(head, "host "+rep.Hostname)
		}
		fmt.Fprintf(w, "%s: %s\n", file, strings.Join(head, ", "))
		for _, d := range rep.Devices {
			fmt.Fprintf(w, "  device %d: %s", d.Index, d.Name)
			if d.BusID != "" {
				fmt.Fprintf(w, " (%s)", d.BusID)
			}
			fmt.Fprintln(w)
		}
		for _, t := range rep.Testcases {
			name := t.Name
			if name == "" {
				name = "(unnamed)"
			}
			fmt.Fprintf(w, "  %s: %s", name, t.Status)
			if t.Description != "" {
				fmt.Fprintf(w, ", %s", t.Description)
			}
			if t.HasSum {
				fmt.Fprintf(w, ", sum %g %s", t.Sum, t.Unit)
			}
			if t.HasCoefficient {
				fmt.Fprintf(w, ", CV %g", t.CoefficientOfVariation)
			}
			if t.DirectionNote != "" {
				fmt.Fprintf(w, " [%s]", t.DirectionNote)
			}
			fmt.Fprintln(w)
			if t.Error != "" {
				fmt.Fprintf(w, "    error: %s\n", strings.ReplaceAll(t.Error, "\n", "\n           "))
			}
			writeMatrix(w, t.Matrix)
		}
		if rep.Waived > 0 {
			fmt.Fprintf(w, "  waived testcases: %d\n", rep.Waived)
		}
		for _, e := range rep.Errors {
			fmt.Fprintf(w, "  error: %s\n", e)
		}
	})
}

func writeMatrix(w io.Writer, m [][]float64) {
	if len(m) == 0 {
		return
	}
	cols := 0
	for _, row := range m {
		cols = max(cols, len(row))
	}
	fmt.Fprintf(w, "    %4s", "")
	for c := 0; c < cols; c++ {
		fmt.Fprintf(w, " %9d", c)
	}
	fmt.Fprintln(w)
	for r, row := range m {
		fmt.Fprintf(w, "    %4d", r)
		for _, v := range row {
			if math.IsNaN(v) {
				fmt.Fprintf(w, " %9s", "N/A")
			} else {
				fmt.Fprintf(w, " %9.2f", v)
			}
		}
		fmt.Fprintln(w)
	}
}
