package nccltests

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/parse"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// golden is what a golden file holds: the parsed result and the error.
type goldenOutput struct {
	Result *Result `json:"result"`
	Error  string  `json:"error,omitempty"`
}

func fixtures(t testing.TB) []string {
	return golden.Inputs(t, 8, "testdata/*.txt", "testdata/*.json", "testdata/public/*.txt")
}

func TestParseGolden(t *testing.T) {
	golden.Each(t, fixtures(t), golden.AppendExt, func(t *testing.T, data []byte) []byte {
		res, perr := Parse(bytes.NewReader(data))
		g := goldenOutput{Result: res}
		if perr != nil {
			g.Error = perr.Error()
		}
		return golden.JSON(t, g, "  ")
	})
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseRealH100TwoNodes(t *testing.T) {
	res, err := Parse(bytes.NewReader(mustRead(t, "allreduce_h100_2node_a3mega.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 1 {
		t.Fatalf("runs = %d, want 1", len(res.Runs))
	}
	run := res.Runs[0]
	if run.Collective != "all_reduce" || run.NRanks() != 16 || len(run.Rows) != 31 {
		t.Fatalf("collective %q ranks %d rows %d", run.Collective, run.NRanks(), len(run.Rows))
	}
	last := run.Rows[30]
	if last.SizeBytes != 8589934592 || last.OutOfPlace.TimeUs != 47535 || last.InPlace.BusBW != 337.35 {
		t.Errorf("last row = %+v", last)
	}
	// The footer is the mean of every busbw printed; the parsed rows must
	// reproduce it to the footer's printed precision.
	if math.Abs(run.MeanBusBW()-run.AvgBusBW) > 0.001 {
		t.Errorf("mean busbw %.4f, footer %.4f", run.MeanBusBW(), run.AvgBusBW)
	}
	f, err := run.BusBWFactor()
	if err != nil || math.Abs(f-2*15.0/16) > 1e-12 {
		t.Errorf("factor = %v, %v", f, err)
	}
	// busbw = algbw x factor, to the printed two decimals.
	for _, row := range run.Rows {
		if got := row.OutOfPlace.AlgBW * f; math.Abs(got-row.OutOfPlace.BusBW) > 0.02 {
			t.Errorf("size %d: algbw*factor %.3f, busbw %.2f", row.SizeBytes, got, row.OutOfPlace.BusBW)
		}
	}
}

func TestParseTextVariants(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantRows  int
		wantErrIs error
		check     func(t *testing.T, r *Result)
	}{
		{
			// Synthetic input: the shape of NVIDIA/nccl#1453 (a debug line
			// printed in the middle of a row) with made-up hostnames.
			name: "debug line splits a row",
			in: "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" +
				"         128            32     float     sum      -1h:1:1 [0] NCCL INFO 128 Bytes -> Algo 0 proto 0 time 25.2\n" +
				"h:1:1 [0] NCCL INFO 128 Bytes -> Algo 0 proto 0 time 25.2\n" +
				"    61.58    0.00    0.00      0h:1:1 [0] NCCL INFO 128 Bytes -> Algo 0 proto 0 time 25.2\n" +
				"    60.10    0.00    0.00      0\n" +
				"# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0 \n",
			wantRows: 1,
			check: func(t *testing.T, r *Result) {
				row := r.Runs[0].Rows[0]
				if row.SizeBytes != 128 || row.OutOfPlace.TimeUs != 61.58 || row.InPlace.TimeUs != 60.10 {
					t.Errorf("row = %+v", row)
				}
				if r.DebugLines != 3 {
					t.Errorf("debug lines = %d, want 3", r.DebugLines)
				}
			},
		},
		{
			name: "shrunk numbers and N/A",
			in: "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" +
				" 17179869184    4294967296     float     sum      -1  1e+06   16.10   30.18    N/A  1e+06   16.09   30.17    N/A\n",
			wantRows:  1,
			wantErrIs: ErrTruncated,
			check: func(t *testing.T, r *Result) {
				m := r.Runs[0].Rows[0].OutOfPlace
				if m.TimeUs != 1e6 || !m.WrongNA {
					t.Errorf("half = %+v", m)
				}
			},
		},
		{
			name: "per-iteration columns and timestamps",
			in: "# nccl-tests version 2.18.3 nccl-headers=22809 nccl-library=22809\n" +
				"#       size         count      type   redop    root     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv% timestamp\n" +
				"        1024           256     float     sum      -1    10.00    0.10    0.20       0     9.00    12.00    11.50     3.10    10.50    0.10    0.19       0     9.10    12.40    12.00     2.90 2025-06-01 12:00:00\n" +
				"# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.195 \n",
			wantRows: 1,
			check: func(t *testing.T, r *Result) {
				row := r.Runs[0].Rows[0]
				if row.InPlace.IterP99Us != 12.00 || row.OutOfPlace.IterCVPct != 3.10 || row.Timestamp != "2025-06-01 12:00:00" {
					t.Errorf("row = %+v", row)
				}
			},
		},
		{
			name:      "foreign input",
			in:        "hello\nthis is not a benchmark\n",
			wantErrIs: parse.ErrFormat,
		},
		{
			name:      "empty input",
			in:        "",
			wantErrIs: parse.ErrFormat,
		},
		{
			name: "two runs back to back",
			in: "# nThread 1 nGpus 2 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n" +
				"           8             2     float     sum      -1    10.0    0.00    0.00      0    10.0    0.00    0.00      0\n" +
				"# Avg bus bandwidth    : 0 \n" +
				"# nThread 1 nGpus 2 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n" +
				"           8             2     float     sum      -1    11.0    0.00    0.00      0    11.0    0.00    0.00      0\n" +
				"          16             4     float     sum      -1    12.0    0.00    0.00      0    12.0    0.00    0.00      0\n" +
				"# Avg bus bandwidth    : 0 \n",
			wantRows: 3,
			check: func(t *testing.T, r *Result) {
				if len(r.Runs) != 2 || len(r.Runs[1].Rows) != 2 || r.Runs[1].NRanks() != 2 {
					t.Errorf("runs = %+v", r.Runs)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := ParseText(strings.NewReader(tc.in))
			if tc.wantErrIs == nil && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tc.wantErrIs != nil && !errors.Is(err, tc.wantErrIs) {
				t.Fatalf("error = %v, want %v", err, tc.wantErrIs)
			}
			rows := 0
			for _, r := range res.Runs {
				rows += len(r.Rows)
			}
			if rows != tc.wantRows {
				t.Fatalf("rows = %d, want %d", rows, tc.wantRows)
			}
			if tc.check != nil {
				tc.check(t, res)
			}
		})
	}
}

// Cutting a real output at every line boundary must keep every complete
// row, and an input cut before the footer must say so and name a line.
func TestParseTruncatedKeepsRows(t *testing.T) {
	data := mustRead(t, "allreduce_h100_2node_a3mega.txt")
	lines := strings.SplitAfter(string(data), "\n")
	firstRow := 32 // line number of the first data row in the fixture
	for cut := 1; cut < len(lines)-2; cut++ {
		in := strings.Join(lines[:cut], "")
		res, err := Parse(strings.NewReader(in))
		wantRows := max(0, cut-firstRow+1)
		wantRows = min(wantRows, 31)
		got := 0
		if len(res.Runs) > 0 {
			got = len(res.Runs[len(res.Runs)-1].Rows)
		}
		if got != wantRows {
			t.Fatalf("cut after line %d: rows = %d, want %d", cut, got, wantRows)
		}
		if wantRows > 0 {
			var le *parse.Error
			if !errors.As(err, &le) || !errors.Is(err, ErrTruncated) || le.Line != cut {
				t.Fatalf("cut after line %d: error = %v, want truncated at line %d", cut, err, cut)
			}
		}
	}
	// Cut in the middle of a row: the partial row is reported, not kept.
	mid := strings.Join(lines[:40], "") + lines[40][:30]
	res, err := Parse(strings.NewReader(mid))
	if !errors.Is(err, ErrTruncated) || len(res.Runs[0].Rows) != 9 {
		t.Fatalf("mid-row cut: rows %d, err %v", len(res.Runs[0].Rows), err)
	}
	if !strings.Contains(err.Error(), "line 41") {
		t.Errorf("error %q does not name line 41", err)
	}
}

func TestParseJSON(t *testing.T) {
	data := mustRead(t, "synthetic_json_v2_from_a3mega.json")
	res, err := Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	text, err := Parse(bytes.NewReader(mustRead(t, "allreduce_h100_2node_a3mega.txt")))
	if err != nil {
		t.Fatal(err)
	}
	j, x := res.Runs[0], text.Runs[0]
	if res.Format != "json" || j.Collective != "all_reduce" || len(j.Rows) != len(x.Rows) || j.NRanks() != 16 {
		t.Fatalf("json run: format %s collective %s rows %d ranks %d", res.Format, j.Collective, len(j.Rows), j.NRanks())
	}
	for i := range j.Rows {
		a, b := j.Rows[i], x.Rows[i]
		b.Line = 0
		if a != b {
			t.Fatalf("row %d: json %+v, text %+v", i, a, b)
		}
	}
	// A file cut in the middle of the results keeps the complete rows.
	cut := bytes.Index(data, []byte(`{"size":1048576`)) + 20
	part, err := Parse(bytes.NewReader(data[:cut]))
	if !errors.Is(err, ErrTruncated) || len(part.Runs[0].Rows) != 17 {
		t.Fatalf("truncated json: rows %d, err %v", len(part.Runs[0].Rows), err)
	}
	if _, err := Parse(strings.NewReader(`{"version": 2, "results": [{"size": "x"}]}`)); !errors.Is(err, ErrMalformed) {
		t.Errorf("bad row: err = %v, want ErrMalformed", err)
	}
}

func TestParseJSONNaNAndNull(t *testing.T) {
	in := `{"version":2,"results":[{"size":8,"count":2,"type":"float","redop":"sum","root":"    -1",
"out_of_place":{"time":"nan","alg_bw":0.0,"bus_bw":0.0,"nwrong":null},
"in_place":{"cpu_time":12.5,"alg_bw":0.0,"bus_bw":0.0,"nwrong":0.0}}],
"out_of_bounds":{"count":0,"okay":"true"},"average_bus_bandwidth":{"bandwidth":0.0,"okay":"unchecked"}}`
	res, err := ParseJSON(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	row := res.Runs[0].Rows[0]
	if !row.OutOfPlace.NotANumber || !row.OutOfPlace.WrongNA || !row.InPlace.CPUTime || row.InPlace.TimeUs != 12.5 || row.Root != -1 {
		t.Errorf("row = %+v", row)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("result does not encode: %v", err)
	}
}

func TestBusBWFactor(t *testing.T) {
	tests := []struct {
		coll string
		n    int
		want float64
	}{
		{"all_reduce", 8, 1.75},
		{"AllReduce", 2, 1},
		{"all_gather_perf", 4, 0.75},
		{"reduce_scatter", 8, 0.875},
		{"alltoall", 16, 15.0 / 16},
		{"broadcast", 8, 1},
		{"sendrecv", 2, 1},
		{"hypercube_perf", 8, 1}, // its algbw already counts the n-1 pieces
	}
	for _, tc := range tests {
		got, err := BusBWFactor(tc.coll, tc.n)
		if err != nil || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("BusBWFactor(%q, %d) = %v, %v; want %v", tc.coll, tc.n, got, err, tc.want)
		}
	}
	if _, err := BusBWFactor("gossip", 8); !errors.Is(err, ErrUnknownCollective) {
		t.Errorf("unknown collective: err = %v", err)
	}
	if _, err := BusBWFactor("all_reduce", 0); err == nil {
		t.Error("zero ranks: no error")
	}
}

func FuzzParse(f *testing.F) {
	for _, in := range fixtures(f) {
		if data, err := os.ReadFile(in); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("# nThread 1 nGpus 1\n   8 2 float sum -1 1e+06 N/A"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, _ := Parse(bytes.NewReader(data))
		if res == nil {
			t.Fatal("nil result")
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("result does not encode: %v", err)
		}
	})
}

// TestParseRecordedJSONAgreesWithText checks a real -J file against the
// text that the same nccl-tests run printed (H200, nccl-tests 2.17.6): the
// text rounds what the JSON keeps in full.
func TestParseRecordedJSONAgreesWithText(t *testing.T) {
	j, err := Parse(bytes.NewReader(mustRead(t, "allreduce_h200_1gpu_2.17.6_J.json")))
	if err != nil {
		t.Fatal(err)
	}
	x, err := Parse(bytes.NewReader(mustRead(t, "allreduce_h200_1gpu_2.17.6.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if j.Format != "json" || len(j.Runs) != 1 || len(x.Runs) != 1 {
		t.Fatalf("format %q, runs %d json / %d text", j.Format, len(j.Runs), len(x.Runs))
	}
	jr, xr := j.Runs[0], x.Runs[0]
	if jr.NCCLVersion != xr.NCCLVersion || jr.NRanks() != 1 || len(jr.Rows) != 12 || len(xr.Rows) != len(jr.Rows) {
		t.Fatalf("json: nccl %q ranks %d rows %d; text: nccl %q rows %d", jr.NCCLVersion, jr.NRanks(), len(jr.Rows), xr.NCCLVersion, len(xr.Rows))
	}
	// Text prints %7.2f, or fewer decimals once a number outgrows its column.
	close := func(a, b float64) bool { return math.Abs(a-b) <= 0.005+1e-4*math.Abs(b) }
	for i, a := range jr.Rows {
		b := xr.Rows[i]
		if a.SizeBytes != b.SizeBytes || a.Count != b.Count || a.Type != b.Type || a.RedOp != b.RedOp || a.Root != b.Root {
			t.Fatalf("row %d: json %+v, text %+v", i, a, b)
		}
		for _, h := range [][2]Measurement{{a.OutOfPlace, b.OutOfPlace}, {a.InPlace, b.InPlace}} {
			if !close(h[0].TimeUs, h[1].TimeUs) || !close(h[0].AlgBW, h[1].AlgBW) || !close(h[0].BusBW, h[1].BusBW) || h[0].Wrong != h[1].Wrong {
				t.Errorf("row %d (%d B): json %+v, text %+v", i, a.SizeBytes, h[0], h[1])
			}
		}
	}
}

func TestLibraryVersion(t *testing.T) {
	for _, c := range []struct {
		run  Run
		want string
	}{
		{Run{NCCLLibrary: 23003}, "2.30.3"},
		{Run{NCCLLibrary: 22803, NCCLHeaders: 22803}, "2.28.3"},
		{Run{NCCLLibrary: 21903}, "2.19.3"},
		{Run{NCCLLibrary: 2708}, "2.7.8"},
		{Run{NCCLLibrary: 2406}, "2.4.6"},
		{Run{NCCLVersion: "2.30.3+cuda13.0", NCCLLibrary: 22803}, "2.30.3+cuda13.0"},
		{Run{}, ""},
	} {
		if got := c.run.LibraryVersion(); got != c.want {
			t.Errorf("%+v: LibraryVersion() = %q, want %q", c.run, got, c.want)
		}
	}
}

func TestParseFailures(t *testing.T) {
	recorded := string(mustRead(t, "allreduce_h200_mpirun_np2_failure.txt"))
	for _, c := range []struct {
		name, input string
		want        []string // the failures of the last run
		truncated   bool
	}{
		{"recorded: two ranks on one GPU", recorded,
			[]string{".. vm pid 973: Test failure common.cu:1168: Invalid number of GPUs: 2 requested but only 1 were found."}, true},
		// Synthetic: the older one-line form with the reason in quotes,
		// printed after some rows.
		{"NCCL failure after rows", "# nThread 1 nGpus 8 minBytes 8 maxBytes 64 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n" +
			"           8             2     float     sum      -1    20.10    0.00    0.00      0    19.90    0.00    0.00      0\n" +
			"node3: Test NCCL failure common.cu:958 'unhandled system error (run with NCCL_DEBUG=INFO for details) / '\n" +
			" .. node3 pid 4242: Test failure common.cu:1100\n",
			[]string{"node3: Test NCCL failure common.cu:958 'unhandled system error (run with NCCL_DEBUG=INFO for details) / '",
				".. node3 pid 4242: Test failure common.cu:1100"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Parse(strings.NewReader(c.input))
			if !errors.Is(err, ErrTestFailed) || errors.Is(err, ErrTruncated) != c.truncated {
				t.Fatalf("err = %v; want ErrTestFailed, truncated %v", err, c.truncated)
			}
			got := res.Runs[len(res.Runs)-1].Failures
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("failures\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

// A zero time prints "inf" bandwidths (and glibc "-nan"): the row is kept,
// flagged, and the result still encodes as JSON.
func TestParseInfAndNaN(t *testing.T) {
	res, _ := ParseText(strings.NewReader("           8             2     float     sum      -1     0.00     inf     inf      0     0.00    -nan    nan      0\n"))
	if _, err := json.Marshal(res); err != nil {
		t.Fatal(err)
	}
	if r := res.Runs[0].Rows; len(r) != 1 || !r[0].OutOfPlace.NotANumber || !r[0].InPlace.NotANumber || r[0].OutOfPlace.AlgBW != 0 {
		t.Fatalf("rows %+v", r)
	}
}

// Second batch of published layouts: alltoall rows of nccl-tests before
// 2.13 leave the redop column of the header blank; rccl-tests print
// "nThreads: 1 nGpus: 1 ..." and "rccl-tests: Version ...".
func TestParseOlderLayouts(t *testing.T) {
	data, err := os.ReadFile("testdata/public/ncclt78_alltoall_empty_redop_error_column_excerpt.txt")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 || len(res.Runs[1].Rows) != 2 {
		t.Fatalf("runs = %+v", res.Runs)
	}
	row := res.Runs[1].Rows[0]
	if row.RedOp != "" || row.OutOfPlace.TimeUs != 520935 || row.InPlace.BusBW != 0.51 || row.InPlace.Wrong != 1 {
		t.Errorf("alltoall row = %+v", row)
	}
	if res.Runs[0].Rows[1].RedOp != "sum" || res.Runs[0].Rows[1].OutOfPlace.TimeUs != 244833 {
		t.Errorf("all_reduce row = %+v", res.Runs[0].Rows[1])
	}
	res, _ = Parse(strings.NewReader("# nThreads: 2 nGpus: 4 nRanks: 1 minBytes: 1024 maxBytes: 536870912 step: 2(factor) warmupIters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\nrccl-tests: Version develop:83d38d9\n"))
	if p := res.Runs[0].Params; p.NThread != 2 || p.NGpus != 4 || p.WarmupIters != 5 || p.Iters != 20 || res.Runs[0].Library != "RCCL" {
		t.Errorf("rccl-tests header: %+v", res.Runs[0])
	}
}

// TestToldCollectiveGivesRanks: an excerpt without device lines whose
// columns fit a 2-rank all_reduce and a sendrecv (the aws-do-eks EFA
// test, quoted without its header) gets its rank count once the
// collective is told; a run that names its own collective keeps it.
func TestToldCollectiveGivesRanks(t *testing.T) {
	data, err := os.ReadFile("testdata/public/awsdoeks_karpenter_efa_disabled_socket_excerpt.txt")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	r := &res.Runs[0]
	if r.Collective != "" || r.NRanks() != 0 {
		t.Fatalf("before: collective %q, %d ranks; want neither told", r.Collective, r.NRanks())
	}
	if !r.Told("all_reduce", "the MPIJob's command (all_reduce_perf)") {
		t.Fatal("Told refused a run that names no collective")
	}
	if r.Collective != "all_reduce" || r.Ranks != 2 || !strings.Contains(r.RanksFrom, "2 ranks") {
		t.Errorf("after: collective %q, ranks %d (%q); want all_reduce on 2 ranks from busbw/algbw", r.Collective, r.Ranks, r.RanksFrom)
	}
	if r.CollectiveFrom != "the MPIJob's command (all_reduce_perf)" {
		t.Errorf("CollectiveFrom %q", r.CollectiveFrom)
	}
	if r.Told("broadcast", "x") || r.Collective != "all_reduce" {
		t.Errorf("a told collective was replaced: %q", r.Collective)
	}
	if !(&Run{}).Told("sendrecv", "") {
		t.Error("Told on an empty run")
	}
}
