package doctor_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/commlab/commlab/doctor"
	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/probes/recorded"
)

// A notebook sets the recorded all_reduce of two H200s with each protocol
// forced side by side: busbw at a few sizes, the plateau against the
// model, the floor and the doctor's worst verdicts.
func ExampleReportTable() {
	var sizes []float64 // the sizes the recorded sweeps ran: 8 B to 8 GiB
	for s := 8.0; s <= 8<<30; s *= 2 {
		sizes = append(sizes, s)
	}
	model, err := doctor.ExpectedCurve(doctor.Machine{Preset: "hgx-h200", GPUsPerNode: 2, Nodes: 1, Family: "2.28"}, "all_reduce", sizes)
	if err != nil {
		fmt.Println(err)
		return
	}
	var reports []doctor.CurveReport
	for _, p := range []string{"LL", "Simple"} {
		run, err := recorded.Load("nccl-h200x2-proto-" + p)
		if err != nil {
			fmt.Println(err)
			return
		}
		r, err := doctor.DiagnoseRun(run, "all_reduce", model)
		if err != nil {
			fmt.Println(err)
			return
		}
		reports = append(reports, r)
	}
	fmt.Print(doctor.ReportTable("NCCL_PROTO", []string{"LL", "Simple"}, reports, 8<<30))
	// Output:
	// | NCCL_PROTO | 8 GiB | plateau / model | floor | doctor |
	// |:---|---:|---:|---:|:---|
	// | LL | 121.7 GB/s | 34.78% | 22.37 µs | fail large-plateau |
	// | Simple | 344.9 GB/s | 97.9% | 23.07 µs | ok |
}

func TestPickTable(t *testing.T) {
	choice := func(bytes int64, algo, proto string, lo, hi int) nccllog.FoldedChoice {
		return nccllog.FoldedChoice{Choice: nccllog.Choice{Op: "AllReduce", Bytes: bytes, Algorithm: algo, Protocol: proto, ChannelLo: lo, ChannelHi: hi}, Count: 1}
	}
	model := doctor.Model{Points: []doctor.ModelPoint{
		{Bytes: 8, Algorithm: "Ring", Protocol: "LL"}, {Bytes: 16, Algorithm: "Ring", Protocol: "LL"},
		{Bytes: 32, Algorithm: "Ring", Protocol: "LL"}, {Bytes: 64, Algorithm: "Ring", Protocol: "Simple"}}}
	choices := []nccllog.FoldedChoice{
		choice(8, "Ring", "LL", 0, 0),
		choice(8, "Tree", "LL", 0, 0),  // a second call of a size already shown: left out
		choice(16, "Ring", "LL", 0, 0), // the same as the row before: left out
		choice(32, "Ring", "LL", 0, 0), // the same, but asked for
		choice(64, "Ring", "LL", 0, 1), // NCCL and the model disagree
		{Choice: nccllog.Choice{Op: "Broadcast", Bytes: 128, Algorithm: "Ring", Protocol: "LL"}},
	}
	got := doctor.PickTable(choices, model, "AllReduce", 32)
	want := "| size | NCCL logged | channels | model | same |\n|---:|---|---:|---|:---:|\n" +
		"| 8 B | Ring/LL | 0..0 | Ring/LL | yes |\n" +
		"| 32 B | Ring/LL | 0..0 | Ring/LL | yes |\n" +
		"| 64 B | Ring/LL | 0..1 | Ring/Simple | no |\n"
	if got != want {
		t.Errorf("PickTable:\n%s\nwant:\n%s", got, want)
	}
}

func TestSideBySideAndFloor(t *testing.T) {
	a := doctor.Curve{Points: []doctor.CurvePoint{{Bytes: 8, TimeUs: 20, BusBW: 0}, {Bytes: 1 << 20, TimeUs: 30, BusBW: 60}}}
	b := doctor.Curve{Points: []doctor.CurvePoint{{Bytes: 8, TimeUs: 25, BusBW: 0}}}
	got := doctor.SideBySide([]string{"a", "b"}, []doctor.Curve{a, b}, 8, 1<<20)
	if !strings.Contains(got, "| 8 B | 20 µs, 0 B/s | 25 µs, 0 B/s |") || strings.Contains(got, "1 MiB") {
		t.Errorf("SideBySide: a size both curves have is shown, one missing from b is not:\n%s", got)
	}
	if a.FloorUs() != 20 || b.BusBWAt(1<<20) != 0 || a.BusBWAt(1<<20) != 60 {
		t.Errorf("FloorUs %v, BusBWAt %v %v", a.FloorUs(), b.BusBWAt(1<<20), a.BusBWAt(1<<20))
	}
}

func TestReportMarkdownAndWorst(t *testing.T) {
	r := doctor.CurveReport{Verdicts: []doctor.Verdict{{Check: "floor", Status: doctor.OK, Summary: "fine"}}}
	if r.Worst() != "ok" {
		t.Errorf("Worst of an all-ok report: %q", r.Worst())
	}
	r.Verdicts = append(r.Verdicts, doctor.Verdict{Check: "large-plateau", Status: doctor.Fail, Summary: "low"})
	if r.Worst() != "fail large-plateau" {
		t.Errorf("Worst: %q", r.Worst())
	}
	md := r.Markdown("Network x")
	if !strings.HasPrefix(md, "**Network x:**\n\n- ") || !strings.Contains(md, "<details><summary>the doctor's whole report</summary>") {
		t.Errorf("Markdown:\n%s", md)
	}
}
