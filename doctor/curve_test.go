package doctor_test

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/doctor"
	"github.com/commlab/commlab/parse/nccltests"
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
	f, err := os.Open("../parse/nccltests/testdata/" + file)
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

// The lab's two H200s, NVLS off, as recorded: commlab probe nccl issues
// each operation to both GPUs from one thread.
var h200x2 = doctor.Machine{Preset: "hgx-h200", GPUsPerNode: 2, Nodes: 1, Family: "2.28", Harness: costmodel.Harness{ThreadGPUs: 2}}

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
			[]string{"plateau at 98% of the model (343 GB/s busbw)", "small-message floor 21.51 µs, 2.2x the model"}},
		{"NCCL_PROTO=LL forced: low plateau", ll, h200x2,
			map[string]doctor.Status{doctor.BranchLargePlateau: doctor.Fail, doctor.BranchSmallFloor: doctor.OK, doctor.BranchDip: doctor.OK},
			[]string{"plateau too low: 121.7 GB/s busbw, 35% of the model's 350 GB/s"}},
		// LL kept up to 32 MiB, NCCL's own pick above: a switch point set
		// too late (as a bad NCCL_PROTO threshold or tuner plugin would).
		{"late protocol switch: dip", splice(ll, auto, 32<<20), h200x2,
			map[string]doctor.Status{doctor.BranchLargePlateau: doctor.OK, doctor.BranchDip: doctor.Warn},
			[]string{"dip at 16 MiB to 32 MiB"}},
		{"one H200: launch and copy floor", recordedCurve(t, "nccl-h200x1-proto-auto"), doctor.Machine{Preset: "hgx-h200", GPUsPerNode: 1, Nodes: 1, Family: "2.28"},
			map[string]doctor.Status{doctor.BranchLargePlateau: doctor.Skipped, doctor.BranchSmallFloor: doctor.Skipped, doctor.BranchDip: doctor.Skipped},
			[]string{"launch and copy floor"}},
		// A public 2-node 16x H100 run against 8x NDR nodes with NVLS: the
		// machine it ran on has other NICs (8x 200G TCPXO), so the model
		// overestimates it. costmodel's NVLSTree for two such NDR nodes is
		// 481.5 GB/s busbw (NVIDIA/nccl-tests#309 reports 470 on two HGX
		// H100), so this run's 69% is a warning, not a failure. Its dip
		// bottoms at 16 MiB, just above the model's switch to NVLSTree.
		{"2 nodes of 8 H100 (public run)", ncclTestsCurve(t, "allreduce_h100_2node_a3mega.txt"), doctor.Machine{Preset: "hgx-h100", GPUsPerNode: 8, Nodes: 2, Family: "2.28", NVLS: true},
			map[string]doctor.Status{doctor.BranchMultiNode: doctor.Warn, doctor.BranchSmallFloor: doctor.Warn, doctor.BranchDip: doctor.Warn},
			[]string{"multi-node plateau too low: 330.6 GB/s", "dip at 16 MiB"}},
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

