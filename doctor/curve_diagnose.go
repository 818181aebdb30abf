package doctor

// This file judges a measured curve against its model: the thresholds
// (CurveOptions), the large-message plateau, the small-message floor and
// the dips (curve_dips.go), one curve against another across nodes
// (CompareNodes), and the curve an Evidence holds (CheckCurves).

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/units"
)

// CurveOptions are the doctor's thresholds. They are judgement, not
// measurement: DefaultCurveOptions says where each default comes from.
type CurveOptions struct {
	// Bound: a size counts as bandwidth-bound in the model when its
	// bandwidth term is at least Bound times its latency term, and as
	// latency-bound when its latency term is at least Bound times the
	// bandwidth term.
	Bound float64 `json:"bound"`
	// PlateauWarn and PlateauFail: the large-message plateau is suspect
	// below these fractions of the model's busbw.
	PlateauWarn float64 `json:"plateau_warn"`
	PlateauFail float64 `json:"plateau_fail"`
	// FloorWarn and FloorFail: the small-message floor is suspect above
	// these multiples of the model's time.
	FloorWarn float64 `json:"floor_warn"`
	FloorFail float64 `json:"floor_fail"`
	// DipDepth: a size dips when its measured/model ratio is below
	// DipDepth times the best ratio of its neighbours on both sides
	// (within DipSpan sizes).
	DipDepth float64 `json:"dip_depth"`
	DipSpan  int     `json:"dip_span"`
	// SlowerThanLarger: a size dips too when it takes more than this
	// times the time of a larger size within DipSpan sizes (twice the
	// data finishing sooner), whatever its neighbours' busbw.
	SlowerThanLarger float64 `json:"slower_than_larger"`
	// MultiNodeFail: a multi-node curve is far below single-node when its
	// plateau's share of the single-node plateau is below MultiNodeFail
	// times the share the model expects.
	MultiNodeFail float64 `json:"multi_node_fail"`
}

// DefaultCurveOptions are the thresholds the command and the chapter use.
// The floor thresholds sit above what the lab's own healthy 2xH200 record
// shows (nccl-h200x2-proto-auto: about 21 us against the model's 8.5 us,
// 2.5x: the model's small-message time is NCCL's latency or the fitted
// host issue time of published hosts, and these virtual machines issue
// slower); the plateau thresholds below its 101% of the model at 8 GiB.
// SlowerThanLarger leaves 10% for the run-to-run noise of one size.
func DefaultCurveOptions() CurveOptions {
	return CurveOptions{Bound: 4, PlateauWarn: 0.8, PlateauFail: 0.6, FloorWarn: 4, FloorFail: 8,
		DipDepth: 0.7, DipSpan: 4, SlowerThanLarger: 1.1, MultiNodeFail: 0.5}
}

// CurveReport is the doctor's reading of one curve.
type CurveReport struct {
	Curve Curve `json:"curve"`
	Model Model `json:"model"`
	// Preset is the costmodel node preset the curve was priced on, ""
	// when none was; PresetFrom says why this one (the --preset flag, the
	// GPU the input names, the topology) or why none ("no preset for GPU
	// X"). ShapeOnly, when set, says why the curve was read on its own
	// shape, without a model: its plateau and floor then skipped, its dips
	// still judged.
	Preset     string `json:"preset,omitempty"`
	PresetFrom string `json:"preset_from,omitempty"`
	ShapeOnly  string `json:"shape_only,omitempty"`
	// Ratio is measured busbw over model busbw per size (the model's time
	// over the measured time), index-aligned with Curve.Points.
	Ratio []float64 `json:"ratio"`
	// PlateauFrom is the smallest size the model calls bandwidth-bound
	// (0: none in the sweep); PlateauBusBW and ModelPlateauBusBW are the
	// median busbw of the largest three such sizes, measured and modelled.
	PlateauFrom       float64 `json:"plateau_from" unit:"B"`
	PlateauBusBW      float64 `json:"plateau_busbw_gbps" unit:"GB/s"`
	ModelPlateauBusBW float64 `json:"model_plateau_busbw_gbps" unit:"GB/s"`
	// FloorUpTo is the largest size the model calls latency-bound (0:
	// none); FloorUs and ModelFloorUs the median time over those sizes.
	FloorUpTo    float64 `json:"floor_up_to" unit:"B"`
	FloorUs      float64 `json:"floor_us" unit:"us"`
	ModelFloorUs float64 `json:"model_floor_us" unit:"us"`
	// Switches are the sizes where the model's pick changes, as
	// "Ring/LL -> Ring/Simple at 2 MiB".
	Switches []string  `json:"switches,omitempty"`
	Verdicts []Verdict `json:"verdicts"`
}

