package cudasamples

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/internal/jsonmatrix"
	"github.com/commlab/commlab/parse/internal/textinput"
)

// ErrTruncated says a matrix or block ended before all its rows.
var ErrTruncated = errors.New("cudasamples: output cut short")

// P2PDevice is one "Device: N, NAME, pciBusID: .., pciDeviceID: ..,
// pciDomainID:.." line.
type P2PDevice struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	// BusID is "dddd:bb:dd.0" built from the hexadecimal domain, bus and
	// device numbers the sample prints.
	BusID string `json:"bus_id"`
}

// Matrix is one of the sample's matrices, Values[row][column]: row i and
// column j are the pair the copy ran between, device i's memory copied to
// device j's ("D\D": source by destination, the copy issued on device
// i's stream); NaN where a cell was missing.
type Matrix struct {
	Title string `json:"title"`
	// Kind is "bandwidth" or "latency"; Unit "GB/s" or "us".
	Kind string `json:"kind"`
	Unit string `json:"unit"`
	// Bidirectional marks the both-ways bandwidth matrices: the sample
	// copies i to j and j to i at once and reports the sum.
	Bidirectional bool `json:"bidirectional,omitempty"`
	// P2P is true for the "P2P=Enabled" matrices.
	P2P bool `json:"p2p"`
	// Reads is set for "(P2P Reads)" matrices (--p2p_read).
	Reads bool `json:"reads,omitempty"`
	// Side is "GPU" or "CPU" for latency: the GPU's time per copy (CUDA
	// events) or the CPU's time to issue one.
	Side   string      `json:"side,omitempty"`
	Values [][]float64 `json:"-"`
}

// MarshalJSON writes missing cells as null, since JSON has no NaN.
func (m Matrix) MarshalJSON() ([]byte, error) {
	type plain Matrix
	return json.Marshal(struct {
		plain
		Values [][]*float64 `json:"values"`
	}{plain(m), jsonmatrix.WithNulls(m.Values)})
}

// OffDiagonal returns the mean, smallest and largest value of the cells
// between two different devices, skipping NaN.
func (m Matrix) OffDiagonal() (mean, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	n := 0
	for i, row := range m.Values {
		for j, v := range row {
			if i == j || math.IsNaN(v) {
				continue
			}
			mean += v
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			n++
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	return mean / float64(n), lo, hi
}

// At returns Values[i][j], NaN when out of range.
func (m Matrix) At(i, j int) float64 {
	if i < 0 || i >= len(m.Values) || j < 0 || j >= len(m.Values[i]) {
		return math.NaN()
	}
	return m.Values[i][j]
}

// P2PReport is a parsed p2pBandwidthLatencyTest output.
type P2PReport struct {
	Devices []P2PDevice `json:"devices"`
	// CanAccess[i][j] is "Device=i CAN Access Peer Device=j" (the diagonal
	// true).
	CanAccess [][]bool `json:"can_access,omitempty"`
	// Connectivity is the "P2P Connectivity Matrix" (1 where peer access
	// works).
	Connectivity [][]float64 `json:"connectivity,omitempty"`
	Matrices     []Matrix    `json:"matrices"`
}

// Bandwidth returns the bandwidth matrix of that direction and P2P state
// (writes, not reads).
func (r *P2PReport) Bandwidth(bidirectional, p2p bool) (Matrix, bool) {
	for _, m := range r.Matrices {
		if m.Kind == "bandwidth" && m.Bidirectional == bidirectional && m.P2P == p2p && !m.Reads {
			return m, true
		}
	}
	return Matrix{}, false
}

// Latency returns the latency matrix of that P2P state and side ("GPU" or
// "CPU"), writes.
func (r *P2PReport) Latency(p2p bool, side string) (Matrix, bool) {
	for _, m := range r.Matrices {
		if m.Kind == "latency" && m.P2P == p2p && m.Side == side && !m.Reads {
			return m, true
		}
	}
	return Matrix{}, false
}

var (
	deviceRE = regexp.MustCompile(`^Device: (\d+), (.*), pciBusID: ([0-9a-fA-F]+), pciDeviceID: ([0-9a-fA-F]+), pciDomainID:\s*([0-9a-fA-F]+)\s*$`)
	accessRE = regexp.MustCompile(`^Device=(\d+) (CAN|CANNOT) Access Peer Device=(\d+)$`)
	titleRE  = regexp.MustCompile(`^(Unidirectional |Bidirectional )?P2P=(Enabled|Disabled) (Bandwidth|Latency)( \(P2P (Writes|Reads)\))? Matrix \((GB/s|us)\)$`)
)

// ParseP2P reads p2pBandwidthLatencyTest's output. Older versions print
// the same matrices without "(P2P Writes)"; they read as writes.
func ParseP2P(r io.Reader) (*P2PReport, error) {
	lines, err := textinput.Read(r)
	if err != nil {
		return nil, fmt.Errorf("cudasamples: %w", err)
	}
	rep := &P2PReport{}
	seen := false
	var access []accessPair
	var errs []error
	perr := func(line int, err error, msg string) {
		errs = append(errs, &parse.Error{Format: "cudasamples", Line: line + 1, Msg: msg, Err: err})
	}
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		switch {
		case strings.HasPrefix(line, "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]"):
			seen = true
		case deviceRE.MatchString(line):
			m := deviceRE.FindStringSubmatch(line)
			idx, _ := strconv.Atoi(m[1])
			bus, _ := strconv.ParseUint(m[3], 16, 32)
			dev, _ := strconv.ParseUint(m[4], 16, 32)
			dom, _ := strconv.ParseUint(m[5], 16, 32)
			rep.Devices = append(rep.Devices, P2PDevice{Index: idx, Name: strings.TrimSpace(m[2]),
				BusID: fmt.Sprintf("%04x:%02x:%02x.0", dom, bus, dev)})
			seen = true
		case accessRE.MatchString(line):
			m := accessRE.FindStringSubmatch(line)
			a, _ := strconv.Atoi(m[1])
			b, _ := strconv.Atoi(m[3])
			if a >= 1024 || b >= 1024 {
				perr(i, parse.ErrFormat, "device index out of range")
				continue
			}
			access = append(access, accessPair{a, b, m[2] == "CAN"})
		case line == "P2P Connectivity Matrix":
			seen = true
			vals, next, err := readGrid(lines, i+1, "D\\D")
			rep.Connectivity = vals
			if err != nil {
				perr(next, err, err.Error())
				return rep, errors.Join(errs...)
			}
			i = next - 1
		case titleRE.MatchString(line):
			seen = true
			m := titleRE.FindStringSubmatch(line)
			base := Matrix{Title: line, Kind: strings.ToLower(m[3]), Unit: m[6], P2P: m[2] == "Enabled",
				Bidirectional: m[1] == "Bidirectional ", Reads: m[5] == "Reads"}
			if base.Kind == "bandwidth" {
				vals, next, err := readGrid(lines, i+1, "D\\D")
				base.Values = vals
				rep.Matrices = append(rep.Matrices, base)
				if err != nil {
					perr(next, err, err.Error())
					return rep, errors.Join(errs...)
				}
				i = next - 1
				continue
			}
			// Latency: a GPU grid, a blank line, a CPU grid.
			next := i + 1
			for _, side := range []string{"GPU", "CPU"} {
				for next < len(lines) && strings.TrimSpace(lines[next]) == "" {
					next++
				}
				if next >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[next]), side) {
					if side == "CPU" {
						break // older versions print the GPU grid only
					}
					perr(next, ErrTruncated, "latency matrix without its GPU grid")
					return rep, errors.Join(errs...)
				}
				m := base
				m.Side = side
				vals, end, err := readGrid(lines, next, side)
				m.Values = vals
				rep.Matrices = append(rep.Matrices, m)
				if err != nil {
					perr(end, err, err.Error())
					return rep, errors.Join(errs...)
				}
				next = end
			}
			i = next - 1
		}
	}
	if !seen {
		return nil, &parse.Error{Format: "cudasamples", Msg: "no p2pBandwidthLatencyTest heading or matrix", Err: parse.ErrFormat}
	}
	rep.CanAccess = accessMatrix(access, len(rep.Devices))
	return rep, errors.Join(errs...)
}