// parseTable parses nccl-tests text into its first run's curve.
func parseTable(t *testing.T, text string) doctor.Curve {
	t.Helper()
	res, _ := nccltests.Parse(strings.NewReader(text))
	if res == nil || len(res.Runs) == 0 {
		t.Fatalf("no run in:\n%s", text)
	}
	c, err := doctor.CurveFromNCCLTests(&res.Runs[0])
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// modelTable prints an nccl-tests table of coll on ranks GPUs of preset
// whose busbw is share of the model's at every size (the time scaled
// accordingly): a synthetic curve, made from the model so that a test
// knows what the right reading is. devices names the GPU in the device
// lines ("" for none); redop and root are the columns nccl-tests prints
// for coll.
func modelTable(t *testing.T, preset, coll string, ranks int, share float64, gpu, redop string, root int, prefix string) string {
	t.Helper()
	var sizes []float64
	for s := 8.0; s <= 1<<30; s *= 4 {
		sizes = append(sizes, s)
	}
	m, err := doctor.ExpectedCurve(doctor.Machine{Preset: preset, GPUsPerNode: ranks, Nodes: 1, Family: "2.28", NVLS: true}, coll, sizes)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for r := 0; r < ranks && gpu != ""; r++ {
		fmt.Fprintf(&b, "%s#  Rank %2d Group  0 Pid %6d on      node1 device %2d [0x%02x] %s\n", prefix, r, 100+r, r, r, gpu)
	}
	factor, _ := nccltests.BusBWFactor(coll, ranks)
	for _, p := range m.Points {
		us := p.TimeUs / share
		alg := p.Bytes / us / 1e3
		fmt.Fprintf(&b, "%s%12.0f  %12.0f  %8s  %6s  %6d  %7.2f  %6.2f  %6.2f  %6d  %7.2f  %6.2f  %6.2f  %6d\n",
			prefix, p.Bytes, p.Bytes/4, "float", redop, root, us, alg, alg*factor, 0, us, alg, alg*factor, 0)
	}
	return b.String()
}

// The curve cases of the issue: the preset comes from the GPU the file
// names and the report says so; a broadcast is judged as a broadcast; a
// table behind srun's labels, without header or footer, has the ranks
// busbw/algbw gives; gather, alltoall and a GPU with no preset are read
// on their shape, never refused.
func TestJudgeCurveCases(t *testing.T) {
	opt := doctor.DefaultCurveOptions()
	t.Run("A100 run against the A100 preset", func(t *testing.T) {
		c := parseTable(t, modelTable(t, "dgx-a100", "all_reduce", 8, 0.97, "NVIDIA A100-SXM4-80GB", "sum", -1, ""))
		rep, err := doctor.JudgeCurve(c, doctor.CurveSetup{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Preset != "dgx-a100" || !strings.Contains(rep.Text(), "preset: dgx-a100 (the GPU the input names: NVIDIA A100-SXM4-80GB)") {
			t.Errorf("preset %q:\n%s", rep.Preset, rep.Text())
		}
		if share := rep.PlateauBusBW / rep.ModelPlateauBusBW; math.Abs(share-0.97) > 0.01 || statuses(rep.Verdicts)[doctor.BranchLargePlateau] != doctor.OK {
			t.Errorf("plateau at %.2f of the model:\n%s", share, rep.Text())
		}
		// The same file against the H200 preset (what --preset hgx-h200
		// asks for) scores far lower: the preset matters.
		h, err := doctor.JudgeCurve(c, doctor.CurveSetup{Preset: "hgx-h200"}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if h.Preset != "hgx-h200" || h.PresetFrom != "chosen with --preset" || h.PlateauBusBW/h.ModelPlateauBusBW > 0.8 {
			t.Errorf("against hgx-h200: %s, %.2f", h.PresetFrom, h.PlateauBusBW/h.ModelPlateauBusBW)
		}
	})
	t.Run("broadcast without a program name", func(t *testing.T) {
		c := parseTable(t, modelTable(t, "hgx-h100", "broadcast", 8, 0.9, "NVIDIA H100 80GB HBM3", "none", 0, ""))
		if c.Collective != "broadcast" {
			t.Fatalf("collective %q (%s)", c.Collective, c.CollectiveFrom)
		}
		rep, err := doctor.JudgeCurve(c, doctor.CurveSetup{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if rep.ShapeOnly != "" || !strings.Contains(rep.Text(), "broadcast, 8 rank(s)") || statuses(rep.Verdicts)[doctor.BranchLargePlateau] != doctor.OK {
			t.Errorf("broadcast judged:\n%s", rep.Text())
		}
	})
	t.Run("srun labels, no header or footer", func(t *testing.T) {
		c := parseTable(t, modelTable(t, "hgx-h100", "all_reduce", 8, 0.9, "", "sum", -1, "0: "))
		if c.Ranks != 8 || c.Collective != "all_reduce" || !strings.Contains(c.RanksFrom, "busbw/algbw = 1.75") {
			t.Fatalf("ranks %d collective %q (%s)", c.Ranks, c.Collective, c.RanksFrom)
		}
		rep, err := doctor.JudgeCurve(c, doctor.CurveSetup{Preset: "hgx-h100"}, opt)
		if err != nil || len(rep.Verdicts) < 3 || rep.Curve.Ranks != 8 {
			t.Errorf("err %v:\n%s", err, rep.Text())
		}
	})
	for _, tc := range []struct {
		name, coll, redop, gpu, want string
		root                         int
	}{
		{"gather", "gather", "none", "NVIDIA H100 80GB HBM3", "the input does not name the collective", 0},
		{"alltoall", "alltoall", "none", "NVIDIA H100 80GB HBM3", "the input does not name the collective", -1},
		{"L4 (no preset)", "all_reduce", "sum", "NVIDIA L4", "no preset for GPU NVIDIA L4: judged on shape only", -1},
		{"A100 PCIe (no preset)", "all_reduce", "sum", "NVIDIA A100 80GB PCIe", "no preset for GPU NVIDIA A100 80GB PCIe (a PCIe card, not a DGX A100 node)", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := modelTable(t, "hgx-h100", "all_gather", 8, 0.9, tc.gpu, tc.redop, tc.root, "")
			if tc.coll == "all_reduce" {
				text = modelTable(t, "hgx-h100", "all_reduce", 8, 0.9, tc.gpu, tc.redop, tc.root, "")
			}
			rep, err := doctor.JudgeCurve(parseTable(t, text), doctor.CurveSetup{}, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(rep.ShapeOnly, tc.want) || len(rep.Verdicts) != 3 {
				t.Errorf("shape only %q:\n%s", rep.ShapeOnly, rep.Text())
			}
			if s := statuses(rep.Verdicts); s[doctor.BranchDip] != doctor.OK || s[doctor.BranchSmallFloor] != doctor.Skipped {
				t.Errorf("verdicts %v", s)
			}
		})
	}
	// Named by the file, gather has no tuner model: skipped with the reason.
	c := parseTable(t, "# Collective test starting: gather_perf\n"+modelTable(t, "hgx-h100", "all_gather", 8, 0.9, "NVIDIA H100 80GB HBM3", "none", 0, ""))
	rep, err := doctor.JudgeCurve(c, doctor.CurveSetup{}, opt)
	if err != nil || c.Collective != "gather" || !strings.Contains(rep.ShapeOnly, "no model for gather") {
		t.Errorf("gather: %v, %q:\n%s", err, c.Collective, rep.Text())
	}
	if _, err := doctor.JudgeCurve(c, doctor.CurveSetup{Preset: "no-such-node"}, opt); err == nil {
		t.Error("an unknown --preset was accepted")
	}
}

func TestPresetForGPU(t *testing.T) {
	for gpu, want := range map[string]string{
		"NVIDIA H200":            "hgx-h200",
		"NVIDIA H100 80GB HBM3":  "hgx-h100",
		"NVIDIA A100-SXM4-80GB":  "dgx-a100",
		"NVIDIA A100-SXM-80GB":   "dgx-a100",
		"NVIDIA A100-SXM4-40GB":  "dgx-a100",
		"NVIDIA H100 PCIe":       "",
		"NVIDIA H100 NVL":        "",
		"NVIDIA A100 80GB PCIe":  "",
		"NVIDIA A100-PCIE-40GB":  "",
		"Tesla V100-SXM2-32GB":   "",
		"NVIDIA Graphics Device": "",
		"":                       "",
	} {
		got, why := doctor.PresetForGPU(gpu)
		if got != want || why == "" {
			t.Errorf("PresetForGPU(%q) = %q (%s), want %q", gpu, got, why, want)
		}
	}
	// H20 is not H200, H800 not H100: a preset costmodel has not got
	// gives none, never the wrong one.
	for _, gpu := range []string{"NVIDIA H20", "NVIDIA H800"} {
		if got, _ := doctor.PresetForGPU(gpu); got == "hgx-h200" || got == "hgx-h100" {
			t.Errorf("PresetForGPU(%q) = %q", gpu, got)
		}
	}
}
