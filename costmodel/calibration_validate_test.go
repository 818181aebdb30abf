package costmodel

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// Every constant is reported with its fit and check rows; validated means
// at least 3 fitted and 2 checked from other sources.
func TestValidateConstants(t *testing.T) {
	rows, err := PublishedMeasurements()
	if err != nil {
		t.Fatal(err)
	}
	checks, err := ValidateConstants(rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != len(fitTargets) {
		t.Fatalf("%d checks for %d constants", len(checks), len(fitTargets))
	}
	byID := map[string]PublishedRow{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	for _, c := range checks {
		t.Logf("%-20s %-8.3g fit %v check %v: %s", c.Name, c.Value, c.FitRows, c.CheckRows, c.Status())
		if c.Validated != (len(c.FitRows) >= 3 && len(c.CheckRows) >= 2) {
			t.Errorf("%s: validated %v with %d fit and %d check rows", c.Name, c.Validated, len(c.FitRows), len(c.CheckRows))
		}
		if !c.Validated && !strings.HasPrefix(c.Status(), "unvalidated") {
			t.Errorf("%s: status %q", c.Name, c.Status())
		}
		fitSources := map[string]bool{}
		for _, id := range c.FitRows {
			if byID[id].Holdout || byID[id].Verdict != "within" {
				t.Errorf("%s fitted on %s (hold-out or known miss)", c.Name, id)
			}
			fitSources[SourceKey(byID[id])] = true
		}
		for _, id := range c.CheckRows {
			if !byID[id].Holdout || fitSources[SourceKey(byID[id])] {
				t.Errorf("%s checked on %s, not a hold-out row of another source", c.Name, id)
			}
		}
	}
}

// Leave-one-source-out: every row is predicted once, groups cover the
// regimes and network families, and a row resting on a constant only its
// own source informs is kept out of the medians.
func TestCrossValidate(t *testing.T) {
	rows, err := PublishedMeasurements()
	if err != nil {
		t.Fatal(err)
	}
	cv, err := CrossValidate(rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(cv.Rows) != len(rows) {
		t.Errorf("%d cross-validated rows of %d", len(cv.Rows), len(rows))
	}
	groups := map[string]CrossGroup{}
	for _, g := range cv.Groups {
		groups[strings.Fields(g.Group)[0]] = g
	}
	for _, want := range []string{"all", "small", "middle", "large", "one", "several", "NVLink/NVSwitch", "PCIe/SHM", "InfiniBand",
		"RoCE", "EFA", "TCPX/TCPXO"} {
		if _, ok := groups[want]; !ok {
			t.Errorf("no group %s", want)
		}
	}
	if all := groups["all"]; all.Rows != len(rows) || math.IsNaN(all.Median) {
		t.Errorf("all rows: %+v", all)
	}
	for _, r := range cv.Rows {
		if r.Family == "EFA" && r.Regime == "small" && r.Expected == "within" && r.Unchecked != "FitEFALatency" && groups["EFA"].Sources < 3 {
			t.Errorf("%s: the EFA latency is fitted on one source, yet the row counts as cross-validated", r.ID)
		}
	}
	t.Log("\n" + cv.String())
}

func TestCalibrationReport(t *testing.T) {
	rep, err := CalibrationReportFor("")
	if err != nil {
		t.Fatal(err)
	}
	s := rep.String()
	for _, want := range []string{fmt.Sprintf("%d of %d rows within their limit", rep.Rows.Within(), len(rep.Rows)), "small sizes",
		"middle sizes", "large sizes", "known miss", "fitted constants", "unvalidated", "leave-one-source-out"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	one, err := CalibrationReportFor("p4d")
	if err != nil || one.Cross != nil || len(one.Rows) == 0 {
		t.Errorf("p4d report: %v, %d rows", err, len(one.Rows))
	}
}

// The network family comes from the links' Kind, and a preset's fitted
// latency from Link.NetLatencyFit: a link whose latency merely equals a
// fitted constant keeps it when the fit moves.
func TestNetworkFamilyAndFittedLatencyByField(t *testing.T) {
	for preset, want := range map[string]string{"p5": "EFA", "gcp-a3-mega": "TCPX/TCPXO", "hgx-h100": "InfiniBand", "rtx4090-pcie": "PCIe/SHM"} {
		n, _ := NodeByName(preset)
		if got := NetworkFamily(n, 2); preset != "rtx4090-pcie" && got != want {
			t.Errorf("%s: %s, want %s", preset, got, want)
		}
		if preset == "rtx4090-pcie" && NetworkFamily(n, 1) != want {
			t.Errorf("%s one node: %s", preset, NetworkFamily(n, 1))
		}
	}
	p5, _ := NodeByName("p5")
	moved := fitted
	moved.efa = 2 * FitEFALatency
	m := Machine{Node: p5, Nodes: 2}
	a, _ := m.estimate(AllReduce, 8, "", "", fitted)
	b, _ := m.estimate(AllReduce, 8, "", "", moved)
	if !(b.LatencyUs > a.LatencyUs) {
		t.Errorf("EFA latency does not follow the fit: %g then %g", a.LatencyUs, b.LatencyUs)
	}
	fixed := p5
	fixed.NIC.NetLatencyFit = ""
	m.Node = fixed
	c, _ := m.estimate(AllReduce, 8, "", "", fitted)
	d, _ := m.estimate(AllReduce, 8, "", "", moved)
	if c.LatencyUs != d.LatencyUs {
		t.Errorf("a fixed latency equal to FitEFALatency followed the fit: %g then %g", c.LatencyUs, d.LatencyUs)
	}
	// A newer EFA takes the fit times its link's NetLatencyScale (the
	// plugin's own step down), and follows the fit too.
	p6, _ := NodeByName("p6-b200")
	if p6.NIC.NetLatencyScale <= 0 || p6.NIC.NetLatencyScale >= 1 || p6.NIC.NetLatencyScaleSource == "" {
		t.Fatalf("p6-b200's EFA: scale %g (%q)", p6.NIC.NetLatencyScale, p6.NIC.NetLatencyScaleSource)
	}
	two := Machine{Node: p6, Nodes: 2}
	e, _ := two.estimate(AllReduce, 8, "", "", fitted)
	f, _ := two.estimate(AllReduce, 8, "", "", moved)
	// Tree/LL across two nodes crosses the network twice (tuner_latency.go).
	if got, want := f.LatencyUs-e.LatencyUs, 2*FitEFALatency*1e6*p6.NIC.NetLatencyScale; math.Abs(got-want) > 1e-9 {
		t.Errorf("p6-b200: the fit moved the latency by %g us, want %g", got, want)
	}
}

// TestDocCountsMatchTheTable keeps the package doc's "Of the N rows (S
// sources), W are within their limit; the M known misses" equal to the
// table, so adding a row shows where the doc must follow.
func TestDocCountsMatchTheTable(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := PublishedMeasurements()
	if err != nil {
		t.Fatal(err)
	}
	cal, err := Calibrate(rows)
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string]bool{}
	within, misses := 0, 0
	for i, r := range rows {
		sources[SourceKey(r)] = true
		if r.Verdict == "known-miss" {
			misses++
		}
		if cal[i].Pass {
			within++
		}
	}
	text := strings.Join(strings.Fields(strings.ReplaceAll(string(doc), "//", "")), " ")
	want := fmt.Sprintf("Of the %d rows (%d sources), %d are within their limit; the %d known misses", len(rows), len(sources), within, misses)
	if !strings.Contains(text, want) {
		t.Errorf("doc.go does not say %q", want)
	}
}