// DiagnoseCurve reads a measured curve against the model's expectation at
// the same sizes and returns the verdicts of the four shape checks: the
// large-message plateau (for a multi-node curve, the multi-node plateau),
// the small-message floor, and dips in the middle. A one-rank curve gets
// skipped verdicts: on one GPU NCCL runs its collectives as device copies
// (the launch and copy floor), there is no ring or protocol to judge.
func DiagnoseCurve(c Curve, m Model, opt CurveOptions) (CurveReport, error) {
	rep := CurveReport{Curve: c, Model: m}
	if len(c.Points) == 0 {
		return rep, fmt.Errorf("doctor: %w", ErrNoCurve)
	}
	if c.Ranks <= 1 {
		why := fmt.Sprintf("%s on one rank: NCCL runs it as device copies (the launch and copy floor), with no ring, tree or protocol; read shapes on two GPUs or more", c.Collective)
		for _, id := range []string{BranchLargePlateau, BranchSmallFloor, BranchDip} {
			rep.Verdicts = append(rep.Verdicts, Verdict{Layer: LayerCollective, Check: id, Status: Skipped, Summary: why, Chapter: ChapterCurve})
		}
		return rep, nil
	}
	if len(m.Points) != len(c.Points) {
		return rep, fmt.Errorf("doctor: the model has %d sizes, the curve %d: price the curve's sizes (ExpectedCurve(m, c.Collective, c.Sizes()))", len(m.Points), len(c.Points))
	}
	for i := range c.Points {
		if m.Points[i].Bytes != c.Points[i].Bytes {
			return rep, fmt.Errorf("doctor: size %d: the model prices %s, the curve measured %s", i, units.Readable(m.Points[i].Bytes, "B"), units.Readable(c.Points[i].Bytes, "B"))
		}
	}
	rep.Ratio = make([]float64, len(c.Points))
	for i, p := range c.Points {
		if p.TimeUs > 0 {
			rep.Ratio[i] = m.Points[i].TimeUs / p.TimeUs
		}
	}
	rep.Switches = switches(m)
	rep.Verdicts = append(rep.Verdicts, plateauVerdict(&rep, opt), floorVerdict(&rep, opt))
	rep.Verdicts = append(rep.Verdicts, dipVerdicts(&rep, opt)...)
	return rep, nil
}

func switches(m Model) []string {
	var out []string
	for i := 1; i < len(m.Points); i++ {
		a, b := m.Points[i-1], m.Points[i]
		if a.Algorithm != b.Algorithm || a.Protocol != b.Protocol {
			out = append(out, fmt.Sprintf("%s/%s -> %s/%s at %s", a.Algorithm, a.Protocol, b.Algorithm, b.Protocol, units.Readable(b.Bytes, "B")))
		}
	}
	return out
}

func pct(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) }

func sizeRange(a, b float64) string {
	if a == b {
		return units.Readable(a, "B")
	}
	return units.Readable(a, "B") + " to " + units.Readable(b, "B")
}

