package costmodel

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// TestCalibration holds the model to the published table: every row
// shows the verdict the table expects of it, within its limit (large
// busbw 10%, middle busbw 20%, small time 30%) or a known miss with its
// cause; fixing a miss, or losing a row, shows here as a failure that
// names the row. Hold-out rows, which took no part in any fit, are
// reported apart.
func TestCalibration(t *testing.T) {
	rows, err := PublishedMeasurements()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 20 {
		t.Errorf("%d rows in the published table, want at least 20", len(rows))
	}
	cal, err := Calibrate(rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, holdout := range []bool{false, true} {
		name := "fitted-on"
		if holdout {
			name = "hold-out"
		}
		t.Run(name, func(t *testing.T) {
			n := 0
			for _, c := range cal {
				if c.Holdout != holdout {
					continue
				}
				n++
				t.Logf("%-38s %-14s %10.4g %-4s model %10.4g  %+6.1f%% (limit %.0f%%, expected %s)", c.ID, c.Collective, c.Measured,
					c.Unit, c.Model, 100*c.Error, 100*c.Limit, c.Expected)
				if math.IsNaN(c.Error) && c.Expected == "within" {
					t.Errorf("%s: no model figure for a row expected within", c.ID)
				}
				if !c.AsExpected {
					t.Errorf("%s (%s, %s): model %.4g %s, measured %.4g: %+.1f%%, limit %.0f%%, but the table expects %s", c.ID,
						c.Machine, c.Pick, c.Model, c.Unit, c.Measured, 100*c.Error, 100*c.Limit, c.Expected)
				}
			}
			if n == 0 {
				t.Errorf("no %s rows", name)
			}
		})
	}
	if s := cal.Summary(); !strings.Contains(s, fmt.Sprintf("%d of %d rows within their limit", cal.Within(), len(cal))) {
		t.Errorf("summary: %s", s)
	}
}

// The table spans what the model is for: the GPU generations, one node
// and several, all_reduce and the gathers, plateaus and latencies.
func TestPublishedTableCoverage(t *testing.T) {
	rows, err := PublishedMeasurements()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		seen["preset "+r.Preset] = true
		seen["collective "+string(r.Collective)] = true
		seen["regime "+r.Regime] = true
		if r.Nodes > 1 {
			seen["multi-node "+r.Regime] = true
		}
		if r.Host == "" {
			seen["published"] = true
		}
		if !strings.HasPrefix(r.Source, "http") && r.Host != "lab" {
			t.Errorf("%s: source %q is not a public address", r.ID, r.Source)
		}
		if r.SourceDate == "" {
			t.Errorf("%s: no source date", r.ID)
		}
	}
	for _, want := range []string{"preset dgx-a100", "preset hgx-h100", "preset hgx-h200", "preset hgx-h800", "preset hgx-h20",
		"preset rtx5090-pcie", "preset rtx4090-pcie", "preset gcp-a3-mega", "preset p5", "preset p4d", "preset gb200-nvl72",
		"collective all_reduce", "collective all_gather", "collective reduce_scatter", "collective all_to_all", "collective sendrecv", "regime large", "regime small",
		"multi-node large", "multi-node small", "published"} {
		if !seen[want] {
			t.Errorf("the table has no row for %s", want)
		}
	}
}

// The constants in estimate.go are what FitCalibration finds on the
// table's non-hold-out rows, so the package doc's account of the fit is
// true; change a row and this test says which constant moved.
func TestFittedConstantsMatchTheTable(t *testing.T) {
	rows, err := PublishedMeasurements()
	if err != nil {
		t.Fatal(err)
	}
	fit, err := FitCalibration(rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"FitRingEfficiency", fit.RingEfficiency, FitRingEfficiency},
		{"FitNetEfficiency", fit.NetEfficiency, FitNetEfficiency},
		{"FitGatherLocalStep", fit.GatherLocalStep, FitGatherLocalStep},
		{"FitLLEfficiency", fit.LLEfficiency, FitLLEfficiency},
		{"FitSHMEfficiency", fit.SHMEfficiency, FitSHMEfficiency},
		{"FitIssueUs", fit.IssueUs, FitIssueUs},
		{"FitLabIssueUs", fit.LabIssueUs, FitLabIssueUs},
		{"FitEFALatency", fit.EFALatency, FitEFALatency},
		{"FitTCPXOLatency", fit.TCPXOLatency, FitTCPXOLatency},
		{"FitNVLSFillLoops", fit.NVLSFillLoops, FitNVLSFillLoops},
		{"FitRingFillLoops", fit.RingFillLoops, FitRingFillLoops},
	} {
		if math.Abs(c.got-c.want) > 1e-9*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s = %g, the fit gives %g", c.name, c.want, c.got)
		}
	}
	// Each constant was fitted on rows, and no hold-out row among them.
	holdout := map[string]bool{}
	for _, r := range rows {
		holdout[r.ID] = r.Holdout
	}
	for _, name := range []string{"RingEfficiency", "NetEfficiency", "GatherLocalStep", "LLEfficiency", "SHMEfficiency",
		"IssueUs", "LabIssueUs", "EFALatency", "TCPXOLatency", "NVLSFillLoops"} {
		ids := fit.Rows[name]
		if len(ids) == 0 {
			t.Errorf("%s was fitted on no row", name)
		}
		for _, id := range ids {
			if holdout[id] {
				t.Errorf("%s fitted on hold-out row %s", name, id)
			}
		}
		t.Logf("%s: %v", name, ids)
	}
}

