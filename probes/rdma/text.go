package rdma

import (
	"fmt"
	"io"
	"strings"

	"github.com/commlab/commlab/probes"
)

// WriteTable prints an rdma-write run as `commlab probe rdma-write` does:
// the port, then time and GB/s per size; with oobOnly, the two sides'
// connection exchange instead.
func WriteTable(w io.Writer, r *probes.Run, oobOnly bool) {
	if oobOnly {
		for _, side := range []string{"server", "client"} {
			for _, l := range strings.Split(r.Logs[side], "\n") {
				if strings.HasPrefix(l, "oob ") {
					fmt.Fprintf(w, "%-6s %s\n", side, l)
				}
			}
		}
		return
	}
	if d := r.Settings["device"]; d != "" {
		fmt.Fprintf(w, "# %s port %s, %s, MTU %s, memory %s\n", d, r.Settings["port"], r.Settings["link_layer"], r.Settings["active_mtu"], r.Settings["memory"])
	}
	fmt.Fprintf(w, "%-10s %12s %8s %12s %10s %s\n", "op", "bytes", "iters", "time(µs)", "GB/s", "memory")
	for _, s := range r.Samples {
		fmt.Fprintf(w, "%-10s %12d %8d %12.3f %10.3f %s\n", s.Op, s.Bytes, s.Iters, s.MedianUS, s.AlgBW, s.Label)
	}
}

// WritePerftestTable prints a perftest run as `commlab probe perftest`
// does: the device, then time and GB/s per size.
func WritePerftestTable(w io.Writer, r *probes.Run) {
	if d := r.Settings["device"]; d != "" {
		fmt.Fprintf(w, "# %s, %s, MTU %s, memory %s\n", d, r.Settings["link_type"], r.Settings["mtu"], r.Settings["memory"])
	}
	fmt.Fprintf(w, "%-14s %12s %10s %12s %10s %s\n", "op", "bytes", "iters", "time(µs)", "GB/s", "memory")
	for _, s := range r.Samples {
		fmt.Fprintf(w, "%-14s %12d %10d %12.3f %10.3f %s\n", s.Op, s.Bytes, s.Iters, s.MedianUS, s.AlgBW, s.Label)
	}
}
