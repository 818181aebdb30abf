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

	"github.com/commlab/commlab/parse"
)

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

// reJSONDevice is a device entry of the JSON output: "0: NAME (BUSID)".
var reJSONDevice = regexp.MustCompile(`^(\d+):\s*(.*?)\s*\(([0-9A-Fa-f:.]+)\)(?::\s*\((.*)\))?\s*$`)

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