func TestParsePublishedRejectsBadRows(t *testing.T) {
	header := strings.Join(publishedColumns, "\t") + "\n"
	good := "r1\tno\twithin\t\tm\thgx-h100\t8\t1\t\t\t2.28\t2.13.8\t-n 20\tall_reduce\tauto\tauto\t\t\t8589934592\t8G\tbusbw\t480\t1\t\thttps://x\t2025\tline 3"
	if rows, err := ParsePublished(strings.NewReader("# c\n\n" + header + good + "\n")); err != nil || len(rows) != 1 || rows[0].Value != 480 {
		t.Fatalf("good row: %v %v", rows, err)
	}
	replace := func(field, value string) string {
		f := strings.Split(good, "\t")
		for i, c := range publishedColumns {
			if c == field {
				f[i] = value
			}
		}
		return strings.Join(f, "\t")
	}
	for _, tc := range []struct{ text, want string }{
		{"", "no header"},
		{"id\tvalue\n", "header"},
		{header + "r1\tno\n", "2 fields"},
		{header + replace("holdout", "maybe"), "holdout"},
		{header + replace("verdict", "close"), "verdict"},
		{header + replace("verdict", "known-miss"), "needs its cause"},
		{header + replace("cause", "a cause"), "expected within"},
		{header + replace("nodes", "0"), "nodes"},
		{header + replace("gpus_per_node", "eight"), "gpus_per_node"},
		{header + replace("collective", "allsum"), "unknown collective"},
		{header + replace("algo", "butterfly"), "algo"},
		{header + replace("proto", "ll64"), "proto"},
		{header + replace("nvls", "maybe"), "nvls"},
		{header + replace("p2p", "maybe"), "p2p"},
		{header + replace("size_bytes", "-8"), "size_bytes"},
		{header + replace("metric", "algbw"), "metric"},
		{header + replace("value", "NaN"), "value"},
		{header + replace("value", "0"), "value"},
		{header + replace("host", "cloud"), "host"},
		{header + replace("source", ""), "source"},
		{header + good + "\n" + good, "already on line"},
		{header + strings.Repeat("x", 2<<20), "longer than 1 MiB"},
	} {
		_, err := ParsePublished(strings.NewReader(tc.text))
		if !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %q", tc.text, err, tc.want)
		}
	}
	// A row naming a preset that does not exist fails at evaluation.
	rows, err := ParsePublished(strings.NewReader(header + replace("preset", "dgx-z")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Calibrate(rows); !errors.Is(err, ErrParams) {
		t.Errorf("unknown preset: %v", err)
	}
	// p2p says how GPUs reach each other over PCIe: on an NVLink preset
	// it is an error, on a PCIe preset it sets the node's NoP2P.
	if rows, err = ParsePublished(strings.NewReader(header + replace("p2p", "off"))); err != nil {
		t.Fatal(err)
	}
	if _, err := Calibrate(rows); !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), "not PCIe") {
		t.Errorf("p2p on an NVLink preset: %v", err)
	}
	for _, tc := range []struct {
		p2p       string
		wantNoP2P bool
	}{{"", true}, {"off", true}, {"on", false}} {
		f := strings.Split(replace("p2p", tc.p2p), "\t")
		for i, c := range publishedColumns {
			if c == "preset" {
				f[i] = "rtx4090-pcie"
			}
		}
		rows, err := ParsePublished(strings.NewReader(header + strings.Join(f, "\t")))
		if err != nil {
			t.Fatal(err)
		}
		m, err := rows[0].machine()
		if err != nil || m.Node.NoP2P != tc.wantNoP2P {
			t.Errorf("p2p %q on rtx4090-pcie: NoP2P %v (%v), want %v", tc.p2p, m.Node.NoP2P, err, tc.wantNoP2P)
		}
	}
}

