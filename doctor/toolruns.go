package doctor

// This file reads an external tool's output into the run that ran it
// (commlab probe nccl-tests and probe nvbandwidth, and their --load): the
// samples, the tool's version and NCCL's. It sits beside runs.go, which
// turns nccl-tests output read from a file into a run of its own; here the
// run already holds the command, date and machine that made the output.

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/commlab/commlab/parse/nccltests"
	"github.com/commlab/commlab/parse/nvbandwidth"
	"github.com/commlab/commlab/probes"
)

// AddNCCLTestsOutput parses nccl-tests output into run: one sample per
// row and half, the tests' and NCCL's versions. A run whose output does
// not name its test takes the name of the binary (run.Settings["tool"]:
// all_reduce_perf, all_gather_perf_mpi), in the samples and in the result.
// It returns what it parsed (nil when nothing was) and the parser's error.
func AddNCCLTestsOutput(out string, run *probes.Run) (*nccltests.Result, error) {
	res, err := nccltests.Parse(strings.NewReader(out))
	if res == nil {
		return nil, err
	}
	var prog, fallback string
	if tool := run.Settings["tool"]; tool != "" {
		prog = filepath.Base(tool)
		fallback = strings.TrimSuffix(strings.TrimSuffix(prog, "_mpi"), "_perf")
	}
	for i := range res.Runs {
		r := &res.Runs[i] // the result returned names the collective too
		if r.Collective == "" && fallback != "" {
			r.Collective, r.CollectiveFrom = fallback, "the binary's name ("+prog+")"
		}
		if v := r.LibraryVersion(); v != "" {
			run.NCCL = v
		}
		run.Tool = strings.TrimSpace("nccl-tests " + r.TestsVersion)
		n := r.Params.NGpus * max(r.Params.NThread, 1)
		if len(r.Devices) > 0 {
			n = len(r.Devices)
		}
		run.Samples = append(run.Samples, NCCLTestsSamples(*r, n)...)
	}
	return res, err
}

// AddNVBandwidthOutput parses nvbandwidth output (text or JSON) into run:
// one sample per cell of every bandwidth testcase (latency testcases are
// not rates and stay out), and nvbandwidth's version. It returns what it
// parsed (nil when nothing was) and the parser's error.
func AddNVBandwidthOutput(out string, run *probes.Run) (*nvbandwidth.Report, error) {
	rep, err := nvbandwidth.Parse(strings.NewReader(out))
	if rep == nil {
		return nil, err
	}
	run.Tool = strings.TrimSpace("nvbandwidth " + rep.Version)
	for _, tc := range rep.Testcases {
		if tc.IsLatency() {
			continue
		}
		for _, c := range tc.Cells() {
			run.Samples = append(run.Samples, probes.Sample{Op: tc.Name, Src: c.Row, Dst: c.Col, AlgBW: c.Value, BusBW: c.Value, Wrong: -1, Label: nvbandwidthLabel(tc)})
		}
	}
	return rep, err
}

// nvbandwidthLabel is a sample's label: the testcase's description and,
// for a bidirectional one, what its number is (one direction while the
// reverse runs, or both added), so no one reads a one-way rate as a total.
func nvbandwidthLabel(tc nvbandwidth.Testcase) string {
	if tc.DirectionNote == "" {
		return tc.Description
	}
	return tc.Description + " [" + tc.DirectionNote + "]"
}

// WriteNCCLTestsRuns writes one line per run of nccl-tests output, as
// commlab probe nccl-tests ends: its sizes and average busbw.
func WriteNCCLTestsRuns(w io.Writer, res *nccltests.Result) {
	for _, r := range res.Runs {
		if len(r.Rows) == 0 {
			fmt.Fprintf(w, "%s: no results\n", r.Collective)
			continue
		}
		fmt.Fprintf(w, "%s: %d sizes, avg busbw %.2f GB/s\n", r.Collective, len(r.Rows), r.AvgBusBW)
	}
}

// WriteNVBandwidthSums writes one line per nvbandwidth testcase, as
// commlab probe nvbandwidth ends: its status and sum, and what a
// bidirectional one's numbers are.
func WriteNVBandwidthSums(w io.Writer, rep *nvbandwidth.Report) {
	for _, tc := range rep.Testcases {
		line := fmt.Sprintf("%-45s %-8s sum %.2f %s", tc.Name, tc.Status, tc.Sum, tc.Unit)
		if tc.DirectionNote != "" {
			line += " (" + tc.DirectionNote + ")"
		}
		fmt.Fprintln(w, line)
	}
}
