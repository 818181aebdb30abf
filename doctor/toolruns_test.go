package doctor

import (
	"os"
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/nccltests"
	"github.com/commlab/commlab/probes"
)

func TestAddNCCLTestsOutput(t *testing.T) {
	// Output that names its test keeps the name; the binary names the rest.
	noName := strings.Replace(ncclTestsTwoRanks, "# Collective test starting: all_reduce_perf\n", "", 1)
	noName = strings.Replace(noName, "# Collective test concluded: all_reduce_perf\n", "", 1)
	for _, tc := range []struct {
		name, out, tool, wantOp string
	}{
		{"named", ncclTestsTwoRanks, "/opt/bin/all_gather_perf", "all_reduce"},
		{"unnamed", noName, "/opt/bin/all_gather_perf_mpi", "all_gather"},
	} {
		run := &probes.Run{Kind: "nccl-tests", Settings: map[string]string{"tool": tc.tool}}
		res, err := AddNCCLTestsOutput(tc.out, run)
		if err != nil || res == nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if run.NCCL != "2.28.3" || run.Tool != "nccl-tests 2.17.6" {
			t.Errorf("%s: NCCL %q, tool %q", tc.name, run.NCCL, run.Tool)
		}
		if len(run.Samples) != 6 { // three rows, two halves each
			t.Fatalf("%s: %d samples, want 6", tc.name, len(run.Samples))
		}
		for _, s := range run.Samples {
			if s.Op != tc.wantOp || s.Ranks != 2 {
				t.Errorf("%s: sample %s on %d ranks, want %s on 2", tc.name, s.Op, s.Ranks, tc.wantOp)
			}
		}
		if got := res.Runs[0].Collective; got != tc.wantOp {
			t.Errorf("%s: the parsed run's collective is %q, want %q as in the samples", tc.name, got, tc.wantOp)
		}
	}
	// No binary recorded: an unnamed test stays unnamed (never ".").
	run := &probes.Run{Kind: "nccl-tests", Settings: map[string]string{}}
	if res, err := AddNCCLTestsOutput(noName, run); err != nil || res == nil || res.Runs[0].Collective != "" {
		t.Errorf("no tool: %v, collective %q", err, res.Runs[0].Collective)
	}
	for _, s := range run.Samples {
		if s.Op != "" {
			t.Fatalf("no tool: sample named %q, want unnamed", s.Op)
		}
	}
	run = &probes.Run{Settings: map[string]string{}}
	if _, err := AddNCCLTestsOutput("garbage\n", run); err == nil || len(run.Samples) != 0 {
		t.Errorf("garbage: error %v, %d samples", err, len(run.Samples))
	}
}

func TestAddNVBandwidthOutput(t *testing.T) {
	out, err := os.ReadFile("../parse/nvbandwidth/testdata/text_v0.8_synthetic_2gpu_bidir.txt")
	if err != nil {
		t.Fatal(err)
	}
	run := &probes.Run{}
	rep, err := AddNVBandwidthOutput(string(out), run)
	if err != nil || rep == nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(run.Tool, "nvbandwidth ") {
		t.Errorf("tool %q", run.Tool)
	}
	cells := 0
	for _, tc := range rep.Testcases {
		if !tc.IsLatency() {
			cells += len(tc.Cells())
		}
	}
	if len(run.Samples) != cells || cells == 0 {
		t.Fatalf("%d samples, want one per bandwidth cell (%d)", len(run.Samples), cells)
	}
	bidir := 0
	for _, s := range run.Samples {
		if s.Wrong != -1 || s.AlgBW != s.BusBW {
			t.Errorf("sample %+v: want Wrong -1 and busbw = algbw", s)
		}
		if strings.Contains(s.Op, "bidirectional") {
			bidir++
			if !strings.HasSuffix(s.Label, "]") {
				t.Errorf("bidirectional sample %s labelled %q, without what its number is", s.Op, s.Label)
			}
		}
	}
	if bidir == 0 {
		t.Error("no bidirectional samples in a bidirectional testcase file")
	}
	garbage := &probes.Run{}
	if _, err := AddNVBandwidthOutput("garbage\n", garbage); err == nil || len(garbage.Samples) != 0 {
		t.Errorf("garbage: error %v, %d samples", err, len(garbage.Samples))
	}
}

// TestToolRunSummaries holds the lines commlab probe nccl-tests and probe
// nvbandwidth end with.
func TestToolRunSummaries(t *testing.T) {
	res, err := AddNCCLTestsOutput(ncclTestsTwoRanks, &probes.Run{Settings: map[string]string{}})
	if err != nil {
		t.Fatal(err)
	}
	res.Runs = append(res.Runs, nccltests.Run{Collective: "all_gather"})
	out, err := os.ReadFile("../parse/nvbandwidth/testdata/text_v0.8_synthetic_2gpu_bidir.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := AddNVBandwidthOutput(string(out), &probes.Run{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		write func(*strings.Builder)
		lines int
		want  []string
	}{
		{"nccl-tests", func(b *strings.Builder) { WriteNCCLTestsRuns(b, res) }, 2,
			[]string{"all_reduce: 3 sizes, avg busbw ", " GB/s\n", "all_gather: no results\n"}},
		{"nvbandwidth", func(b *strings.Builder) { WriteNVBandwidthSums(b, rep) }, len(rep.Testcases), []string{" sum ", " ("}},
	}
	for _, tc := range tests {
		var b strings.Builder
		tc.write(&b)
		if n := strings.Count(b.String(), "\n"); n != tc.lines {
			t.Errorf("%s: %d lines, want %d:\n%s", tc.name, n, tc.lines, b.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: lacks %q:\n%s", tc.name, w, b.String())
			}
		}
	}
}
