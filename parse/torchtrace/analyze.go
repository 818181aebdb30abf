package torchtrace

import (
	"fmt"
	"slices"
	"sort"
)

// Options choose what Analyze measures.
type Options struct {
	// Within names CPU ranges (a record_function annotation such as
	// "bench:step", or an op): only the GPU time of the work they launched
	// counts, from the first such activity's start to the last one's end,
	// per range. Empty means the whole trace.
	Within string
	// Device is the GPU to analyse; -1 means the lowest one in the trace.
	Device int
	// MinGapUS is the shortest idle gap reported (default 1 us).
	MinGapUS float64
	// MaxGaps is how many of the longest gaps to list (default 5).
	MaxGaps int
}

// Interval is a span of time in microseconds from the trace's origin.
type Interval struct {
	StartUS float64 `json:"start_us"`
	EndUS   float64 `json:"end_us"`
}

// DurUS is the interval's length.
func (i Interval) DurUS() float64 { return i.EndUS - i.StartUS }

// Stream sums one GPU stream's activities.
type Stream struct {
	Device int `json:"device"`
	Stream int `json:"stream"`
	// Role is "comm" when every activity on it is communication, "compute"
	// when none is, "mixed" otherwise.
	Role    string `json:"role"`
	Kernels int    `json:"kernels"`
	Memcpys int    `json:"memcpys"`
	Memsets int    `json:"memsets"`
	// BusyUS is the time the stream had work (the union of its intervals).
	BusyUS float64 `json:"busy_us"`
	// CommUS is the part of BusyUS that was communication.
	CommUS float64 `json:"comm_us"`
	// Ops are the communication ops that launched work on it.
	Ops []string `json:"ops,omitempty"`
}

// Analysis is the overlap of communication and compute on one GPU.
type Analysis struct {
	Device int `json:"device"`
	// Windows are the spans analysed (one per Within range, or the whole
	// trace's GPU time).
	Windows []Interval `json:"windows"`
	// SpanUS is the windows' total length; BusyUS the time any stream had
	// work; IdleUS the rest.
	SpanUS float64 `json:"span_us"`
	BusyUS float64 `json:"busy_us"`
	IdleUS float64 `json:"idle_us"`
	// CommUS and ComputeUS are the union of communication and of compute
	// intervals; OtherUS of the other copies and memsets.
	CommUS    float64 `json:"comm_us"`
	ComputeUS float64 `json:"compute_us"`
	OtherUS   float64 `json:"other_us"`
	// CommUnderComputeUS is communication time during which some compute
	// kernel ran; CommAloneUS the rest of CommUS.
	CommUnderComputeUS float64 `json:"comm_under_compute_us"`
	CommAloneUS        float64 `json:"comm_alone_us"`
	// OverlapFraction is CommUnderComputeUS / CommUS (0 with no
	// communication).
	OverlapFraction float64 `json:"overlap_fraction"`
	// Gaps are the longest idle gaps (no stream busy) inside the windows,
	// longest first; GapCount and GapUS count all gaps of at least
	// MinGapUS.
	Gaps     []Interval `json:"gaps"`
	GapCount int        `json:"gap_count"`
	GapUS    float64    `json:"gap_us"`
	Streams  []Stream   `json:"streams"`
	// CommOps are the communication ops seen, in order of first launch.
	CommOps []string `json:"comm_ops,omitempty"`
	// Activities counts the activities inside the windows.
	Activities int `json:"activities"`
}

