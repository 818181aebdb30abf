package nvbandwidth

import (
	"math"
	"strconv"
	"strings"
)

// matrixRow reads a row of the matrix under the header: its index, then
// one number or N/A (kept as NaN) per header column. ok is false when the
// line does not start with a row index, so it is not a row.
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

// closeMatrix ends the matrix being read; a testcase with rows has
// results even when its SUM line never came.
func (p *textParser) closeMatrix() {
	p.header = nil
	if p.cur != nil && p.cur.Status == StatusIncomplete && len(p.cur.Matrix) > 0 {
		p.cur.Status = StatusPassed
	}
}

// isSquare reports whether the matrix has one row per GPU. Host, latency
// and all-to-one testcases print a single row by design, so only GPU x GPU
// matrices can be known to be cut short.
func isSquare(t *Testcase) bool {
	return t.RowLabel == "GPU" && t.ColumnLabel == "GPU"
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
