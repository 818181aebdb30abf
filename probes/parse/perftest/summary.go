package perftest

import (
	"fmt"
	"io"
	"strings"

	"github.com/commlab/commlab/probes/parse"
)

// WriteSummary writes what a person reads first about a perftest report: a
// line naming the input (file) and the test, the device and link facts, then
// the bandwidth or latency rows. A nil Report writes "nothing parsed".
func (rep *Report) WriteSummary(w io.Writer, file string) error {
	return parse.WriteBuffered(w, func(w io.Writer) {
		if rep == nil {
			fmt.Fprintf(w, "%s: nothing parsed\n", file)
			return
		}
		title := rep.Title
		if title == "" {
			title = "perftest " + rep.Kind
		}
		fmt.Fprintf(w, "%s: %s (%s)\n", file, title, rep.Format)
		var facts []string
		if rep.Device != "" {
			facts = append(facts, "device "+rep.Device)
		}
		if rep.LinkType != "" {
			facts = append(facts, "link "+rep.LinkType)
		}
		if rep.GIDIndex >= 0 {
			facts = append(facts, fmt.Sprintf("GID index %d", rep.GIDIndex))
		}
		if rep.MTU > 0 {
			facts = append(facts, fmt.Sprintf("MTU %d", rep.MTU))
		}
		if rep.QPs > 0 {
			facts = append(facts, fmt.Sprintf("%d QP(s)", rep.QPs))
		}
		if rep.UseCUDA {
			cuda := "CUDA buffers"
			if rep.CUDADevice >= 0 {
				cuda += fmt.Sprintf(" on device %d", rep.CUDADevice)
			}
			if rep.CUDADeviceName != "" {
				cuda += " (" + rep.CUDADeviceName + ")"
			}
			facts = append(facts, cuda)
		}
		if len(facts) > 0 {
			fmt.Fprintf(w, "  %s\n", strings.Join(facts, ", "))
		}
		if len(rep.Bandwidth) > 0 {
			unit := rep.Unit
			if rep.UnitInferred {
				unit += ", inferred"
			}
			fmt.Fprintf(w, "  %10s %12s %12s %12s %12s %10s   (%s)\n", "bytes", "iterations", "peak", "average", "avg GB/s", "Mpps", unit)
			for _, b := range rep.Bandwidth {
				gbs := "?"
				if rep.BytesPerUnit > 0 {
					gbs = fmt.Sprintf("%.3f", b.AverageBytesPerSecond/1e9)
				}
				side := ""
				if b.Side != "" {
					side = "  " + b.Side
				}
				fmt.Fprintf(w, "  %10d %12d %12.2f %12.2f %12s %10.6f%s\n", b.Bytes, b.Iterations, b.Peak, b.Average, gbs, b.MsgRateMpps, side)
			}
		}
		if len(rep.Latency) > 0 {
			unit := rep.LatencyUnit
			if unit == "" {
				unit = "usec"
			}
			fmt.Fprintf(w, "  %10s %12s %9s %9s %9s %9s %9s %9s %9s   (%s)\n", "bytes", "iterations", "min", "max", "typical", "avg", "stdev", "p99", "p99.9", unit)
			for _, l := range rep.Latency {
				fmt.Fprintf(w, "  %10d %12d %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", l.Bytes, l.Iterations, l.Min, l.Max, l.Typical, l.Average, l.Stdev, l.P99, l.P999)
			}
		}
		if len(rep.Bandwidth) == 0 && len(rep.Latency) == 0 {
			fmt.Fprintln(w, "  no results rows")
		}
	})
}
