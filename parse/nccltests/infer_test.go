package nccltests

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// floatStr formats like nccl-tests' getFloatStr (src/util.cu, 2.19):
// two decimals, then one, then none, then an exponent, to fit width.
func floatStr(v float64, width int) string {
	for _, f := range []string{"%*.2f", "%*.1f", "%*.0f"} {
		if s := fmt.Sprintf(f, width, v); len(s) <= width {
			return s
		}
	}
	if width >= 7 {
		return fmt.Sprintf("%*.1e", width, v)
	}
	return fmt.Sprintf("%*.0e", width, v)
}

// benchTable prints what an nccl-tests binary prints for coll on n ranks
// with the row layout of 2.13 and later (the preamble and the two halves
// as src/util.cu writes them), from a made-up link: latency lat us and
// bandwidth bw GB/s of algorithm bandwidth. header adds the column header;
// devices the device lines.
func benchTable(coll string, n int, header bool, devices int) string {
	var b strings.Builder
	for r := range devices {
		fmt.Fprintf(&b, "#  Rank %2d Group  0 Pid %6d on %10s device %2d [0x%02x] NVIDIA A100-SXM4-80GB\n", r, 1000+r, fmt.Sprintf("node%d", r/8), r%8, r)
	}
	if header {
		b.WriteString("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n")
		b.WriteString("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n")
	}
	s := shapeOf(coll)
	for size := int64(1024); size <= 1<<30; size *= 4 {
		count := size / 4
		if s.perRank {
			count = (count / int64(n)) &^ 3 // 16-byte aligned, as 2.19 does
			size = count * int64(n) * 4
		}
		op, root := "sum", -1
		if s.op == opNo {
			op = "none"
		}
		if coll == "hypercube" {
			op = ""
		}
		if s.rooted {
			root = 0
		}
		fmt.Fprintf(&b, "%12d  %12d  %8s  %6s  %6d", size, count, "float", op, root)
		for _, lat := range []float64{23.5, 24.1} {
			t := lat + float64(size)/(150*1e3)
			alg := float64(size) / t / 1e3
			bus := alg * s.factor(float64(n))
			fmt.Fprintf(&b, "  %7s  %6s  %6s  %6g", floatStr(t, 7), floatStr(alg, 6), floatStr(bus, 6), 0.0)
		}
		b.WriteString("\n")
	}
	if header {
		b.WriteString("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 12.5 \n")
	}
	return b.String()
}

func shapeOf(name string) collectiveShape {
	for _, s := range shapes {
		if s.name == name {
			return s
		}
	}
	panic("no shape " + name)
}

func TestInferCollectiveAndRanks(t *testing.T) {
	tests := []struct {
		coll    string
		n       int
		devices int
		// want: the collective and rank count the parser must find; ""
		// and 0 where the columns cannot tell, with the names it must
		// give instead.
		want      string
		wantRanks int
		wantFit   string
	}{
		{"all_reduce", 8, 0, "all_reduce", 8, ""},
		{"all_reduce", 16, 0, "all_reduce", 16, ""},
		{"all_reduce", 72, 0, "all_reduce", 72, ""},
		{"all_reduce", 3, 0, "all_reduce", 3, ""},
		{"all_reduce", 2, 0, "", 0, "all_reduce or sendrecv"},
		{"all_reduce", 2, 2, "", 2, "all_reduce or sendrecv"},
		{"sendrecv", 8, 8, "sendrecv", 8, ""},
		{"sendrecv", 8, 0, "", 0, "all_reduce or sendrecv"},
		{"reduce_scatter", 8, 0, "reduce_scatter", 8, ""},
		{"reduce_scatter", 6, 0, "reduce_scatter", 6, ""},
		{"all_gather", 8, 0, "", 8, "all_gather or alltoall"},
		{"alltoall", 32, 0, "", 32, "all_gather or alltoall"},
		{"hypercube", 8, 0, "hypercube", 8, ""},
		{"gather", 4, 0, "", 4, "gather or scatter"},
		{"scatter", 16, 16, "", 16, "gather or scatter"},
		{"broadcast", 8, 0, "broadcast", 0, ""},
		{"broadcast", 8, 8, "broadcast", 8, ""},
		{"reduce", 4, 4, "reduce", 4, ""},
	}
	for _, tc := range tests {
		for _, header := range []bool{true, false} {
			name := fmt.Sprintf("%s/%d ranks/%d device lines/header %v", tc.coll, tc.n, tc.devices, header)
			t.Run(name, func(t *testing.T) {
				res, _ := ParseText(strings.NewReader(benchTable(tc.coll, tc.n, header, tc.devices)))
				if len(res.Runs) != 1 {
					t.Fatalf("%d runs", len(res.Runs))
				}
				run := res.Runs[0]
				if run.Collective != tc.want || run.Ranks != tc.wantRanks {
					t.Errorf("collective %q ranks %d, want %q %d\n  collective from: %s\n  ranks from: %s\n  notes: %v",
						run.Collective, run.Ranks, tc.want, tc.wantRanks, run.CollectiveFrom, run.RanksFrom, run.Notes)
				}
				if tc.wantFit != "" && !strings.Contains(run.CollectiveFrom, tc.wantFit) {
					t.Errorf("collective from %q does not name %q", run.CollectiveFrom, tc.wantFit)
				}
				if run.Collective == "" && !strings.HasPrefix(run.CollectiveFrom, "not told") {
					t.Errorf("no collective and no reason: %q", run.CollectiveFrom)
				}
				if run.Ranks > 0 && run.RanksFrom == "" {
					t.Error("ranks without a reason")
				}
			})
		}
	}
}

