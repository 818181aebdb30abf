package measure_test

import (
	"fmt"

	"github.com/commlab/commlab/probes/measure"
)

// A run that exists only recorded here: NCCL over two H200s.
func ExampleRecorded() {
	m, err := measure.Recorded("nccl-h200x2-proto-auto")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Banner())
	// Output: recorded on 2x NVIDIA H200, driver 580.159.04, CUDA 13.0, NCCL 2.28.9, 2026-11-29, command "commlab probe nccl --coll all_reduce,all_gather,reduce_scatter -b 8 -e 8G --warmup 3 --iters 10 --reps 3 --debug INFO --debug-subsys INIT,GRAPH,ENV"
}

// A parameters cell holds the mode as a string; ParseMode reads it.
func ExampleParseMode() {
	for _, s := range []string{"auto", "Recorded", "", "gpu"} {
		m, err := measure.ParseMode(s)
		fmt.Printf("%q: %q %v\n", s, m, err)
	}
	// Output:
	// "auto": "auto" <nil>
	// "Recorded": "recorded" <nil>
	// "": "auto" <nil>
	// "gpu": "" measure: unknown mode "gpu": want auto, live or recorded
}
