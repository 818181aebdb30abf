package nccltests_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/commlab/commlab/parse/nccltests"
)

// Parse nccl-tests output and take the columns a plot needs as plain
// slices. The two rows are the first two of a GB200 NVL72 run published in
// coreweave/nccl-tests#43.
func ExampleParse() {
	out := `#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
   536870912     134217728     float     sum      -1   1806.7  297.16  586.06      0   1835.9  292.43  576.74      0
  1073741824     268435456     float     sum      -1   3108.8  345.38  681.17      0   2924.7  367.13  724.06      0
`
	// The excerpt stops before the footer: Parse says so, and the rows
	// that parsed are still there.
	res, err := nccltests.Parse(strings.NewReader(out))
	fmt.Println(errors.Is(err, nccltests.ErrTruncated))
	run := res.Runs[0]
	fmt.Println(run.SizesBytes())
	fmt.Println(run.OutOfPlaceTimeUs())
	fmt.Println(run.OutOfPlaceBusBW())
	fmt.Printf("mean busbw %.3f\n", run.MeanBusBW())
	// Output:
	// true
	// [5.36870912e+08 1.073741824e+09]
	// [1806.7 3108.8]
	// [586.06 681.17]
	// mean busbw 642.007
}

// The busbw factor of a collective on n ranks, as nccl-tests applies it.
func ExampleBusBWFactor() {
	f, _ := nccltests.BusBWFactor("all_reduce", 8)
	g, _ := nccltests.BusBWFactor("all_gather_perf", 8)
	fmt.Println(f, g)
	// Output: 1.75 0.875
}
