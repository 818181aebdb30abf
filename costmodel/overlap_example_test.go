package costmodel_test

import (
	"fmt"

	"github.com/commlab/commlab/costmodel"
)

// Chapter 5's overlap model: 4 ms of GEMMs and a 1.5 ms collective. With
// the collective issued before the GEMMs it hides whole; a wait() on the
// compute stream before them hides none of it.
func ExampleStepOverlap() {
	for _, f := range []float64{1, 0.5, 0} {
		o, err := costmodel.StepOverlap(4e-3, 1.5e-3, f)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("fraction %.1f: %v\n", f, o)
	}
	// Output:
	// fraction 1.0: step 4 ms = 4 ms compute + 0 s exposed comm (serial 5.5 ms, full overlap 4 ms)
	// fraction 0.5: step 4.75 ms = 4 ms compute + 750 µs exposed comm (serial 5.5 ms, full overlap 4 ms)
	// fraction 0.0: step 5.5 ms = 4 ms compute + 1.5 ms exposed comm (serial 5.5 ms, full overlap 4 ms)
}

// 1 GB of gradients on 8 GPUs (ring, 5 us, 25 GB/s, chapter 1's numbers),
// backward 100 ms: small buckets pay alpha many times, one huge bucket
// cannot start before backward ends; DDP's 25 MiB sits between.
func ExampleBuckets() {
	p := costmodel.Params{Collective: costmodel.AllReduce, Algorithm: costmodel.Ring, Ranks: 8, Alpha: 5e-6, Beta: 25e9}
	for _, bucket := range []float64{64 << 10, costmodel.DDPBucketBytes, 1e9} {
		b, err := costmodel.Buckets(p, 1e9, bucket, 0, 100e-3)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(b)
	}
	// Output:
	// 1 GB in 15,259 buckets of 64 KiB: 213,626 latency terms (1.068 s), comm 1.138 s, exposed 1.038 s after 100 ms of backward
	// 1 GB in 39 buckets of 25 MiB: 546 latency terms (2.73 ms), comm 72.73 ms, exposed 1.859 ms after 100 ms of backward
	// 1 GB in 1 bucket of 1 GB: 14 latency terms (70 µs), comm 70.07 ms, exposed 70.07 ms after 100 ms of backward
}