// The cases of the issue: a table without header or footer, behind
// srun's "0: " labels, is 8 ranks by busbw/algbw = 1.75; a broadcast run
// is a broadcast; device lines that lost their "#" still count.
func TestInferPublishedCases(t *testing.T) {
	allReduce8 := benchTable("all_reduce", 8, false, 0)
	var srun strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(allReduce8), "\n") {
		srun.WriteString("0: " + l + "\n")
	}
	res, err := ParseText(strings.NewReader(srun.String()))
	if res == nil || len(res.Runs) != 1 {
		t.Fatalf("runs: %+v, %v", res, err)
	}
	run := res.Runs[0]
	if run.Collective != "all_reduce" || run.Ranks != 8 || run.NRanks() != 8 || !strings.Contains(run.RanksFrom, "busbw/algbw = 1.75") {
		t.Errorf("srun table: %q %d (%s)", run.Collective, run.Ranks, run.RanksFrom)
	}
	if f, err := run.BusBWFactor(); err != nil || f != 1.75 {
		t.Errorf("factor %v %v", f, err)
	}

	bc, _ := ParseText(strings.NewReader(benchTable("broadcast", 8, true, 8)))
	if run := bc.Runs[0]; run.Collective != "broadcast" || !strings.Contains(run.CollectiveFrom, "redop none") {
		t.Errorf("broadcast: %q (%s)", run.Collective, run.CollectiveFrom)
	}

	// 16 device lines, 15 without their "#".
	var lost strings.Builder
	for i, l := range strings.Split(benchTable("all_reduce", 16, true, 16), "\n") {
		if i > 0 && i < 16 {
			l = strings.TrimPrefix(l, "#")
		}
		lost.WriteString(l + "\n")
	}
	res, _ = ParseText(strings.NewReader(lost.String()))
	if run := res.Runs[0]; len(run.Devices) != 16 || run.Ranks != 16 || len(run.Notes) != 0 {
		t.Errorf("devices %d ranks %d notes %v", len(run.Devices), run.Ranks, run.Notes)
	}
	// The same, with only 15 device lines left: busbw/algbw wins and the
	// disagreement is noted.
	short := strings.Join(strings.Split(lost.String(), "\n")[1:], "\n")
	res, _ = ParseText(strings.NewReader(short))
	if run := res.Runs[0]; len(run.Devices) != 15 || run.Ranks != 16 || len(run.Notes) != 1 {
		t.Errorf("devices %d ranks %d notes %v", len(run.Devices), run.Ranks, run.Notes)
	}
}

func TestInferNamedCollectiveDisagrees(t *testing.T) {
	in := "# Collective test starting: all_reduce_perf\n" + benchTable("broadcast", 8, true, 8)
	res, _ := ParseText(strings.NewReader(in))
	run := res.Runs[0]
	if run.Collective != "all_reduce" || run.CollectiveFrom != "program name" {
		t.Errorf("collective %q from %q", run.Collective, run.CollectiveFrom)
	}
	if len(run.Notes) != 1 || !strings.Contains(run.Notes[0], "fit broadcast") {
		t.Errorf("notes %v", run.Notes)
	}
}

func TestFloatStrMatchesNCCLTests(t *testing.T) {
	for v, want := range map[float64]string{0.5: "  0.50", 999.99: "999.99", 1816.16: "1816.2", 12345.6: " 12346", 1234567: " 1e+06"} {
		if got := floatStr(v, 6); got != want {
			t.Errorf("floatStr(%v) = %q, want %q", v, got, want)
		}
	}
	if printTolerance(1816.2) != 0.051 || math.IsNaN(printTolerance(math.Inf(1))) {
		t.Error("tolerance")
	}
}
