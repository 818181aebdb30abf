package costmodel

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/units"
)

// The String methods below print a value in one line with units at readable
// precision (units.Readable), for fmt.Println and as the text/plain form of
// a notebook result; the fields keep the exact numbers, and their `unit`
// tags let a notebook show them as a table with units.

// String prints the cost in one line: what was modelled, the time split
// into its two terms, and the bandwidths, e.g. "all_reduce ring/Simple, 8
// ranks, 1 GB: 12.3 ms (latency 70 us + bandwidth 12.23 ms,
// bandwidth-bound); algbw 81.3 GB/s, busbw 142.3 GB/s".
func (c Cost) String() string { return RowOf(c).String() }

// String prints the row as Cost.String does.
func (r Row) String() string {
	what := r.Collective
	if algo := joinNonEmpty("/", r.Algorithm, r.Protocol); algo != "" {
		what += " " + algo
	}
	ranks := fmt.Sprintf("%d ranks", r.Ranks)
	if r.Nodes > 1 {
		ranks += fmt.Sprintf(" on %d nodes", r.Nodes)
	}
	s := fmt.Sprintf("%s, %s, %s: %s (latency %s + bandwidth %s", what, ranks, units.Readable(r.Bytes, "B"),
		units.Readable(r.Time, "s"), units.Readable(r.LatencyTerm, "s"), units.Readable(r.BandwidthTerm, "s"))
	if r.Bound != "" {
		s += ", " + r.Bound + "-bound"
	}
	return s + fmt.Sprintf("); algbw %s, busbw %s", units.Readable(r.AlgBW, "B/s"), units.Readable(r.BusBW, "B/s"))
}

// String prints the pick, e.g. "all_reduce 1 GB: ring/LL128 in 5.1 ms
// (latency 8.7 us, bandwidth 196 GB/s, 16 channels)".
func (c TunerChoice) String() string {
	s := fmt.Sprintf("%s %s: %s in %s (latency %s, bandwidth %s", c.Collective, units.Readable(c.Bytes, "B"),
		joinNonEmpty("/", c.Algorithm, c.Protocol), units.Readable(c.TimeUs, "us"),
		units.Readable(c.LatencyUs, "us"), units.Readable(c.BandwidthGBps, "GB/s"))
	if c.Channels > 0 {
		s += fmt.Sprintf(", %d channels", c.Channels)
	}
	return s + ")"
}

// String prints one cell of the tuning table, e.g. "all_reduce ring/LL:
// latency 4.4 us, bandwidth 36 GB/s, 512 threads"; a zero bandwidth is
// "disabled".
func (e TunerEntry) String() string {
	s := fmt.Sprintf("%s %s: latency %s, ", e.Collective, joinNonEmpty("/", e.Algorithm, e.Protocol), units.Readable(e.LatencyUs, "us"))
	if e.BandwidthGBps == 0 {
		s += "disabled"
	} else {
		s += "bandwidth " + units.Readable(e.BandwidthGBps, "GB/s")
	}
	if e.MaxThreads > 0 {
		s += fmt.Sprintf(", %d threads", e.MaxThreads)
	}
	return s
}

// String compares the forced pick with the tuner's, e.g. "forced ring/LL
// 1.2 ms, 3.1x the tuner's ring/LL128 (390 us)".
func (f ForcedCost) String() string {
	return fmt.Sprintf("forced %s %s, %s the tuner's %s (%s)", joinNonEmpty("/", f.Forced.Algorithm, f.Forced.Protocol),
		units.Readable(f.Forced.TimeUs, "us"), units.Readable(f.Slowdown, "x"),
		joinNonEmpty("/", f.Auto.Algorithm, f.Auto.Protocol), units.Readable(f.Auto.TimeUs, "us"))
}

// String prints the link, e.g. "nvlink4-gpu (nvlink): 900 GB/s
// bidirectional, alpha 3.4 us, 90% of it in practice".
func (l Link) String() string {
	s := l.Name
	if l.Kind != "" {
		s += " (" + l.Kind + ")"
	}
	s += ": " + l.Bandwidth.String()
	if l.Alpha > 0 {
		s += ", alpha " + units.Readable(l.Alpha, "s")
	}
	if l.Efficiency > 0 {
		s += ", " + units.Readable(l.Efficiency, "%") + " of it in practice"
	}
	return s
}

// String prints the node, e.g. "hgx-h200: 8 GPUs on nvlink4-gpu (900 GB/s
// bidirectional, NVSwitch, NVLS), 8 NICs ib-ndr (50 GB/s)".
func (n Node) String() string {
	var intra []string
	intra = append(intra, n.Intra.Bandwidth.String())
	if n.NVSwitch {
		intra = append(intra, "NVSwitch")
	}
	if n.NVLS {
		intra = append(intra, "NVLS")
	}
	s := fmt.Sprintf("%s: %d GPUs on %s (%s)", n.Name, n.GPUs, n.Intra.Name, strings.Join(intra, ", "))
	if n.NICs > 0 {
		s += fmt.Sprintf(", %d NICs %s (%s)", n.NICs, n.NIC.Name, n.NIC.Bandwidth)
	}
	return s
}

// String prints the model, e.g. "alpha 5 us, beta 25 GB/s (crossover 125 KB)".
func (m AlphaBeta) String() string {
	return fmt.Sprintf("alpha %s, beta %s (crossover %s)", units.Readable(m.Alpha, "s"),
		units.Readable(m.Beta, "B/s"), units.Readable(m.Crossover(), "B"))
}

func joinNonEmpty(sep string, parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, sep)
}