func plateauVerdict(rep *CurveReport, opt CurveOptions) Verdict {
	c, m := rep.Curve, rep.Model
	id, name := BranchLargePlateau, "large-message plateau"
	if c.Nodes > 1 {
		id, name = BranchMultiNode, "multi-node plateau"
	}
	b, _ := BranchByID(id)
	v := Verdict{Layer: LayerCollective, Check: id, Chapter: ChapterCurve}
	var idx []int
	for i, p := range m.Points {
		if lat := p.LatencyUs; p.TimeUs-lat >= opt.Bound*lat {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return v.judge(Skipped, fmt.Sprintf("the sweep ends at %s, where the model is not yet bandwidth-bound: extend it (nccl-tests -e) to read the %s", units.Readable(c.Points[len(c.Points)-1].Bytes, "B"), name), "")
	}
	rep.PlateauFrom = m.Points[idx[0]].Bytes
	top := idx[max(0, len(idx)-3):]
	var meas, mod []float64
	for _, i := range top {
		meas = append(meas, c.Points[i].BusBW)
		mod = append(mod, m.Points[i].BusBW)
	}
	rep.PlateauBusBW, rep.ModelPlateauBusBW = probes.Median(meas), probes.Median(mod)
	share := 0.0
	if rep.ModelPlateauBusBW > 0 {
		share = rep.PlateauBusBW / rep.ModelPlateauBusBW
	}
	lo, hi := m.Points[top[0]].Bytes, m.Points[top[len(top)-1]].Bytes
	v.Evidence = []string{
		fmt.Sprintf("%s, %d ranks on %d node(s): busbw %s measured at %s against %s in the model (%s)", c.Collective, c.Ranks, c.Nodes,
			units.Readable(rep.PlateauBusBW, "GB/s"), sizeRange(lo, hi), units.Readable(rep.ModelPlateauBusBW, "GB/s"), pct(share)),
		fmt.Sprintf("the model is bandwidth-bound from %s (%s/%s at the top)", units.Readable(rep.PlateauFrom, "B"), m.Points[top[len(top)-1]].Algorithm, m.Points[top[len(top)-1]].Protocol),
		"model: " + m.Source,
	}
	low := fmt.Sprintf("%s too low: %s busbw, %s of the model's %s", name, units.Readable(rep.PlateauBusBW, "GB/s"), pct(share), units.Readable(rep.ModelPlateauBusBW, "GB/s"))
	next := "check " + strings.Join(b.Checks, "; ")
	switch {
	case share < opt.PlateauFail:
		v.judge(Fail, low, next)
	case share < opt.PlateauWarn:
		v.judge(Warn, low, next)
	default:
		v.judge(OK, fmt.Sprintf("%s at %s of the model (%s busbw)", name, pct(share), units.Readable(rep.PlateauBusBW, "GB/s")), "")
	}
	return v
}

func floorVerdict(rep *CurveReport, opt CurveOptions) Verdict {
	c, m := rep.Curve, rep.Model
	b, _ := BranchByID(BranchSmallFloor)
	v := Verdict{Layer: LayerCollective, Check: BranchSmallFloor, Chapter: ChapterCurve}
	var meas, mod []float64
	for i, p := range m.Points {
		if bw := p.TimeUs - p.LatencyUs; p.LatencyUs >= opt.Bound*bw {
			meas = append(meas, c.Points[i].TimeUs)
			mod = append(mod, p.TimeUs)
			rep.FloorUpTo = p.Bytes
		}
	}
	if len(meas) == 0 {
		return v.judge(Skipped, fmt.Sprintf("the sweep starts at %s, where the model is no longer latency-bound: start it lower (nccl-tests -b 8) to read the small-message floor", units.Readable(c.Points[0].Bytes, "B")), "")
	}
	rep.FloorUs, rep.ModelFloorUs = probes.Median(meas), probes.Median(mod)
	times := 0.0
	if rep.ModelFloorUs > 0 {
		times = rep.FloorUs / rep.ModelFloorUs
	}
	v.Evidence = []string{
		fmt.Sprintf("%s, %d ranks: median %s over %s against %s in the model (%.1fx)", c.Collective, c.Ranks,
			units.Readable(rep.FloorUs, "us"), sizeRange(c.Points[0].Bytes, rep.FloorUpTo), units.Readable(rep.ModelFloorUs, "us"), times),
		fmt.Sprintf("thresholds: warn above %gx, fail above %gx the model (NCCL's latency, or the host's time to issue the operation where larger)", opt.FloorWarn, opt.FloorFail),
	}
	high := fmt.Sprintf("small-message floor too high: %s, %.1fx the model's %s", units.Readable(rep.FloorUs, "us"), times, units.Readable(rep.ModelFloorUs, "us"))
	next := "check " + strings.Join(b.Checks, "; ")
	switch {
	case times > opt.FloorFail:
		v.judge(Fail, high, next)
	case times > opt.FloorWarn:
		v.judge(Warn, high, next)
	default:
		v.judge(OK, fmt.Sprintf("small-message floor %s, %.1fx the model", units.Readable(rep.FloorUs, "us"), times), "")
	}
	return v
}

// CompareNodes judges a multi-node curve against a single-node one of the
// same collective: the share of the single-node plateau the multi-node
// curve keeps, against the share the model expects. Both reports come from
// DiagnoseCurve with their own models.
func CompareNodes(multi, single CurveReport, opt CurveOptions) Verdict {
	b, _ := BranchByID(BranchMultiNode)
	v := Verdict{Layer: LayerCollective, Check: BranchMultiNode, Chapter: ChapterCurve}
	if multi.PlateauBusBW <= 0 || single.PlateauBusBW <= 0 || multi.ModelPlateauBusBW <= 0 || single.ModelPlateauBusBW <= 0 {
		return v.judge(Skipped, "both curves need a bandwidth-bound plateau (sweep to larger sizes)", "")
	}
	got := multi.PlateauBusBW / single.PlateauBusBW
	want := multi.ModelPlateauBusBW / single.ModelPlateauBusBW
	v.Evidence = []string{
		fmt.Sprintf("%d node(s): %s busbw; 1 node: %s; kept %s", multi.Curve.Nodes, units.Readable(multi.PlateauBusBW, "GB/s"), units.Readable(single.PlateauBusBW, "GB/s"), pct(got)),
		fmt.Sprintf("the model keeps %s (%s against %s)", pct(want), units.Readable(multi.ModelPlateauBusBW, "GB/s"), units.Readable(single.ModelPlateauBusBW, "GB/s")),
	}
	if got < opt.MultiNodeFail*want {
		return v.judge(Fail, fmt.Sprintf("multi-node far below single-node: %s of the single-node busbw where the model expects %s", pct(got), pct(want)),
			"check "+strings.Join(b.Checks, "; "))
	}
	return v.judge(OK, fmt.Sprintf("multi-node keeps %s of the single-node busbw (model %s)", pct(got), pct(want)), "")
}

// CheckCurves reads the busbw curve the evidence holds (the nccl-tests
// run, else the NCCL sweep; all_reduce, out of place) with JudgeCurve: the
// preset from the topology's GPU model, NCCL's tuning family from the
// log, NVLS off where the environment or the log says so. These are the
// verdicts `commlab doctor --nccl-tests FILE` gives for one curve; a GPU
// no preset matches gives the shape-only reading. No curve gives no
// verdict.
func CheckCurves(ev *Evidence) []Verdict {
	setup := CurveSetup{Family: logFamily(ev.NCCLLog), NVLSOff: ev.Env["NCCL_NVLS_ENABLE"] == "0" || logNVLSOff(ev.NCCLLog)}
	setup.NVLSFrom, setup.Network, setup.NetworkFrom = nvlsFrom(ev), "", ""
	if fam, why := NetworkFromLog(ev.NCCLLog); fam != "" {
		setup.Network, setup.NetworkFrom = fam, why
	}
	if ev.Topology != nil && len(ev.Topology.GPUs) > 0 {
		setup.EvidenceGPU = ev.Topology.GPUs[0].Name
	}
	for _, run := range []*probes.Run{ev.NCCLTests, ev.NCCL} {
		if run == nil {
			continue
		}
		c, err := CurveFromRun(run, "all_reduce", false)
		if err != nil {
			continue // no all_reduce in this run: the other may have one
		}
		rep, err := JudgeCurve(c, setup, DefaultCurveOptions())
		if err != nil {
			continue
		}
		return rep.Verdicts // one curve is enough: nccl-tests when it ran, else commlab's sweep
	}
	return nil
}
