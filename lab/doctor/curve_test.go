package doctor_test

import (
	"os"
	"strings"
	"testing"

	"github.com/commlab/commlab/lab/doctor"
	"github.com/commlab/commlab/probes/parse/nccltests"
	"github.com/commlab/commlab/probes/recorded"
)

// recordedCurve loads a recorded commlab NCCL run (probes/recorded/data)
// as an all_reduce curve.
func recordedCurve(t *testing.T, name string) doctor.Curve {
	t.Helper()
	r, err := recorded.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := doctor.CurveFromRun(r, "all_reduce", false)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ncclTestsCurve parses a real nccl-tests output kept by the parser's tests.
func ncclTestsCurve(t *testing.T, file string) doctor.Curve {
	t.Helper()
	f, err := os.Open("../../probes/parse/nccltests/testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := nccltests.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	c, err := doctor.CurveFromNCCLTests(&res.Runs[0])
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// splice takes lo's points up to and including size cut and hi's above it:
// a curve whose switch to the faster protocol comes late.
func splice(lo, hi doctor.Curve, cut float64) doctor.Curve {
	out := lo
	out.Points = nil
	for i, p := range lo.Points {
		if p.Bytes <= cut {
			out.Points = append(out.Points, p)
		} else {
			out.Points = append(out.Points, hi.Points[i])
		}
	}
	out.Source = "spliced: " + lo.Source + " up to the cut, " + hi.Source + " above"
	return out
}

func diagnose(t *testing.T, c doctor.Curve, m doctor.Machine) doctor.CurveReport {
	t.Helper()
	model, err := doctor.ExpectedCurve(m, c.Collective, c.Sizes())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := doctor.DiagnoseCurve(c, model, doctor.DefaultCurveOptions())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func statuses(vs []doctor.Verdict) map[string]doctor.Status {
	out := map[string]doctor.Status{}
	for _, v := range vs {
		if s, ok := out[v.Check]; !ok || v.Status > s {
			out[v.Check] = v.Status
		}
	}
	return out
}

// The lab's two H200s, NVLS off, as recorded.
var h200x2 = doctor.Machine{Preset: "hgx-h200", GPUsPerNode: 2, Nodes: 1, Family: "2.28"}

func TestDiagnoseCurveShapes(t *testing.T) {
	auto := recordedCurve(t, "nccl-h200x2-proto-auto")
	ll := recordedCurve(t, "nccl-h200x2-proto-LL")
	tests := []struct {
		name    string
		curve   doctor.Curve
		machine doctor.Machine
		want    map[string]doctor.Status
		summary []string // substrings of the verdicts' summaries
	}{
		{"healthy 2xH200 (NCCL's own pick)", auto, h200x2,
			map[string]doctor.Status{doctor.BranchLargePlateau: doctor.OK, doctor.BranchSmallFloor: doctor.OK, doctor.BranchDip: doctor.OK},
			[]string{"plateau at 95% of the model (343 GB/s busbw)", "small-message floor 21.51 µs, 2.8x the model"}},
		{"NCCL_PROTO=LL forced: low plateau", ll, h200x2,
			map[string]doctor.Status{doctor.BranchLargePlateau: doctor.Fail, doctor.BranchSmallFloor: doctor.OK, doctor.BranchDip: doctor.OK},
			[]string{"plateau too low: 121.7 GB/s busbw, 34% of the model's 359.5 GB/s"}},
		// LL kept up to 32 MiB, NCCL's own pick above: a switch point set
		// too late (as a bad NCCL_PROTO threshold or tuner plugin would).
		{"late protocol switch: dip", splice(ll, auto, 32<<20), h200x2,
			map[string]doctor.Status{doctor.BranchLargePlateau: doctor.OK, doctor.BranchDip: doctor.Warn},
			[]string{"dip at 16 MiB to 32 MiB"}},
		{"one H200: launch and copy floor", recordedCurve(t, "nccl-h200x1-proto-auto"), doctor.Machine{Preset: "hgx-h200", GPUsPerNode: 1, Nodes: 1, Family: "2.28"},
			map[string]doctor.Status{doctor.BranchLargePlateau: doctor.Skipped, doctor.BranchSmallFloor: doctor.Skipped, doctor.BranchDip: doctor.Skipped},
			[]string{"launch and copy floor"}},
		// A public 2-node 16x H100 run against 8x NDR nodes with NVLS: the
		// machine it ran on has other NICs, so the model overestimates it.
		{"2 nodes of 8 H100 (public run)", ncclTestsCurve(t, "allreduce_h100_2node_a3mega.txt"), doctor.Machine{Preset: "hgx-h100", GPUsPerNode: 8, Nodes: 2, Family: "2.28", NVLS: true},
			map[string]doctor.Status{doctor.BranchMultiNode: doctor.Fail, doctor.BranchSmallFloor: doctor.Warn, doctor.BranchDip: doctor.Warn},
			[]string{"multi-node plateau too low: 330.6 GB/s", "dip at 8 MiB to 32 MiB"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := diagnose(t, tc.curve, tc.machine)
			got := statuses(rep.Verdicts)
			for check, want := range tc.want {
				if got[check] != want {
					t.Errorf("%s: %v, want %v\n%s", check, got[check], want, rep.Text())
				}
			}
			text := rep.Text()
			for _, s := range tc.summary {
				if !strings.Contains(text, s) {
					t.Errorf("report lacks %q:\n%s", s, text)
				}
			}
		})
	}
}

func TestDiagnoseCurveSkipsOutsideTheSweep(t *testing.T) {
	auto := recordedCurve(t, "nccl-h200x2-proto-auto")
	small, large := auto, auto
	small.Points, large.Points = auto.Points[:12], auto.Points[20:] // 8 B..16 KiB; 8 MiB..8 GiB
	rep := diagnose(t, small, h200x2)
	if s := statuses(rep.Verdicts)[doctor.BranchLargePlateau]; s != doctor.Skipped {
		t.Errorf("a sweep ending at 16 KiB judged the plateau: %v", s)
	}
	rep = diagnose(t, large, h200x2)
	if s := statuses(rep.Verdicts)[doctor.BranchSmallFloor]; s != doctor.Skipped {
		t.Errorf("a sweep starting at 8 MiB judged the floor: %v", s)
	}
}

func TestDiagnoseCurveRefusesAMisalignedModel(t *testing.T) {
	auto := recordedCurve(t, "nccl-h200x2-proto-auto")
	m, err := doctor.ExpectedCurve(h200x2, "all_reduce", auto.Sizes()[1:])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := doctor.DiagnoseCurve(auto, m, doctor.DefaultCurveOptions()); err == nil || !strings.HasPrefix(err.Error(), "doctor: ") {
		t.Errorf("misaligned model: err %v", err)
	}
	if _, err := doctor.DiagnoseCurve(doctor.Curve{}, m, doctor.DefaultCurveOptions()); err == nil {
		t.Error("an empty curve was diagnosed")
	}
}

// CompareNodes' arithmetic on reports whose plateaus are set by hand (not
// measurements): 100 of 300 GB/s kept where the model keeps 80%.
func TestCompareNodes(t *testing.T) {
	single := doctor.CurveReport{PlateauBusBW: 300, ModelPlateauBusBW: 360}
	multi := doctor.CurveReport{Curve: doctor.Curve{Nodes: 2}, PlateauBusBW: 100, ModelPlateauBusBW: 288}
	v := doctor.CompareNodes(multi, single, doctor.DefaultCurveOptions())
	if v.Status != doctor.Fail || !strings.Contains(v.Summary, "33% of the single-node busbw where the model expects 80%") {
		t.Errorf("got %v", v)
	}
	multi.PlateauBusBW = 230
	if v := doctor.CompareNodes(multi, single, doctor.DefaultCurveOptions()); v.Status != doctor.OK {
		t.Errorf("77%% kept of 80%%: %v", v)
	}
	if v := doctor.CompareNodes(doctor.CurveReport{}, single, doctor.DefaultCurveOptions()); v.Status != doctor.Skipped {
		t.Errorf("no plateau: %v", v)
	}
}

func TestDecisionTree(t *testing.T) {
	ids := map[string]bool{}
	for _, b := range doctor.DecisionTree() {
		if ids[b.ID] || len(b.Checks) == 0 || b.Sign == "" {
			t.Errorf("branch %+v: duplicate or empty", b)
		}
		ids[b.ID] = true
	}
	for _, id := range []string{doctor.BranchLargePlateau, doctor.BranchSmallFloor, doctor.BranchDip, doctor.BranchMultiNode,
		doctor.BranchHangSame, doctor.BranchHangDiffer, doctor.BranchHangSome, doctor.BranchWrongUnstable, doctor.BranchWrongNaN} {
		if !ids[id] {
			t.Errorf("no branch %s", id)
		}
	}
	tree := doctor.DrawDecisionTree([]doctor.Verdict{{Check: doctor.BranchDip, Status: doctor.Warn}, {Check: doctor.BranchDip, Status: doctor.OK},
		{Check: doctor.BranchLargePlateau, Status: doctor.Skipped}})
	if !strings.Contains(tree, "[warn] a dip in the middle") || strings.Contains(tree, "[skip") {
		t.Errorf("tree marks:\n%s", tree)
	}
	if doctor.HangBranch("missing") != doctor.BranchHangDiffer || doctor.HangBranch("unpaired-p2p") != doctor.BranchHangSome {
		t.Error("hang branches")
	}
}