func FuzzParsePublished(f *testing.F) {
	data, err := os.ReadFile("testdata/published.tsv")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(data))
	lines := strings.Split(string(data), "\n")
	for i := range lines {
		if i > 12 && i < 20 {
			f.Add(strings.Join(lines[:12], "\n") + "\n" + lines[i])
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		rows, err := ParsePublished(strings.NewReader(text))
		if err != nil {
			if !errors.Is(err, ErrParams) {
				t.Fatalf("error not ErrParams: %v", err)
			}
			return
		}
		for _, r := range rows {
			if r.ID == "" || !(r.Value > 0) || !(r.Bytes > 0) || r.Nodes < 1 || r.GPUsPerNode < 1 {
				t.Fatalf("accepted a bad row: %+v", r)
			}
		}
		// Evaluating accepted rows never panics; it may refuse them.
		if len(rows) < 4 {
			Calibrate(rows)
		}
	})
}

func TestCalibrationForPreset(t *testing.T) {
	rows, err := Calibration("HGX-H200")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no hgx-h200 rows")
	}
	for _, r := range rows {
		if r.Preset != "hgx-h200" {
			t.Errorf("row %s of preset %s", r.ID, r.Preset)
		}
	}
	if s := rows.String(); !strings.Contains(s, "measured") || !strings.Contains(s, "lab-h200x2-ar-8g") {
		t.Errorf("table:\n%s", s)
	}
	none, err := Calibration("l40s-pcie")
	if err != nil || len(none) != 0 || !strings.Contains(none.String(), "no published measurement") {
		t.Errorf("a preset without rows: %v %v %q", none, err, none.String())
	}
	if _, err := Calibration("dgx-z"); !errors.Is(err, ErrParams) {
		t.Errorf("unknown preset: %v", err)
	}
}

func TestEstimateRefusesBadInput(t *testing.T) {
	h, _ := NodeByName("hgx-h100")
	for _, m := range []Machine{
		{},
		{Node: h, GPUsPerNode: 9},
		{Node: h, Nodes: -1},
		{Node: h, NCCL: "1.0"},
		{Node: h, Harness: Harness{ThreadGPUs: -1}},
		{Node: h, Harness: Harness{IssueUs: math.Inf(1)}},
		{Node: h, Harness: Harness{Host: "cloud"}},
	} {
		if _, err := m.Estimate(AllReduce, 1<<20, "", ""); !errors.Is(err, ErrParams) {
			t.Errorf("%+v: %v", m.Harness, err)
		}
	}
	m := Machine{Node: h}
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := m.Estimate(AllReduce, bad, "", ""); !errors.Is(err, ErrParams) {
			t.Errorf("size %v: %v", bad, err)
		}
	}
	if _, err := m.Estimate(AllReduce, 1, "butterfly", ""); !errors.Is(err, ErrParams) {
		t.Errorf("unknown algorithm: %v", err)
	}
	if _, err := m.Estimate(AllToAll, 1<<20, "ring", ""); !errors.Is(err, ErrParams) {
		t.Errorf("all_to_all with NCCL_ALGO forced: %v", err)
	}
	two := Machine{Node: h, Nodes: 2}
	two.Node.NICs = 0
	if _, err := two.Estimate(AllReduce, 1<<30, "", ""); !errors.Is(err, ErrParams) {
		t.Errorf("two nodes without a network: %v", err)
	}
}

