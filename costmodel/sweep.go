package costmodel

import (
	"fmt"
	"math"
	"strings"

	"github.com/commlab/commlab/units"
)

// Row is one point of a sweep: plain fields a table or chart can take.
// Times are in seconds, bandwidths in bytes/s.
type Row struct {
	Collective    string
	Algorithm     string
	Protocol      string
	Ranks         int
	Nodes         int
	Bytes         float64 `unit:"B"`
	Time          float64 `unit:"s"`
	LatencyTerm   float64 `unit:"s"`
	BandwidthTerm float64 `unit:"s"`
	AlgBW         float64 `unit:"B/s"`
	BusBW         float64 `unit:"B/s"`
	Bound         string
}

// RowOf turns a Cost into a Row.
func RowOf(c Cost) Row {
	return Row{Collective: string(c.Collective), Algorithm: string(c.Algorithm), Protocol: c.Protocol,
		Ranks: c.Ranks, Nodes: c.Nodes, Bytes: c.Bytes, Time: c.Time, LatencyTerm: c.LatencyTerm,
		BandwidthTerm: c.BandwidthTerm, AlgBW: c.AlgBW, BusBW: c.BusBW, Bound: c.Bound}
}

// Sizes returns the sizes nccl-tests visits with -b min -e max -f factor:
// min, min*factor, ... up to and including max. Whole sizes and a whole
// factor step exactly, as units.Sweep does; fractional ones step in
// float64. A factor <= 1 gives min alone.
func Sizes(min, max, factor float64) []float64 {
	if min <= 0 || max < min {
		return nil
	}
	if factor <= 1 {
		return []float64{min}
	}
	if whole(min) && whole(max) && whole(factor) {
		s, err := units.Sweep(int64(min), int64(max), int64(factor))
		if err == nil {
			return floats(s)
		}
	}
	var out []float64
	for s := min; s <= max*(1+1e-12); s *= factor {
		out = append(out, s)
	}
	return out
}

// whole says v is an integer that int64 holds exactly.
func whole(v float64) bool { return v == math.Trunc(v) && math.Abs(v) < 1<<53 }

func floats(s []int64) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}

// LinearSizes returns count sizes evenly spaced from min to max, for
// dense sweeps (a million points for a smooth curve).
func LinearSizes(min, max float64, count int) []float64 {
	if count < 1 {
		return nil
	}
	if count == 1 {
		return []float64{min}
	}
	out := make([]float64, count)
	step := (max - min) / float64(count-1)
	for i := range out {
		out[i] = min + step*float64(i)
	}
	return out
}

// ParseSweep reads a sweep in units.ParseSweep's grammar: "8B:8GB"
// (doubling, as nccl-tests -f 2), "8B:8GB:4" (a whole factor, as -f) or a
// list "8,1M,64M", and returns the sizes.
func ParseSweep(s string) ([]float64, error) {
	sizes, err := units.ParseSweep(s)
	if err != nil {
		return nil, unitError{err}
	}
	return floats(sizes), nil
}

// SweepSizes predicts p at every size.
func SweepSizes(p Params, sizes []float64) ([]Row, error) {
	rows := make([]Row, len(sizes))
	if err := SweepSizesInto(p, sizes, rows); err != nil {
		return nil, err
	}
	return rows, nil
}

// SweepSizesInto is SweepSizes writing into rows (len(rows) >= len(sizes)),
// so a caller that sweeps again and again allocates nothing.
func SweepSizesInto(p Params, sizes []float64, rows []Row) error {
	if len(rows) < len(sizes) {
		return fmt.Errorf("%w: %d rows for %d sizes", ErrParams, len(rows), len(sizes))
	}
	for i, s := range sizes {
		p.Bytes = s
		c, err := Predict(p)
		if err != nil {
			return fmt.Errorf("%w (at %v bytes)", err, s)
		}
		rows[i] = RowOf(c)
	}
	return nil
}

// SweepRanks predicts p for every rank count (Nodes is kept; a rank count
// that does not spread evenly over the nodes is an error).
func SweepRanks(p Params, ranks []int) ([]Row, error) {
	rows := make([]Row, 0, len(ranks))
	for _, n := range ranks {
		p.Ranks = n
		c, err := Predict(p)
		if err != nil {
			return rows, fmt.Errorf("%w (at %d ranks)", err, n)
		}
		rows = append(rows, RowOf(c))
	}
	return rows, nil
}

// SweepParam predicts p with one named parameter set to each value:
// "bytes", "ranks", "nodes", "alpha", "beta", "inter_alpha",
// "inter_beta", "channels" or "channel_beta".
func SweepParam(p Params, name string, values []float64) ([]Row, error) {
	set, err := paramSetter(name)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, 0, len(values))
	for _, v := range values {
		q := p
		set(&q, v)
		c, err := Predict(q)
		if err != nil {
			return rows, fmt.Errorf("%w (at %s=%v)", err, name, v)
		}
		rows = append(rows, RowOf(c))
	}
	return rows, nil
}

func paramSetter(name string) (func(*Params, float64), error) {
	switch strings.ToLower(name) {
	case "bytes", "size":
		return func(p *Params, v float64) { p.Bytes = v }, nil
	case "ranks", "n":
		return func(p *Params, v float64) { p.Ranks = int(v) }, nil
	case "nodes":
		return func(p *Params, v float64) { p.Nodes = int(v) }, nil
	case "alpha":
		return func(p *Params, v float64) { p.Alpha = v }, nil
	case "beta":
		return func(p *Params, v float64) { p.Beta = v }, nil
	case "inter_alpha":
		return func(p *Params, v float64) { p.InterAlpha = v }, nil
	case "inter_beta":
		return func(p *Params, v float64) { p.InterBeta = v }, nil
	case "channels":
		return func(p *Params, v float64) { p.Channels = int(v) }, nil
	case "channel_beta":
		return func(p *Params, v float64) { p.ChannelBeta = v }, nil
	}
	return nil, fmt.Errorf("%w: unknown sweep parameter %q (want bytes, ranks, nodes, alpha, beta, inter_alpha, inter_beta, channels, channel_beta)", ErrParams, name)
}

// SweepAlgorithms predicts p under every algorithm that applies, skipping
// those that return ErrUnsupported: one row per algorithm.
func SweepAlgorithms(p Params) []Row {
	var rows []Row
	for _, a := range Algorithms() {
		p.Algorithm = a
		if c, err := Predict(p); err == nil {
			rows = append(rows, RowOf(c))
		}
	}
	return rows
}

// SweepTuner returns the tuner's pick at every size as rows (Algorithm and
// Protocol are NCCL's names; LatencyTerm is the table latency).
func SweepTuner(T TunerTable, c Collective, sizes []float64) ([]Row, error) {
	rows := make([]Row, 0, len(sizes))
	for _, s := range sizes {
		ch, err := T.Pick(c, s)
		if err != nil {
			return rows, err
		}
		t := ch.TimeUs * 1e-6
		r := Row{Collective: string(c), Algorithm: ch.Algorithm, Protocol: ch.Protocol, Ranks: T.ranks,
			Nodes: T.nodes, Bytes: s, Time: t, LatencyTerm: ch.LatencyUs * 1e-6}
		r.BandwidthTerm = math.Max(0, t-r.LatencyTerm)
		if t > 0 {
			r.AlgBW = s / t
			r.BusBW = r.AlgBW * BusBWFactor(c, T.ranks)
		}
		r.Bound = "bandwidth"
		if r.LatencyTerm > r.BandwidthTerm {
			r.Bound = "latency"
		}
		rows = append(rows, r)
	}
	return rows, nil
}
