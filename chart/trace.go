package chart

import (
	"fmt"
	"math"
	"sort"

	"github.com/commlab/commlab/parse/torchtrace"
)

// traceKinds names an activity's role in a timeline's legend.
var traceKinds = map[string]string{
	torchtrace.Comm:    "communication",
	torchtrace.Compute: "compute",
	torchtrace.Other:   "other copy or memset",
}

// TraceSpans turns GPU activities read from a torch.profiler trace
// (parse/torchtrace) into Timeline spans: one lane per stream, named
// prefix + "stream N", compute lanes first; spans coloured by role
// (communication, compute, other copy or memset); times in seconds from the
// first activity's start, so traces recorded apart line up.
func TraceSpans(prefix string, acts []torchtrace.Activity) []Span {
	if len(acts) == 0 {
		return nil
	}
	t0 := math.Inf(1)
	commOnly := map[int]bool{}
	for _, a := range acts {
		t0 = math.Min(t0, a.StartUS)
		if _, seen := commOnly[a.Stream]; !seen {
			commOnly[a.Stream] = true
		}
		if a.Role != torchtrace.Comm {
			commOnly[a.Stream] = false
		}
	}
	sorted := append([]torchtrace.Activity(nil), acts...)
	sort.SliceStable(sorted, func(i, j int) bool {
		ci, cj := commOnly[sorted[i].Stream], commOnly[sorted[j].Stream]
		if ci != cj {
			return !ci
		}
		if sorted[i].Stream != sorted[j].Stream {
			return sorted[i].Stream < sorted[j].Stream
		}
		return sorted[i].StartUS < sorted[j].StartUS
	})
	spans := make([]Span, 0, len(sorted))
	for _, a := range sorted {
		kind := traceKinds[a.Role]
		if kind == "" {
			kind = a.Role
		}
		spans = append(spans, Span{Lane: fmt.Sprintf("%sstream %d", prefix, a.Stream), Start: (a.StartUS - t0) * 1e-6,
			End: (a.EndUS - t0) * 1e-6, Kind: kind})
	}
	return spans
}
