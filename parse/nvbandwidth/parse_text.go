package nvbandwidth

import (
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/internal/textinput"
)

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

// The device lines of the text header: single-node and multinode builds.
var (
	reDevice  = regexp.MustCompile(`^Device (\d+): (.*?)(?: \(([0-9A-Fa-f:.]+)\))?\s*$`)
	reProcess = regexp.MustCompile(`^Process (\d+) \((.*?)\): device (\d+): (.*?)(?: \(([0-9A-Fa-f:.]+)\))?\s*$`)
)

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

func looksLikeDescription(line string) bool {
	return strings.HasPrefix(line, "memcpy ") || strings.HasPrefix(line, "memory latency") ||
		strings.Contains(line, "bandwidth (") || strings.Contains(line, "Latency") || strings.HasSuffix(line, "(ns)")
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}
