package nvbandwidth_test

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/probes/parse/nvbandwidth"
)

// A notebook pastes nvbandwidth output and reads the peer-to-peer matrix.
func ExampleParse() {
	out := `Running device_to_device_memcpy_read_ce.
memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)
          0         1
0       N/A    276.07
1    276.19       N/A

SUM device_to_device_memcpy_read_ce 552.26
`
	rep, err := nvbandwidth.Parse(strings.NewReader(out))
	if err != nil {
		fmt.Println(err)
		return
	}
	tc, _ := rep.Testcase("device_to_device_memcpy_read_ce")
	for _, c := range tc.Cells() {
		fmt.Printf("GPU%d <- GPU%d: %.2f GB/s (%.3g B/s)\n", c.Row, c.Col, c.Value, tc.BytesPerSecond(c.Row, c.Col))
	}
	fmt.Println("sum", tc.Sum, tc.Unit)
	// Output:
	// GPU0 <- GPU1: 276.07 GB/s (2.76e+11 B/s)
	// GPU1 <- GPU0: 276.19 GB/s (2.76e+11 B/s)
	// sum 552.26 GB/s
}
