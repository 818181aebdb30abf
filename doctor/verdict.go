package doctor

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Status is a check's outcome. The zero value is OK.
type Status int

const (
	OK Status = iota
	Warn
	Fail
	// Skipped: the evidence the check needs is absent (no GPU, no log given).
	Skipped
)

var statusNames = [...]string{OK: "ok", Warn: "warn", Fail: "fail", Skipped: "skipped"}

func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("status(%d)", int(s))
	}
	return statusNames[s]
}

// MarshalJSON writes the status as its name ("ok", "warn", "fail", "skipped").
func (s Status) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads a status name.
func (s *Status) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return fmt.Errorf("doctor: status: %w", err)
	}
	for i, n := range statusNames {
		if n == strings.ToLower(name) {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("doctor: unknown status %q (want ok, warn, fail or skipped)", name)
}

// Layer names the layer of the stack a check looks at.
type Layer string

const (
	LayerTopology   Layer = "topology"   // PCIe, NUMA, ACS, IOMMU, NIC placement
	LayerNVLink     Layer = "nvlink"     // NVLink state, P2P capability and bandwidth
	LayerNIC        Layer = "nic"        // RDMA devices, GIDs, GPUDirect RDMA
	LayerNCCL       Layer = "nccl"       // version, network, transports, channels, tuner pick
	LayerCollective Layer = "collective" // the busbw curve against the model
	LayerFramework  Layer = "framework"  // overlap, environment
	LayerHang       Layer = "hang"       // Flight Recorder dumps, stacks, kernel log
	LayerEvidence   Layer = "evidence"   // what the inputs held and what could not be read
)

// Verdict is one check's result.
type Verdict struct {
	Layer    Layer    `json:"layer"`
	Check    string   `json:"check"`
	Status   Status   `json:"status"`
	Summary  string   `json:"summary"`
	Evidence []string `json:"evidence,omitempty"`
	Next     string   `json:"next,omitempty"`
	Chapter  string   `json:"chapter,omitempty"` // e.g. "06-nccl-tests"
	// Branch is the leaf of chapter 6's decision tree this verdict marks
	// (BranchHangSame, ...), when it marks one.
	Branch string `json:"branch,omitempty"`
}

// judge sets the verdict's outcome in one statement: its status, the
// summary that says why, and what to do next ("" where nothing is to do).
// It returns the verdict, so that a check ends with return v.judge(...).
func (v *Verdict) judge(s Status, summary, next string) Verdict {
	v.Status, v.Summary, v.Next = s, summary, next
	return *v
}

func (v Verdict) String() string {
	return fmt.Sprintf("[%s] %s/%s: %s", v.Status, v.Layer, v.Check, v.Summary)
}

// ExitCode is the job-prolog exit status of a set of verdicts: 0 when all
// are ok or skipped, 1 with warnings, 2 with any failure.
func ExitCode(vs []Verdict) int {
	code := 0
	for _, v := range vs {
		switch v.Status {
		case Fail:
			return 2
		case Warn:
			code = 1
		}
	}
	return code
}
