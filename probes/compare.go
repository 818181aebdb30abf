package probes

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Comparison is one matched pair of samples: a run of ours against a
// reference run (PyTorch's, or an earlier run of ours), judged by Judge.
type Comparison struct {
	Op      string  `json:"op"`
	Bytes   int64   `json:"bytes"`
	InPlace bool    `json:"in_place"`
	OursUS  float64 `json:"ours_us"`
	RefUS   float64 `json:"ref_us"`
	// Ratio is our median time over the reference's: below 1 is faster.
	Ratio float64 `json:"ratio"`
	// Criteria names the rule applied: "within 3%", "faster" or "no slower".
	Criteria string `json:"criteria"`
	Pass     bool   `json:"pass"`
}

// Compare pairs the samples of ours and ref that have the same operation,
// size, placement (in or out of place) and endpoints, judges each pair with
// Judge, and returns the pairs sorted by operation then size. Samples
// without a positive median time on either side are left out.
func Compare(ours, ref *Run) []Comparison {
	type key struct {
		op       string
		bytes    int64
		inPlace  bool
		src, dst int
	}
	refs := map[key]Sample{}
	for _, s := range ref.Samples {
		refs[key{s.Op, s.Bytes, s.InPlace, s.Src, s.Dst}] = s
	}
	var out []Comparison
	for _, s := range ours.Samples {
		r, ok := refs[key{s.Op, s.Bytes, s.InPlace, s.Src, s.Dst}]
		if !ok || r.MedianUS <= 0 || s.MedianUS <= 0 {
			continue
		}
		c := Comparison{Op: s.Op, Bytes: s.Bytes, InPlace: s.InPlace, OursUS: s.MedianUS, RefUS: r.MedianUS, Ratio: s.MedianUS / r.MedianUS}
		c.Criteria, c.Pass = Judge(s, c.Ratio)
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b Comparison) int {
		return cmp.Or(strings.Compare(a.Op, b.Op), cmp.Compare(a.Bytes, b.Bytes))
	})
	return out
}

// BandwidthRegime is the copy size from which a copy is bound by the link
// rather than by launch overhead on the H200 (a launch costs 2-10 us, a
// 16 MiB pinned copy 300 us).
const BandwidthRegime = 16 << 20

// Judge applies the criteria of a comparison to one sample of ours whose
// time is ratio times the reference's:
//   - a collective (a sample with a DType) of 1 MB and up must be within 3%
//     of the reference or faster; below 1 MB, no slower;
//   - a copy of BandwidthRegime bytes and up must be within 3% or faster;
//     a smaller one no slower.
//
// A large sample faster by more than 3% passes under its own label,
// "faster": on one GPU PyTorch's per-call overhead (25-40 us) hides the
// collective up to tens of MB, so "faster" there says the reference
// measured its own overhead.
func Judge(s Sample, ratio float64) (criteria string, pass bool) {
	large := s.Bytes >= 1_000_000
	if s.DType == "" { // a copy
		large = s.Bytes >= BandwidthRegime
	}
	switch {
	case large && math.Abs(ratio-1) <= 0.03:
		return "within 3%", true
	case ratio < 1 && large:
		return "faster", true
	case !large && ratio <= 1:
		return "no slower", true
	case large:
		return "within 3%", false
	}
	return "no slower", false
}
