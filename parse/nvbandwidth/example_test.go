package nvbandwidth_test

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/parse/nvbandwidth"
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

// A bidirectional testcase reports one direction, measured while the
// reverse runs; only the device-to-device "Total" matrix adds both.
func ExampleTestcase_bidirectional() {
	out := `Running device_to_device_bidirectional_memcpy_read_ce.
memcpy CE GPU(row) <-> GPU(column) Read1 bandwidth (GB/s)
           0         1
 0       N/A    370.12
 1    369.88       N/A

SUM device_to_device_bidirectional_memcpy_read_ce_read1 740.00

memcpy CE GPU(row) <-> GPU(column) Read2 bandwidth (GB/s)
           0         1
 0       N/A    371.05
 1    370.47       N/A

SUM device_to_device_bidirectional_memcpy_read_ce_read2 741.52

memcpy CE GPU(row) <-> GPU(column) Total bandwidth (GB/s)
           0         1
 0       N/A    741.17
 1    740.35       N/A

SUM device_to_device_bidirectional_memcpy_read_ce_total 1481.52
`
	rep, err := nvbandwidth.Parse(strings.NewReader(out))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, tc := range rep.Testcases {
		fmt.Printf("%s: GPU0 <-> GPU1 %.2f GB/s, %s\n", strings.TrimPrefix(tc.Name, tc.Group+"_"), tc.Value(0, 1), tc.DirectionNote)
	}
	// Output:
	// read1: GPU0 <-> GPU1 370.12 GB/s, one direction, measured while the reverse runs
	// read2: GPU0 <-> GPU1 371.05 GB/s, one direction, measured while the reverse runs
	// total: GPU0 <-> GPU1 741.17 GB/s, both directions added: the sum of the two one-way rates, each measured while the other ran
}
