package doctor

// This file is the expected side of the curve doctor: the machine a curve
// is priced on (Machine) and the busbw costmodel's calibrated estimate
// expects at each measured size (Model, ExpectedCurve; chapters 1, 2 and
// 4): NCCL's tuner picks the algorithm and protocol and gives its
// latency, the links give the bandwidth, the harness a host floor. It is
// the model `commlab model` prints and the one held to published
// measurements, so the doctor and the model never disagree on what a
// machine should reach.

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/costmodel"
)

// Machine names the machine the model prices: a costmodel node preset cut
// to GPUsPerNode GPUs, Nodes of them, NCCL's tuning constants of Family
// ("" is costmodel.DefaultNCCL), NVLS on or off, and how the measuring
// program issued each operation (Harness; the zero value is one GPU per
// host thread, as under mpirun or torchrun).
type Machine struct {
	Preset      string            `json:"preset"`
	GPUsPerNode int               `json:"gpus_per_node"`
	Nodes       int               `json:"nodes"`
	Family      string            `json:"nccl_family"`
	NVLS        bool              `json:"nvls"`
	Harness     costmodel.Harness `json:"harness,omitzero"`
}

func (m Machine) String() string {
	nvls := "NVLS off"
	if m.NVLS {
		nvls = "NVLS on"
	}
	family := m.Family
	if family == "" {
		family = costmodel.DefaultNCCL
	}
	s := fmt.Sprintf("%d node(s) of %s with %d GPUs each, NCCL %s tuning constants, %s", m.Nodes, m.Preset, m.GPUsPerNode, family, nvls)
	if n := m.Harness.ThreadGPUs; n > 1 {
		s += fmt.Sprintf(", %d GPUs issued from one host thread", n)
	}
	return s
}

// ModelPoint is the model's expectation at one size.
type ModelPoint struct {
	Bytes     float64 `json:"bytes" unit:"B"`
	TimeUs    float64 `json:"time_us" unit:"us"`
	LatencyUs float64 `json:"latency_us" unit:"us"`
	BusBW     float64 `json:"busbw_gbps" unit:"GB/s"`
	Algorithm string  `json:"algorithm"`
	Protocol  string  `json:"protocol"`
}

// Model is the expected curve at a measured curve's sizes.
type Model struct {
	Source string       `json:"source"`
	Points []ModelPoint `json:"points"`
}

// Sizes returns the model's message sizes in bytes.
func (m Model) Sizes() []float64 {
	return column(len(m.Points), func(i int) float64 { return m.Points[i].Bytes })
}

// BusBWs returns the model's busbw (GB/s) per size, for a chart.
func (m Model) BusBWs() []float64 {
	return column(len(m.Points), func(i int) float64 { return m.Points[i].BusBW })
}

// ExpectedCurve prices collective at each size with costmodel's
// calibrated estimate for the machine (Machine.Estimate: the tuner's pick,
// its latency or the harness floor, the links' bandwidth).
func ExpectedCurve(m Machine, collective string, sizes []float64) (Model, error) {
	node, err := costmodel.NodeByName(m.Preset)
	if err != nil {
		return Model{}, fmt.Errorf("doctor: %w", err)
	}
	if m.GPUsPerNode <= 0 {
		m.GPUsPerNode = node.GPUs
	}
	m.Nodes = max(m.Nodes, 1)
	if m.GPUsPerNode*m.Nodes <= 1 {
		// NCCL's tuner has no algorithm for one rank: nothing to price.
		return Model{Source: "no model: one rank (" + m.Preset + ")"}, nil
	}
	c, err := costmodel.ParseCollective(collective)
	if err != nil {
		return Model{}, fmt.Errorf("doctor: %w", err)
	}
	cm := costmodel.Machine{Node: node, GPUsPerNode: m.GPUsPerNode, Nodes: m.Nodes, NCCL: m.Family, NVLSOff: !m.NVLS, Harness: m.Harness}
	es, err := cm.EstimateSweep(c, sizes, "", "")
	if err != nil {
		return Model{}, fmt.Errorf("doctor: %w", err)
	}
	out := Model{Source: "costmodel estimate: " + m.String() + restsOn(es), Points: make([]ModelPoint, 0, len(es))}
	for _, e := range es {
		// The fixed part: NCCL's latency and the fill, or the host floor
		// where longer (all of the time where the floor hides the GPUs').
		latency := max(e.LatencyUs+e.FillUs, e.FloorUs)
		out.Points = append(out.Points, ModelPoint{Bytes: e.Bytes, TimeUs: e.TimeUs, LatencyUs: latency,
			BusBW: e.BusBWGBps, Algorithm: e.Algorithm, Protocol: e.Protocol})
	}
	return out, nil
}

// restsOn says which fitted constants the estimates rest on and how each
// is validated against published measurements.
func restsOn(es []costmodel.Estimate) string {
	status, err := costmodel.FittedConstantStatus()
	if err != nil {
		return ""
	}
	var names []string
	seen := map[string]bool{}
	for _, e := range es {
		for _, c := range e.Constants {
			if !seen[c] {
				seen[c] = true
				names = append(names, c+" "+status[c])
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "; rests on " + strings.Join(names, ", ")
}

// ExpectedFromTuner prices collective on ranks GPUs at each size with the
// pick of a tuning table and NCCL's own time for it: NCCL's view, without
// the calibration ExpectedCurve adds (for a table tuned by hand).
func ExpectedFromTuner(T costmodel.TunerTable, collective string, ranks int, sizes []float64, source string) (Model, error) {
	c, err := costmodel.ParseCollective(collective)
	if err != nil {
		return Model{}, fmt.Errorf("doctor: %w", err)
	}
	factor := costmodel.BusBWFactor(c, ranks)
	out := Model{Source: source, Points: make([]ModelPoint, 0, len(sizes))}
	for _, s := range sizes {
		ch, err := T.Pick(c, s)
		if err != nil {
			return Model{}, fmt.Errorf("doctor: %w", err)
		}
		p := ModelPoint{Bytes: s, TimeUs: ch.TimeUs, LatencyUs: ch.LatencyUs, Algorithm: ch.Algorithm, Protocol: ch.Protocol}
		if ch.TimeUs > 0 {
			p.BusBW = s / (ch.TimeUs * 1e3) * factor
		}
		out.Points = append(out.Points, p)
	}
	return out, nil
}
