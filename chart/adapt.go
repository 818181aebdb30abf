package chart

import (
	"math"
	"strconv"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/parse/nccltests"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/units"
)

// ModelTime turns a costmodel sweep into a dashed time-vs-size series
// (bytes, seconds) for TimeVsSize.
func ModelTime(name string, rows []costmodel.Row) Series {
	s := Series{Name: name, Dashed: true, X: make([]float64, len(rows)), Y: make([]float64, len(rows))}
	for i, r := range rows {
		s.X[i], s.Y[i] = r.Bytes, r.Time
	}
	return s
}

// ModelBusBW turns a costmodel sweep into a dashed busbw-vs-size series
// (bytes, GB/s) for BusBWVsSize.
func ModelBusBW(name string, rows []costmodel.Row) Series {
	s := Series{Name: name, Dashed: true, X: make([]float64, len(rows)), Y: make([]float64, len(rows))}
	for i, r := range rows {
		s.X[i], s.Y[i] = r.Bytes, r.BusBW/1e9
	}
	return s
}

// MeasuredTime turns measured samples into a time-vs-size series of points
// (bytes, median seconds) for TimeVsSize.
func MeasuredTime(name string, samples []probes.Sample) Series {
	s := Series{Name: name, Points: true, X: make([]float64, len(samples)), Y: make([]float64, len(samples))}
	for i, m := range samples {
		s.X[i], s.Y[i] = float64(m.Bytes), m.MedianUS*1e-6
	}
	return s
}

// MeasuredBusBW turns measured samples into a busbw-vs-size series of
// points (bytes, GB/s) for BusBWVsSize.
func MeasuredBusBW(name string, samples []probes.Sample) Series {
	s := Series{Name: name, Points: true, X: make([]float64, len(samples)), Y: make([]float64, len(samples))}
	for i, m := range samples {
		s.X[i], s.Y[i] = float64(m.Bytes), m.BusBW
	}
	return s
}

// NCCLTestsBusBW turns a parsed nccl-tests run into a busbw-vs-size series
// of points (bytes, out-of-place GB/s) for BusBWVsSize, named after the
// run's collective:
//
//	res, _ := nccltests.Parse(f)
//	chart.BusBWVsSize("measured", 0, "", chart.NCCLTestsBusBW(res.Runs[0]))
func NCCLTestsBusBW(run nccltests.Run) Series {
	return Series{Name: ncclTestsName(run), Points: true, X: run.SizesBytes(), Y: run.OutOfPlaceBusBW()}
}

// NCCLTestsTime turns a parsed nccl-tests run into a time-vs-size series of
// points (bytes, out-of-place seconds) for TimeVsSize.
func NCCLTestsTime(run nccltests.Run) Series {
	s := Series{Name: ncclTestsName(run), Points: true, X: run.SizesBytes(), Y: run.OutOfPlaceTimeUs()}
	for i := range s.Y {
		s.Y[i] *= 1e-6
	}
	return s
}

func ncclTestsName(run nccltests.Run) string {
	name := run.Collective
	if name == "" {
		name = "nccl-tests"
	}
	if n := run.NRanks(); n > 0 {
		name += " (" + strconv.Itoa(n) + " ranks)"
	}
	return name
}

// BreakdownBySize stacks the latency term under the bandwidth term of each
// row of a size sweep, one bar per size, for StackedBars.
func BreakdownBySize(rows []costmodel.Row) Bars {
	b := breakdown(rows)
	b.CategoryLabel = "Message size"
	for _, r := range rows {
		b.Categories = append(b.Categories, units.Readable(r.Bytes, "B"))
	}
	return b
}

// BreakdownByAlgorithm stacks the latency term under the bandwidth term of
// each row, one bar per algorithm (and protocol, when the rows have one),
// for StackedBars.
func BreakdownByAlgorithm(rows []costmodel.Row) Bars {
	b := breakdown(rows)
	b.CategoryLabel = "Algorithm"
	for _, r := range rows {
		name := r.Algorithm
		if r.Protocol != "" {
			name += "/" + r.Protocol
		}
		b.Categories = append(b.Categories, name)
	}
	return b
}

func breakdown(rows []costmodel.Row) Bars {
	lat := Stack{Name: "latency term", Values: make([]float64, len(rows))}
	bw := Stack{Name: "bandwidth term", Values: make([]float64, len(rows))}
	for i, r := range rows {
		lat.Values[i], bw.Values[i] = r.LatencyTerm, r.BandwidthTerm
	}
	return Bars{Stacks: []Stack{lat, bw}, Value: Axis{Label: "Time", Unit: UnitSeconds}}
}

// PeerMatrix gathers device-to-device samples of one operation ("p2p_write",
// "d2d", ...) into a devices x devices matrix of bandwidth in GB/s (the
// samples' AlgBW), labelled GPU0, GPU1, ... Each cell takes the sample of
// the largest size for its pair (the bandwidth plateau); pairs with no
// sample, the diagonal included, are NaN and show as N/A.
func PeerMatrix(samples []probes.Sample, op string, devices int) Matrix {
	m := Matrix{Unit: "GB/s", RowTitle: "Source GPU", ColTitle: "Destination GPU"}
	if devices < 0 {
		devices = 0
	}
	size := make([][]int64, devices)
	m.Values = make([][]float64, devices)
	for i := range devices {
		m.Rows = append(m.Rows, "GPU"+strconv.Itoa(i))
		m.Values[i] = make([]float64, devices)
		size[i] = make([]int64, devices)
		for j := range m.Values[i] {
			m.Values[i][j] = math.NaN()
		}
	}
	m.Cols = append([]string(nil), m.Rows...)
	for _, s := range samples {
		if s.Op != op || s.Src < 0 || s.Dst < 0 || s.Src >= devices || s.Dst >= devices {
			continue
		}
		if s.Bytes >= size[s.Src][s.Dst] {
			size[s.Src][s.Dst] = s.Bytes
			m.Values[s.Src][s.Dst] = s.AlgBW
		}
	}
	return m
}
