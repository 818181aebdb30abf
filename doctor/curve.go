package doctor

// This file is the measured side of the curve doctor: one busbw curve
// (CurvePoint, Curve) read from nccl-tests output or a commlab NCCL run.
// The doctor reads it against the cost model's expectation for the
// machine (curve_model.go) and names its shape with the checks of the
// decision tree (curve_diagnose.go, curve_tree.go).

import (
	"errors"
	"fmt"
	"sort"

	"github.com/commlab/commlab/parse/nccltests"
	"github.com/commlab/commlab/probes"
)

// ChapterCurve is the chapter that explains the curve doctor's verdicts.
const ChapterCurve = "06-nccl-tests"

// ErrNoCurve is wrapped when an input holds no point to read a curve from.
var ErrNoCurve = errors.New("no curve")

// CurvePoint is one message size of a measured curve.
type CurvePoint struct {
	Bytes  float64 `json:"bytes" unit:"B"`
	TimeUs float64 `json:"time_us" unit:"us"`
	BusBW  float64 `json:"busbw_gbps" unit:"GB/s"`
}

// Curve is a measured bus-bandwidth curve of one collective.
type Curve struct {
	// Source says what measured it ("nccl-tests all_reduce_perf 2.18.3",
	// "commlab probe nccl").
	Source     string `json:"source"`
	Collective string `json:"collective"`
	Ranks      int    `json:"ranks"`
	// Nodes is the number of hosts taking part (1 when the input names
	// none).
	Nodes int    `json:"nodes"`
	NCCL  string `json:"nccl,omitempty"`
	// GPU is the GPU model the input names ("NVIDIA A100-SXM4-80GB"), ""
	// when it names none.
	GPU string `json:"gpu,omitempty"`
	// CollectiveFrom and RanksFrom say how the input gave the collective
	// and the rank count (nccl-tests' program name, its columns, its
	// device lines); Collective is "" when nothing told it.
	CollectiveFrom string `json:"collective_from,omitempty"`
	RanksFrom      string `json:"ranks_from,omitempty"`
	// ThreadGPUs is how many GPUs one host thread issued each operation
	// to (nccl-tests' -g; commlab's NCCL probe drives every GPU from one
	// thread); 0 when the input does not say. The model's host floor
	// grows with it.
	ThreadGPUs int          `json:"thread_gpus,omitempty"`
	Notes      []string     `json:"notes,omitempty"`
	Points     []CurvePoint `json:"points"`
}

// Sizes returns the curve's message sizes in bytes.
func (c Curve) Sizes() []float64 {
	return column(len(c.Points), func(i int) float64 { return c.Points[i].Bytes })
}

// BusBWs returns the curve's busbw (GB/s) per size, for a chart.
func (c Curve) BusBWs() []float64 {
	return column(len(c.Points), func(i int) float64 { return c.Points[i].BusBW })
}

// column is one value of each of n points, in order: a curve's or a
// model's sizes or busbw for a table or a chart.
func column(n int, value func(i int) float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = value(i)
	}
	return out
}

// CurveFromNCCLTests reads the out-of-place half of an nccl-tests run (the
// in-place half where the out-of-place one was not printed), rows of 0
// bytes left out. The
// collective and the rank count are the parser's (Run.Collective and
// Run.NRanks, found from the columns when the output does not say), nodes
// the hosts of its device lines, the GPU model their device name.
func CurveFromNCCLTests(r *nccltests.Run) (Curve, error) {
	if r == nil || len(r.Rows) == 0 {
		return Curve{}, fmt.Errorf("doctor: nccl-tests run: %w (no rows)", ErrNoCurve)
	}
	c := Curve{Source: "nccl-tests", Collective: r.Collective, Ranks: r.NRanks(), Nodes: 1, NCCL: r.LibraryVersion(),
		CollectiveFrom: r.CollectiveFrom, RanksFrom: r.RanksFrom, ThreadGPUs: r.Params.NGpus, Notes: append([]string(nil), r.Notes...)}
	if r.Library == "RCCL" {
		c.Source = "rccl-tests"
	}
	if r.Program != "" {
		c.Source += " " + r.Program
	}
	if r.TestsVersion != "" {
		c.Source += " " + r.TestsVersion
	}
	hosts := map[string]bool{}
	models := map[string]int{}
	for _, d := range r.Devices {
		if d.Host != "" {
			hosts[d.Host] = true
		}
		if d.Name != "" {
			if _, ok := models[d.Name]; !ok {
				models[d.Name] = len(models)
			}
		}
	}
	if len(hosts) > 1 {
		c.Nodes = len(hosts)
	}
	for name, i := range models {
		if i == 0 {
			c.GPU = name
		}
	}
	if len(models) > 1 {
		c.Notes = append(c.Notes, fmt.Sprintf("the device lines name %d GPU models; the first, %s, chooses the preset", len(models), c.GPU))
	}
	for _, row := range r.Rows {
		m := row.OutOfPlace
		if !m.Present {
			m = row.InPlace
		}
		// A 0-byte row (nccl-tests -b 0, or a count of 0 elements) moves
		// no data: its time is the bare call, which would stand in for
		// the small-message floor.
		if !m.Present || m.TimeUs <= 0 || row.SizeBytes <= 0 {
			continue
		}
		c.Points = append(c.Points, CurvePoint{Bytes: float64(row.SizeBytes), TimeUs: m.TimeUs, BusBW: m.BusBW})
	}
	if len(c.Points) == 0 {
		return Curve{}, fmt.Errorf("doctor: nccl-tests run: %w (no timed row)", ErrNoCurve)
	}
	return c, nil
}

// CurveFromRun reads the samples of one collective from a commlab NCCL run
// (probes.Run of kind "nccl", or a PyTorch reference run), out-of-place
// unless inPlace. Ranks come from the samples, nodes are 1 (commlab's NCCL
// probe runs on one host).
func CurveFromRun(r *probes.Run, collective string, inPlace bool) (Curve, error) {
	if r == nil {
		return Curve{}, fmt.Errorf("doctor: run: %w", ErrNoCurve)
	}
	c := Curve{Source: "commlab probe " + r.Kind, Collective: collective, Nodes: 1, NCCL: r.NCCL, GPU: r.GPUModel,
		CollectiveFrom: "the run's samples", RanksFrom: "the run's samples"}
	if r.Kind == "nccl-tests" {
		c.Source = "nccl-tests (through commlab)"
	}
	for _, s := range r.Samples {
		if s.Op != collective || s.InPlace != inPlace || s.MedianUS <= 0 {
			continue
		}
		if s.Ranks > c.Ranks {
			c.Ranks = s.Ranks
		}
		c.Points = append(c.Points, CurvePoint{Bytes: float64(s.Bytes), TimeUs: s.MedianUS, BusBW: s.BusBW})
	}
	if c.Ranks == 0 {
		c.Ranks = r.GPUCount
	}
	if len(c.Points) == 0 {
		return Curve{}, fmt.Errorf("doctor: run %s: %w for %s (in place %v)", r.Kind, ErrNoCurve, collective, inPlace)
	}
	if r.Kind == "nccl" {
		c.ThreadGPUs = c.Ranks // the probe issues every operation to all its GPUs from one thread
	}
	sort.SliceStable(c.Points, func(i, j int) bool { return c.Points[i].Bytes < c.Points[j].Bytes })
	return c, nil
}
