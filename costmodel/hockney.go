package costmodel

import "math"

// AlphaBeta is Hockney's model of one message over one link:
// T(S) = Alpha + S/Beta, with Alpha the start-up latency in seconds and Beta
// the one-way bandwidth in bytes per second.
type AlphaBeta struct {
	Alpha float64 `unit:"s"`
	Beta  float64 `unit:"B/s"`
}

// Time returns Alpha + size/Beta in seconds.
func (m AlphaBeta) Time(size float64) float64 {
	if m.Beta <= 0 {
		return math.Inf(1)
	}
	return m.Alpha + size/m.Beta
}

// Crossover returns S* = Alpha*Beta in bytes: the size whose transfer time
// equals the start-up latency. Below it a message is latency-bound, above
// it bandwidth-bound. This is the one-message case; a collective pays
// alpha and moves bytes a different number of times (a ring all_reduce
// crosses over at n Alpha Beta), which the package function Crossover
// computes.
func (m AlphaBeta) Crossover() float64 { return m.Alpha * m.Beta }

// Bound names the term that dominates for a message of the given size:
// "latency" below the crossover, "bandwidth" at or above it.
func (m AlphaBeta) Bound(size float64) string {
	if size < m.Crossover() {
		return "latency"
	}
	return "bandwidth"
}