// accessPair is one "Device=a CAN|CANNOT Access Peer Device=b" line.
type accessPair struct {
	a, b int
	can  bool
}

// accessMatrix builds CanAccess from the access lines: n devices at least
// (nil when there are no lines), the diagonal true.
func accessMatrix(pairs []accessPair, n int) [][]bool {
	if len(pairs) == 0 {
		return nil
	}
	for _, p := range pairs {
		n = max(n, p.a+1, p.b+1)
	}
	m := make([][]bool, n)
	for i := range m {
		m[i] = make([]bool, n)
		m[i][i] = true
	}
	for _, p := range pairs {
		m[p.a][p.b] = p.can
	}
	return m
}

// readGrid reads a header line starting with corner ("D\D", "GPU", "CPU")
// and the numbered rows under it, as many as the header has columns. It
// returns the values, the index of the line after the grid, and
// ErrTruncated when rows are missing.
func readGrid(lines []string, i int, corner string) ([][]float64, int, error) {
	if i >= len(lines) {
		return nil, i, fmt.Errorf("%w: no %s header", ErrTruncated, corner)
	}
	head := strings.Fields(lines[i])
	if len(head) == 0 || head[0] != corner {
		return nil, i, fmt.Errorf("%w: want a %s header, found %q", parse.ErrFormat, corner, parse.Clip(strings.TrimSpace(lines[i]), 60))
	}
	n := len(head) - 1
	if n == 0 || n > 1024 {
		return nil, i, fmt.Errorf("%w: %d columns", parse.ErrFormat, n)
	}
	vals := make([][]float64, 0, n)
	i++
	for len(vals) < n {
		if i >= len(lines) {
			return vals, i, fmt.Errorf("%w: %d of %d rows", ErrTruncated, len(vals), n)
		}
		f := strings.Fields(lines[i])
		if len(f) == 0 || f[0] != strconv.Itoa(len(vals)) {
			return vals, i, fmt.Errorf("%w: %d of %d rows", ErrTruncated, len(vals), n)
		}
		row := make([]float64, n)
		for j := range row {
			row[j] = math.NaN()
			if j+1 < len(f) {
				if v, err := strconv.ParseFloat(f[j+1], 64); err == nil {
					row[j] = v
				}
			}
		}
		vals = append(vals, row)
		i++
	}
	return vals, i, nil
}