// Analyze measures the overlap on one GPU, in the windows Options.Within
// names. It fails when the trace has no GPU activity there.
func (t *Trace) Analyze(o Options) (*Analysis, error) {
	if o.MinGapUS <= 0 {
		o.MinGapUS = 1
	}
	if o.MaxGaps <= 0 {
		o.MaxGaps = 5
	}
	dev := o.Device
	if dev < 0 {
		dev = -1
		for _, a := range t.Activities {
			if dev < 0 || a.Device < dev {
				dev = a.Device
			}
		}
	}
	var acts []Activity
	for _, a := range t.Activities {
		if a.Device == dev {
			acts = append(acts, a)
		}
	}
	if len(acts) == 0 {
		return nil, fmt.Errorf("torchtrace: no GPU activity on device %d", dev)
	}
	var windows []Interval
	if o.Within == "" {
		w := Interval{acts[0].StartUS, acts[0].EndUS}
		for _, a := range acts {
			w.StartUS = min(w.StartUS, a.StartUS)
			w.EndUS = max(w.EndUS, a.EndUS)
		}
		windows = []Interval{w}
	} else {
		rs := t.Ranges(o.Within)
		if len(rs) == 0 {
			return nil, fmt.Errorf("torchtrace: no range named %q in the trace", o.Within)
		}
		for _, r := range rs {
			var w Interval
			n := 0
			for _, a := range t.LaunchedIn(r) {
				if a.Device != dev {
					continue
				}
				if n == 0 {
					w = Interval{a.StartUS, a.EndUS}
				}
				w.StartUS = min(w.StartUS, a.StartUS)
				w.EndUS = max(w.EndUS, a.EndUS)
				n++
			}
			if n > 0 {
				windows = append(windows, w)
			}
		}
		windows = union(windows)
		if len(windows) == 0 {
			return nil, fmt.Errorf("torchtrace: the %d ranges named %q launched no GPU work on device %d", len(rs), o.Within, dev)
		}
	}
	an := &Analysis{Device: dev, Windows: windows}
	var all, comm, compute, other []Interval
	type skey struct{ dev, stream int }
	streams := map[skey]*Stream{}
	streamIv := map[skey][]Interval{}
	streamComm := map[skey][]Interval{}
	seenOp := map[string]bool{}
	for _, a := range acts {
		for _, iv := range clip(Interval{a.StartUS, a.EndUS}, windows) {
			an.Activities++
			all = append(all, iv)
			k := skey{a.Device, a.Stream}
			s := streams[k]
			if s == nil {
				s = &Stream{Device: a.Device, Stream: a.Stream}
				streams[k] = s
			}
			switch a.Kind {
			case Kernel:
				s.Kernels++
			case Memcpy:
				s.Memcpys++
			default:
				s.Memsets++
			}
			streamIv[k] = append(streamIv[k], iv)
			switch a.Role {
			case Comm:
				comm = append(comm, iv)
				streamComm[k] = append(streamComm[k], iv)
				if a.Op != "" && !seenOp[a.Op] {
					seenOp[a.Op] = true
					an.CommOps = append(an.CommOps, a.Op)
				}
				if a.Op != "" && !slices.Contains(s.Ops, a.Op) {
					s.Ops = append(s.Ops, a.Op)
				}
			case Compute:
				compute = append(compute, iv)
			default:
				other = append(other, iv)
			}
		}
	}
	all, comm, compute, other = union(all), union(comm), union(compute), union(other)
	for _, w := range windows {
		an.SpanUS += w.DurUS()
	}
	an.BusyUS = total(all)
	an.IdleUS = an.SpanUS - an.BusyUS
	an.CommUS = total(comm)
	an.ComputeUS = total(compute)
	an.OtherUS = total(other)
	an.CommUnderComputeUS = total(intersect(comm, compute))
	an.CommAloneUS = an.CommUS - an.CommUnderComputeUS
	if an.CommUS > 0 {
		an.OverlapFraction = an.CommUnderComputeUS / an.CommUS
	}
	var gaps []Interval
	for _, w := range windows {
		gaps = append(gaps, complement(all, w)...)
	}
	for _, g := range gaps {
		if g.DurUS() >= o.MinGapUS {
			an.GapCount++
			an.GapUS += g.DurUS()
			an.Gaps = append(an.Gaps, g)
		}
	}
	sort.SliceStable(an.Gaps, func(i, j int) bool { return an.Gaps[i].DurUS() > an.Gaps[j].DurUS() })
	if len(an.Gaps) > o.MaxGaps {
		an.Gaps = an.Gaps[:o.MaxGaps]
	}
	for k, s := range streams {
		s.BusyUS = total(union(streamIv[k]))
		s.CommUS = total(union(streamComm[k]))
		switch {
		case s.CommUS == 0:
			s.Role = Compute
		case len(streamComm[k]) == len(streamIv[k]):
			s.Role = Comm
		default:
			s.Role = "mixed"
		}
		an.Streams = append(an.Streams, *s)
	}
	sort.Slice(an.Streams, func(i, j int) bool {
		if an.Streams[i].Device != an.Streams[j].Device {
			return an.Streams[i].Device < an.Streams[j].Device
		}
		return an.Streams[i].Stream < an.Streams[j].Stream
	})
	return an, nil
}

// union merges intervals into disjoint ones, by start.
func union(ivs []Interval) []Interval {
	if len(ivs) == 0 {
		return nil
	}
	s := append([]Interval(nil), ivs...)
	sort.Slice(s, func(i, j int) bool { return s[i].StartUS < s[j].StartUS })
	out := []Interval{s[0]}
	for _, iv := range s[1:] {
		last := &out[len(out)-1]
		if iv.StartUS <= last.EndUS {
			last.EndUS = max(last.EndUS, iv.EndUS)
			continue
		}
		out = append(out, iv)
	}
	return out
}

// intersect returns the overlap of two disjoint, sorted interval lists.
func intersect(a, b []Interval) []Interval {
	var out []Interval
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		lo, hi := max(a[i].StartUS, b[j].StartUS), min(a[i].EndUS, b[j].EndUS)
		if lo < hi {
			out = append(out, Interval{lo, hi})
		}
		if a[i].EndUS < b[j].EndUS {
			i++
		} else {
			j++
		}
	}
	return out
}

// clip cuts iv to the windows (disjoint, sorted).
func clip(iv Interval, windows []Interval) []Interval {
	return intersect([]Interval{iv}, windows)
}

// complement returns the parts of w that busy (disjoint, sorted) leaves
// free.
func complement(busy []Interval, w Interval) []Interval {
	var out []Interval
	at := w.StartUS
	for _, b := range busy {
		if b.EndUS <= w.StartUS || b.StartUS >= w.EndUS {
			continue
		}
		if b.StartUS > at {
			out = append(out, Interval{at, b.StartUS})
		}
		at = max(at, b.EndUS)
	}
	if at < w.EndUS {
		out = append(out, Interval{at, w.EndUS})
	}
	return out
}

func total(ivs []Interval) float64 {
	var s float64
	for _, iv := range ivs {
		s += iv.DurUS()
	}
	return s
}
