package nccl

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/probes"
)

// WriteTable prints an NCCL run's samples as `commlab probe nccl` does,
// nccl-tests' columns: size, count, type, mode, time, algbw, busbw.
func WriteTable(w io.Writer, run *probes.Run) {
	fmt.Fprintf(w, "%-15s %12s %12s %-9s %-4s %12s %10s %10s %8s %6s\n", "collective", "size", "count", "type", "mode", "time(µs)", "algbw", "busbw", "spread%", "wrong")
	for _, s := range run.Samples {
		wrong := strconv.FormatInt(s.Wrong, 10)
		if s.Wrong < 0 {
			wrong = "N/A"
		}
		fmt.Fprintf(w, "%-15s %12d %12d %-9s %-4s %12.2f %10.2f %10.2f %8.1f %6s\n", s.Op, s.Bytes, s.Count, s.DType, probes.Placement(s.InPlace), s.MedianUS, s.AlgBW, s.BusBW, s.SpreadPct(), wrong)
	}
}

// WriteGraphSearches prints the graph search lines of a topology edit's
// two runs (MeasureTopologyEdit), the first run's above the edited one's.
func WriteGraphSearches(w io.Writer, run *probes.Run) {
	if run == nil {
		return
	}
	sides := []struct{ title, log string }{{"detected topology", "base-nccl-debug"}, {"edited topology", "nccl-debug"}}
	if _, edited := run.Logs["base-nccl-debug"]; !edited {
		// The edit did not apply: the run is the first one, on the detected topology.
		sides = sides[:1]
		sides[0].log = "nccl-debug"
	}
	for _, side := range sides {
		text, ok := run.Logs[side.log]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "# %s: graph searches (NCCL_DEBUG_SUBSYS must include GRAPH)\n", side.title)
		lg, _ := nccllog.Parse(strings.NewReader(text))
		if lg == nil || len(lg.GraphSearches) == 0 {
			fmt.Fprintln(w, "#   none in the log")
			continue
		}
		for _, g := range lg.GraphSearches {
			fmt.Fprintln(w, "#  ", g)
		}
	}
	for _, n := range run.Notes {
		if strings.HasPrefix(n, "NCCL_TOPO_FILE:") {
			fmt.Fprintln(w, "#", n)
		}
	}
}
