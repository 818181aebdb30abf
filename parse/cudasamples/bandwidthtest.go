package cudasamples

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/internal/textinput"
)

// BandwidthRow is one "Transfer Size (Bytes)  Bandwidth(..)" row.
type BandwidthRow struct {
	Bytes int64 `json:"bytes"`
	// Value is the number as printed, in Unit; GBps is it in 10^9 bytes per
	// second.
	Value float64 `json:"value"`
	GBps  float64 `json:"gbps"`
}

// BandwidthTestCase is one direction and memory kind of a run: "Host to
// Device Bandwidth" with "PINNED Memory Transfers", and its rows.
type BandwidthTestCase struct {
	// Direction is "host_to_device", "device_to_host" or
	// "device_to_device"; Memory "pinned" or "pageable".
	Direction string         `json:"direction"`
	Memory    string         `json:"memory"`
	Unit      string         `json:"unit"` // "GB/s" or "MB/s"
	Rows      []BandwidthRow `json:"rows"`
}

// BandwidthRun is one run of bandwidthTest on one device.
type BandwidthRun struct {
	// Command is the line printed before the run, when it looks like one
	// (a prompt, "numactl ... bandwidthTest"): where the process was bound.
	Command string `json:"command,omitempty"`
	Device  int    `json:"device"`
	Name    string `json:"name"`
	// Mode is "Quick Mode", "Range Mode" or "Shmoo Mode".
	Mode   string              `json:"mode,omitempty"`
	Tests  []BandwidthTestCase `json:"tests"`
	Result string              `json:"result,omitempty"` // "PASS", "FAIL"
}

// Test returns the run's case of that direction and memory kind.
func (r BandwidthRun) Test(direction, memory string) (BandwidthTestCase, bool) {
	for _, t := range r.Tests {
		if t.Direction == direction && t.Memory == memory {
			return t, true
		}
	}
	return BandwidthTestCase{}, false
}

// Peak returns the largest GB/s of the run's case of that direction and
// memory kind, and whether the case exists with a row.
func (r BandwidthRun) Peak(direction, memory string) (float64, bool) {
	t, ok := r.Test(direction, memory)
	if !ok || len(t.Rows) == 0 {
		return 0, false
	}
	best := 0.0
	for _, row := range t.Rows {
		best = max(best, row.GBps)
	}
	return best, true
}

// BandwidthReport is one or more bandwidthTest runs.
type BandwidthReport struct {
	Runs []BandwidthRun `json:"runs"`
}

var (
	runDeviceRE = regexp.MustCompile(`^Device (\d+): (.+)$`)
	caseRE      = regexp.MustCompile(`^(Host to Device|Device to Host|Device to Device) Bandwidth`)
	memoryRE    = regexp.MustCompile(`^(PINNED|PAGEABLE) Memory Transfers`)
	unitRE      = regexp.MustCompile(`^Transfer Size \(Bytes\)\s+Bandwidth\((GB/s|MB/s)\)`)
	rowRE       = regexp.MustCompile(`^(\d+)\s+([0-9.]+)$`)
)

// ParseBandwidthTest reads the output of one or more bandwidthTest runs.
// A run starts at "[CUDA Bandwidth Test] - Starting..." (or its "Running
// on..." line); the line before it, a command or a prompt, is kept as the
// run's Command.
func ParseBandwidthTest(r io.Reader) (*BandwidthReport, error) {
	lines, err := textinput.Read(r)
	if err != nil {
		return nil, fmt.Errorf("cudasamples: %w", err)
	}
	rep := &BandwidthReport{}
	var run *BandwidthRun
	var tc *BandwidthTestCase
	var errs []error
	prev := "" // the line before this one, blanks skipped
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		before := prev
		prev = line
		switch {
		case strings.Contains(line, "CUDA Bandwidth Test] - Starting"):
			rep.Runs = append(rep.Runs, BandwidthRun{Command: commandLine(before), Device: -1})
			run, tc = &rep.Runs[len(rep.Runs)-1], nil
		case run == nil:
		case runDeviceRE.MatchString(line) && run.Device < 0:
			m := runDeviceRE.FindStringSubmatch(line)
			run.Device, _ = strconv.Atoi(m[1])
			run.Name = m[2]
		case strings.HasSuffix(line, " Mode") && len(strings.Fields(line)) == 2:
			run.Mode = line
		case caseRE.MatchString(line):
			dir := strings.ReplaceAll(strings.ToLower(caseRE.FindStringSubmatch(line)[1]), " ", "_")
			run.Tests = append(run.Tests, BandwidthTestCase{Direction: dir})
			tc = &run.Tests[len(run.Tests)-1]
		case memoryRE.MatchString(line) && tc != nil:
			tc.Memory = strings.ToLower(memoryRE.FindStringSubmatch(line)[1])
		case unitRE.MatchString(line) && tc != nil:
			tc.Unit = unitRE.FindStringSubmatch(line)[1]
		case rowRE.MatchString(line) && tc != nil:
			if tc.Unit == "" {
				errs = append(errs, &parse.Error{Format: "cudasamples", Line: i + 1, Msg: "a bandwidth row before its header", Err: parse.ErrFormat})
				continue
			}
			m := rowRE.FindStringSubmatch(line)
			b, _ := strconv.ParseInt(m[1], 10, 64)
			v, _ := strconv.ParseFloat(m[2], 64)
			gbps := v
			if tc.Unit == "MB/s" {
				gbps = v / 1e3
			}
			tc.Rows = append(tc.Rows, BandwidthRow{Bytes: b, Value: v, GBps: gbps})
		case strings.HasPrefix(line, "Result = "):
			run.Result = strings.TrimPrefix(line, "Result = ")
			run, tc = nil, nil
		}
	}
	if len(rep.Runs) == 0 {
		return nil, &parse.Error{Format: "cudasamples", Msg: "no \"[CUDA Bandwidth Test] - Starting...\" line (want bandwidthTest output)", Err: parse.ErrFormat}
	}
	for k, r := range rep.Runs {
		for _, t := range r.Tests {
			if len(t.Rows) == 0 {
				errs = append(errs, &parse.Error{Format: "cudasamples", Msg: fmt.Sprintf("run %d (device %d): %s %s has no row", k+1, r.Device, t.Direction, t.Memory), Err: ErrTruncated})
			}
		}
	}
	return rep, errors.Join(errs...)
}

// commandLine keeps a line that launched the run: a shell prompt or a
// command naming bandwidthTest.
func commandLine(s string) string {
	if strings.HasPrefix(s, "$") || strings.HasPrefix(s, "#") || strings.Contains(s, "bandwidthTest") {
		return s
	}
	return ""
}
