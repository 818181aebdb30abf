package units_test

import (
	"fmt"

	"github.com/commlab/commlab/units"
)

func ExampleParseSize() {
	for _, s := range []string{"1M", "1MiB", "1MB", "64kB", "1.5K", "8"} {
		n, _ := units.ParseSize(s)
		fmt.Println(s, n)
	}
	// Output:
	// 1M 1048576
	// 1MiB 1048576
	// 1MB 1000000
	// 64kB 64000
	// 1.5K 1536
	// 8 8
}

func ExampleFormatSize() {
	for _, n := range []int64{8, 1536, 1 << 20, 1e6, 1000001} {
		fmt.Println(units.FormatSize(n))
	}
	// Output:
	// 8 B
	// 1.5 KiB
	// 1 MiB
	// 1 MB
	// 1000001 B
}

func ExampleParseSweep() {
	fmt.Println(units.ParseSweep("1K:16K:4"))
	fmt.Println(units.ParseSweep("8,1M,64M"))
	// Output:
	// [1024 4096 16384] <nil>
	// [8 1048576 67108864] <nil>
}

func ExampleParseRate() {
	bps, _ := units.ParseRate("400Gb/s")
	fmt.Println(bps, units.FormatRate(bps))
	// Output: 5e+10 50 GB/s
}

func ExampleBusBWFactor() {
	f, _ := units.BusBWFactor("all_reduce", 8)
	g, _ := units.BusBWFactor("all_gather", 8)
	fmt.Println(f, g)
	// Output: 1.75 0.875
}

func ExampleReadable() {
	fmt.Println(units.Readable(7.000000000000001e-05, "s"))
	fmt.Println(units.Readable(1.4271442842871412e+10, "B/s"))
	fmt.Println(units.Readable(1<<30, "B"))
	fmt.Println(units.Readable(12.5, "us"))
	fmt.Println(units.Readable(4.58752, "us"))
	fmt.Println(units.Readable(8064<<10, "B"))
	fmt.Println(units.Readable(1070.4, "x"))
	fmt.Println(units.Readable(-0.00001, "%"))
	// Output:
	// 70 µs
	// 14.27 GB/s
	// 1 GiB
	// 12.5 µs
	// 4.588 µs
	// 7.875 MiB
	// 1,070x
	// 0%
}

func ExampleReadableIEC() {
	fmt.Println(units.ReadableIEC(2e6, "B"))
	fmt.Println(units.ReadableIEC(2016<<20, "B"))
	// Output:
	// 1.907 MiB
	// 1.969 GiB
}

func ExampleNumber() {
	fmt.Println(units.Number(9.030899869919436))
	fmt.Println(units.Number(12345.6))
	fmt.Println(units.Count(1234567))
	// Output:
	// 9.031
	// 12,346
	// 1,234,567
}

func ExampleDuration() {
	fmt.Println(units.Duration(0.0751619))
	fmt.Println(units.Duration(4.58752e-6))
	// Output:
	// 75.16 ms
	// 4.588 µs
}
