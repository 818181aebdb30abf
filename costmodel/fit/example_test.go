package fit_test

import (
	"fmt"

	"github.com/commlab/commlab/costmodel/fit"
)

// Fit alpha and beta to an nccl-tests all_reduce sweep of 8 ranks. The
// rows here are synthetic: a 20 us, 40 GB/s-busbw line with +-1% error.
func ExampleFitNCCLTests() {
	var rows []fit.NCCLTestsRow
	sign := 1.0
	for b := 1024.0; b <= 1<<30; b *= 4 {
		us := (20e-6 + b*1.75/40e9) * 1e6 * (1 + 0.01*sign)
		rows = append(rows, fit.NCCLTestsRow{Bytes: b, TimeUs: us})
		sign = -sign
	}
	r, err := fit.FitNCCLTests(rows, 1.75) // all_reduce busbw factor 2(n-1)/n
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("alpha = %.1f +- %.1f us\n", r.Alpha*1e6, r.AlphaStdErr*1e6)
	fmt.Printf("beta  = %.1f +- %.1f GB/s (busbw)\n", r.Beta/1e9, r.BetaStdErr/1e9)
	fmt.Printf("worst residual %.1f%% over %d rows\n", 100*r.MaxRelative, r.N)
	// Output:
	// alpha = 20.0 +- 0.1 us
	// beta  = 40.0 +- 0.2 GB/s (busbw)
	// worst residual 1.1% over 11 rows
}
