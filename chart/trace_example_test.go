package chart_test

import (
	"fmt"

	"github.com/commlab/commlab/chart"
	"github.com/commlab/commlab/parse/torchtrace"
)

// A trace's GPU activities as lanes per stream (the activities here are
// written out; a cell gets them from parse/torchtrace).
func ExampleTraceSpans() {
	acts := []torchtrace.Activity{
		{Kind: torchtrace.Memcpy, Stream: 20, StartUS: 110, EndUS: 150, Role: torchtrace.Comm},
		{Kind: torchtrace.Kernel, Stream: 7, StartUS: 100, EndUS: 130, Role: torchtrace.Compute},
		{Kind: torchtrace.Kernel, Stream: 7, StartUS: 130, EndUS: 160, Role: torchtrace.Compute},
	}
	for _, s := range chart.TraceSpans("overlap: ", acts) {
		fmt.Printf("%s %s %.0f..%.0f us\n", s.Lane, s.Kind, s.Start*1e6, s.End*1e6)
	}
	// Output:
	// overlap: stream 7 compute 0..30 us
	// overlap: stream 7 compute 30..60 us
	// overlap: stream 20 communication 10..50 us
}
