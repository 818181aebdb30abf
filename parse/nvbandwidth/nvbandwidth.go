package nvbandwidth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/commlab/commlab/parse/internal/jsonmatrix"
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

// endTestcase checks the testcase being read is complete before the next.
