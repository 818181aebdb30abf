package probes_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/commlab/commlab/probes"
)

func TestJudge(t *testing.T) {
	coll := func(b int64) probes.Sample {
		return probes.Sample{Op: "all_reduce", Bytes: b, DType: "float32", Ranks: 2}
	}
	cp := func(b int64) probes.Sample { return probes.Sample{Op: "d2d", Bytes: b} }
	tests := []struct {
		s     probes.Sample
		ratio float64
		crit  string
		pass  bool
	}{
		{coll(1 << 20), 1.02, "within 3%", true},
		{coll(1 << 20), 1.05, "within 3%", false},
		{coll(1 << 20), 0.5, "faster", true},
		{coll(8), 0.99, "no slower", true},
		{coll(8), 1.01, "no slower", false},
		{cp(1 << 30), 0.98, "within 3%", true},
		{cp(1 << 30), 1.04, "within 3%", false},
		{cp(1 << 30), 0.5, "faster", true},
		{cp(4096), 0.6, "no slower", true},
		{cp(4096), 1.2, "no slower", false},
		{cp(probes.BandwidthRegime - 1), 1.02, "no slower", false},
	}
	for _, tc := range tests {
		crit, pass := probes.Judge(tc.s, tc.ratio)
		if crit != tc.crit || pass != tc.pass {
			t.Errorf("Judge(%s %d, %v) = %s %v, want %s %v", tc.s.Op, tc.s.Bytes, tc.ratio, crit, pass, tc.crit, tc.pass)
		}
	}
}

func TestCompareMatchesAndSorts(t *testing.T) {
	ours := &probes.Run{Samples: []probes.Sample{
		{Op: "d2d", Bytes: 1 << 30, Src: 0, Dst: 0, MedianUS: 100},
		{Op: "all_reduce", Bytes: 8, DType: "float32", InPlace: true, Src: -1, Dst: -1, MedianUS: 2},
		{Op: "all_reduce", Bytes: 8, DType: "float32", Src: -1, Dst: -1, MedianUS: 2},                // no out-of-place reference
		{Op: "h2d_pinned", Bytes: 4096, Src: -1, Dst: 0, MedianUS: 0},                                // not measured
		{Op: "d2d", Bytes: 1 << 30, Src: 0, Dst: 1, MedianUS: 100},                                   // other endpoints
		{Op: "all_reduce", Bytes: 4, DType: "float32", InPlace: true, Src: -1, Dst: -1, MedianUS: 3}, // sorts first
	}}
	ref := &probes.Run{Samples: []probes.Sample{
		{Op: "all_reduce", Bytes: 8, InPlace: true, Src: -1, Dst: -1, MedianUS: 1},
		{Op: "all_reduce", Bytes: 4, InPlace: true, Src: -1, Dst: -1, MedianUS: 3},
		{Op: "d2d", Bytes: 1 << 30, Src: 0, Dst: 0, MedianUS: 99},
		{Op: "h2d_pinned", Bytes: 4096, Src: -1, Dst: 0, MedianUS: 5},
	}}
	got := probes.Compare(ours, ref)
	want := []probes.Comparison{
		{Op: "all_reduce", Bytes: 4, InPlace: true, OursUS: 3, RefUS: 3, Ratio: 1, Criteria: "no slower", Pass: true},
		{Op: "all_reduce", Bytes: 8, InPlace: true, OursUS: 2, RefUS: 1, Ratio: 2, Criteria: "no slower", Pass: false},
		{Op: "d2d", Bytes: 1 << 30, OursUS: 100, RefUS: 99, Ratio: 100.0 / 99, Criteria: "within 3%", Pass: true},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Compare:\n got %v\nwant %v", got, want)
	}
}

// A commlab run set beside a PyTorch reference: each matched sample is
// judged by the criteria Judge documents.
func ExampleCompare() {
	date := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	ours := &probes.Run{Kind: "nccl", Date: date, Samples: []probes.Sample{
		{Op: "all_reduce", Bytes: 8, DType: "float32", InPlace: true, Src: -1, Dst: -1, MedianUS: 1.5},
		{Op: "all_reduce", Bytes: 1 << 30, DType: "float32", InPlace: true, Src: -1, Dst: -1, MedianUS: 101},
		{Op: "all_gather", Bytes: 1 << 30, DType: "float32", Src: -1, Dst: -1, MedianUS: 120},
	}}
	ref := &probes.Run{Kind: "torch", Date: date, Samples: []probes.Sample{
		{Op: "all_reduce", Bytes: 8, InPlace: true, Src: -1, Dst: -1, MedianUS: 27},
		{Op: "all_reduce", Bytes: 1 << 30, InPlace: true, Src: -1, Dst: -1, MedianUS: 100},
		{Op: "all_gather", Bytes: 1 << 30, Src: -1, Dst: -1, MedianUS: 100},
	}}
	for _, c := range probes.Compare(ours, ref) {
		fmt.Printf("%s %d: ratio %.3f, %s, pass %v\n", c.Op, c.Bytes, c.Ratio, c.Criteria, c.Pass)
	}
	// Output:
	// all_gather 1073741824: ratio 1.200, within 3%, pass false
	// all_reduce 8: ratio 0.056, no slower, pass true
	// all_reduce 1073741824: ratio 1.010, within 3%, pass true
}