// The harness floor: one thread issuing to every GPU costs ThreadGPUs x
// IssueUs per operation; the lab's host its own fitted time; large sizes
// do not see it.
func TestEstimateHarnessFloor(t *testing.T) {
	h, _ := NodeByName("hgx-h200")
	m := Machine{Node: h, GPUsPerNode: 2, NVLSOff: true, Harness: LabHarness(2)}
	e, err := m.Estimate(AllReduce, 8, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if e.FloorUs != 2*FitLabIssueUs || e.TimeUs < e.FloorUs || e.Bound != "latency" {
		t.Errorf("lab 2xH200 at 8 B: %+v", e)
	}
	m.Harness = Harness{ThreadGPUs: 2}
	if e, _ := m.Estimate(AllReduce, 8, "", ""); e.FloorUs != 2*FitIssueUs {
		t.Errorf("published host: floor %g", e.FloorUs)
	}
	big, _ := m.Estimate(AllReduce, 8<<30, "", "")
	if big.Bound != "bandwidth" || math.Abs(big.BusBWGBps/big.PeakBusBWGBps-1) > 0.01 {
		t.Errorf("8 GiB: %+v", big)
	}
	if s := big.String(); !strings.Contains(s, "Ring/Simple") || !strings.Contains(s, "busbw") {
		t.Errorf("String: %q", s)
	}
}

func TestNCCLFamily(t *testing.T) {
	for in, want := range map[string]string{"": DefaultNCCL, "2.28": "2.28", "2.28.9+cuda13.0": "2.28", "2.30.7-1": "2.28",
		"2.27.3": "2.27", "2.23": "2.23", "2.21.5": "2.19", "2.9.9": "2.19", "v2.25.1-1": ""} {
		got, err := NCCLFamily(in)
		if want == "" {
			if !errors.Is(err, ErrParams) {
				t.Errorf("%q: %q %v, want an error", in, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	// Tune takes a version for its family.
	h, _ := NodeByName("hgx-h100")
	a, err := Tune(NCCLTopology(h, 1, "2.21.5"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Tune(NCCLTopology(h, 1, "2.19"))
	if a.String() != b.String() {
		t.Error("2.21.5 does not tune as the 2.19 family")
	}
}

// The NVLS graph as search.cc builds it: one channel per GPU on one node,
// each at the fastest speed with (channels+1) x speed within the NVLink
// total, bwInter raised to twice that; across nodes one channel per GPU
// with a NIC, held to its NICs' share.
func TestNVLSGraph(t *testing.T) {
	for _, tc := range []struct {
		preset           string
		nodes            int
		ch               int
		intra, interRate float64
	}{
		{"hgx-h100", 1, 8, 40, 60},    // 9 x 40 <= 370.8
		{"hgx-h800", 1, 8, 15, 30},    // 9 x 15 <= 164.8 < 9 x 20
		{"hgx-h100", 2, 8, 40, 48},    // NDR 50 GB/s per head
		{"gcp-a3-mega", 2, 8, 24, 24}, // TCPXO 25 GB/s per head
		{"gcp-a3", 2, 4, 24, 24},      // 4 NICs: 4 heads, 25 GB/s each
		{"gb200-nvl72", 1, 32, 20, 40},
	} {
		n, _ := NodeByName(tc.preset)
		g := ncclNVLSSearch(n, tc.nodes)
		if g.Channels != tc.ch || g.BwIntraGBps != tc.intra || g.BwInterGBps != tc.interRate {
			t.Errorf("%s x%d: %+v, want %d channels of %g/%g", tc.preset, tc.nodes, g, tc.ch, tc.intra, tc.interRate)
		}
	}
	// The two families' NVLS bus bandwidth on 8 H100s, as the tuner file's
	// doc says: 2.23 466.7 GB/s, 2.28 476.
	h, _ := NodeByName("hgx-h100")
	for fam, want := range map[string]float64{"2.23": 466.7, "2.28": 476} {
		T, _ := Tune(NCCLTopology(h, 1, fam))
		if got := T.bw[funcIndex(AllReduce)][aNVLS][pSimple] * 14 / 8; math.Abs(got-want) > 0.1 {
			t.Errorf("%s: NVLS busbw %.1f, want %.1f", fam, got, want)
		}
	}
}

func TestPresetList(t *testing.T) {
	ps := Presets()
	names := map[string]Preset{}
	for _, p := range ps {
		names[p.Name] = p
		if p.Description == "" || len(p.Sources) == 0 {
			t.Errorf("%s: no description or source", p.Name)
		}
	}
	for _, want := range []string{"hgx-h800", "hgx-h20", "p4d", "p4de", "p5", "gcp-a3", "gcp-a3-mega", "l40s-pcie",
		"rtx4090-pcie", "rtx5090-pcie", "a100-pcie-nvbridge", "gb200-nvl72", "ib-ndr", "ib-hdr", "roce-400", "efa-100",
		"tcpx-200", "tcpxo-200"} {
		if _, ok := names[want]; !ok {
			t.Errorf("no preset %s", want)
		}
	}
	if names["hgx-h100"].Kind != "node" || names["efa-100"].Kind != "efa" {
		t.Errorf("kinds: %+v %+v", names["hgx-h100"], names["efa-100"])
	}
	// NCCL's link ratings: per GPU NVLink totals and PCIe lanes.
	for name, want := range map[string]float64{"nvlink4-gpu": 370.8, "nvlink3-gpu": 240, "nvlink4-h800": 164.8,
		"nvlink5-gpu": 721.8, "nvlink3-bridge": 240, "pcie4x16": 24, "pcie5x16": 48, "ib-ndr": 50, "efa-100": 12.5} {
		l, err := LinkByName(name)
		if err != nil || math.Abs(l.NCCLBandwidth-want) > 1e-9 {
			t.Errorf("%s: NCCL rating %g, want %g (%v)", name, l.NCCLBandwidth, want, err)
		}
	}
	for _, n := range Nodes() {
		if n.Intra.Name == "" || (n.NICs > 0 && n.NIC.Name == "") || n.ComputeCapability == 0 {
			t.Errorf("node %s has a missing link: %+v", n.Name, n)
		}
	}
}
