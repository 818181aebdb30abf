package cuda

import (
	"fmt"
	"io"
	"strconv"

	"github.com/commlab/commlab/probes"
)

// WriteCopyTable prints a bandwidth run's samples as `commlab probe
// bandwidth` does: operation, source, destination, size, median time,
// GB/s, spread and wrong bytes.
func WriteCopyTable(w io.Writer, run *probes.Run) {
	fmt.Fprintf(w, "%-16s %5s %5s %12s %12s %10s %8s %6s\n", "op", "src", "dst", "bytes", "median(µs)", "GB/s", "spread%", "wrong")
	for _, s := range run.Samples {
		fmt.Fprintf(w, "%-16s %5s %5s %12d %12.2f %10.2f %8.1f %6d\n", s.Op, devName(s.Src), devName(s.Dst), s.Bytes, s.MedianUS, s.AlgBW, s.SpreadPct(), s.Wrong)
	}
}

// devName names a copy's end: "host" or "gpuN".
func devName(d int) string {
	if d < 0 {
		return "host"
	}
	return "gpu" + strconv.Itoa(d)
}

// WriteLatencyTable prints a latency run's samples as `commlab probe
// latency` does: median, min and max per operation.
func WriteLatencyTable(w io.Writer, run *probes.Run) {
	fmt.Fprintf(w, "%-26s %12s %10s %10s %s\n", "op", "median(µs)", "min(µs)", "max(µs)", "label")
	for _, s := range run.Samples {
		fmt.Fprintf(w, "%-26s %12.3f %10.3f %10.3f %s\n", s.Op, s.MedianUS, s.MinUS, s.MaxUS, s.Label)
	}
}
