package customar

import (
	"fmt"
	"io"
	"os"

	"github.com/commlab/commlab/probes"
)

// WriteTable prints a custom all-reduce run as `commlab probe
// custom-allreduce` does: the placement, then per algorithm and size the
// time, algbw, busbw and whether every rank's sums were right.
func WriteTable(w io.Writer, r *probes.Run) {
	fmt.Fprintf(w, "# %s ranks, placement %s, grid %s x %s\n", r.Settings["ranks"], r.Settings["placement"], r.Settings["blocks"], r.Settings["threads"])
	fmt.Fprintf(w, "%-8s %10s %6s %12s %10s %10s %s\n", "algo", "bytes", "iters", "time(µs)", "algbw", "busbw", "sums")
	for _, s := range r.Samples {
		check := "ok"
		switch {
		case s.Wrong < 0:
			check = "unchecked"
		case s.Wrong > 0:
			check = fmt.Sprintf("WRONG on %d ranks", s.Wrong)
		}
		fmt.Fprintf(w, "%-8s %10d %6d %12.2f %10.3f %10.3f %s\n", s.Label, s.Bytes, s.Iters, s.MedianUS, s.AlgBW, s.BusBW, check)
	}
}

// FromLogFiles is FromLogs over rank log files (rank 0 first), with the
// recording's provenance file (date, GPU, driver) applied when named: a
// run recorded elsewhere by probes/gpubench/ch7.sh, which its command
// says.
func FromLogFiles(paths []string, provenance string) (*probes.Run, error) {
	var logs []string
	for _, f := range paths {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		logs = append(logs, string(b))
	}
	run, err := FromLogs(logs)
	if err != nil {
		return nil, err
	}
	if provenance != "" {
		b, err := os.ReadFile(provenance)
		if err != nil {
			return nil, err
		}
		ReadProvenance(string(b)).Apply(run)
		run.Logs["provenance"] = string(b)
	}
	run.Command = []string{"bash", "probes/gpubench/ch7.sh"}
	return run, nil
}

// SecondPhase is two-shot's time less one-shot's at the given size, in
// seconds: what the cost model's Phase stands for when the run is one rank
// (no peers, so no NVLink round trip in it). ok is false when the run
// lacks either sample.
func SecondPhase(r *probes.Run, bytes int64) (seconds float64, ok bool) {
	two, ok2 := r.MedianSeconds(Op, TwoShot, bytes)
	one, ok1 := r.MedianSeconds(Op, OneShot, bytes)
	return two - one, ok1 && ok2
}
