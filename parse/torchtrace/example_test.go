package torchtrace_test

import (
	"fmt"
	"os"

	"github.com/commlab/commlab/parse/torchtrace"
)

// A cell reads a profiler trace and asks how much of the communication
// ran under compute inside the steps the benchmark annotated. The fixture
// is hand-written in Kineto's shape (testdata/SOURCES.md).
func ExampleTrace_Analyze() {
	f, err := os.Open("testdata/handmade-step.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	tr, err := torchtrace.Parse(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	an, err := tr.Analyze(torchtrace.Options{Within: "bench:step", Device: -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range an.Streams {
		fmt.Printf("stream %d: %s, busy %.0f us\n", s.Stream, s.Role, s.BusyUS)
	}
	fmt.Printf("communication %.0f us, %.0f us of it under compute: overlap_fraction %.2f\n",
		an.CommUS, an.CommUnderComputeUS, an.OverlapFraction)
	// Output:
	// stream 7: compute, busy 28 us
	// stream 20: comm, busy 40 us
	// communication 40 us, 20 us of it under compute: overlap_fraction 0.50
}
