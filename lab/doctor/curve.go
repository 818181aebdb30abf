package doctor

// This file is the curve doctor: it reads one busbw curve (nccl-tests
// output or a commlab NCCL run) against the cost model's expectation for
// the machine (costmodel's NCCL-like tuner, chapters 1, 2 and 4) and names
// the curve's shape with the checks of the decision tree (curve_tree.go)
// each shape calls for.

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/parse/nccltests"
	"github.com/commlab/commlab/units"
)

// ChapterCurve is the chapter that explains the curve doctor's verdicts.
const ChapterCurve = "06-nccl-tests"

// ErrNoCurve is wrapped when an input holds no point to read a curve from.
var ErrNoCurve = errors.New("no curve")

// CurvePoint is one message size of a measured curve.
type CurvePoint struct {
	Bytes  float64 `json:"bytes" unit:"B"`
	TimeUs float64 `json:"time_us" unit:"us"`
	BusBW  float64 `json:"busbw_gbps" unit:"GB/s"`
}

// Curve is a measured bus-bandwidth curve of one collective.
type Curve struct {
	// Source says what measured it ("nccl-tests all_reduce_perf 2.18.3",
	// "commlab probe nccl").
	Source     string `json:"source"`
	Collective string `json:"collective"`
	Ranks      int    `json:"ranks"`
	// Nodes is the number of hosts taking part (1 when the input names
	// none).
	Nodes int    `json:"nodes"`
	NCCL  string `json:"nccl,omitempty"`
	// GPU is the GPU model the input names ("NVIDIA A100-SXM4-80GB"), ""
	// when it names none.
	GPU string `json:"gpu,omitempty"`
	// CollectiveFrom and RanksFrom say how the input gave the collective
	// and the rank count (nccl-tests' program name, its columns, its
	// device lines); Collective is "" when nothing told it.
	CollectiveFrom string       `json:"collective_from,omitempty"`
	RanksFrom      string       `json:"ranks_from,omitempty"`
	Notes          []string     `json:"notes,omitempty"`
	Points         []CurvePoint `json:"points"`
}

// Sizes returns the curve's message sizes in bytes.
func (c Curve) Sizes() []float64 {
	return column(len(c.Points), func(i int) float64 { return c.Points[i].Bytes })
}

// BusBWs returns the curve's busbw (GB/s) per size, for a chart.
func (c Curve) BusBWs() []float64 {
	return column(len(c.Points), func(i int) float64 { return c.Points[i].BusBW })
}

// column is one value of each of n points, in order: a curve's or a
// model's sizes or busbw for a table or a chart.
func column(n int, value func(i int) float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = value(i)
	}
	return out
}

// CurveFromNCCLTests reads the out-of-place half of an nccl-tests run (the
// in-place half where the out-of-place one was not printed). The
// collective and the rank count are the parser's (Run.Collective and
// Run.NRanks, found from the columns when the output does not say), nodes
// the hosts of its device lines, the GPU model their device name.
func CurveFromNCCLTests(r *nccltests.Run) (Curve, error) {
	if r == nil || len(r.Rows) == 0 {
		return Curve{}, fmt.Errorf("doctor: nccl-tests run: %w (no rows)", ErrNoCurve)
	}
	c := Curve{Source: "nccl-tests", Collective: r.Collective, Ranks: r.NRanks(), Nodes: 1, NCCL: r.LibraryVersion(),
		CollectiveFrom: r.CollectiveFrom, RanksFrom: r.RanksFrom, Notes: append([]string(nil), r.Notes...)}
	if r.Library == "RCCL" {
		c.Source = "rccl-tests"
	}
	if r.Program != "" {
		c.Source += " " + r.Program
	}
	if r.TestsVersion != "" {
		c.Source += " " + r.TestsVersion
	}
	hosts := map[string]bool{}
	models := map[string]int{}
	for _, d := range r.Devices {
		if d.Host != "" {
			hosts[d.Host] = true
		}
		if d.Name != "" {
			if _, ok := models[d.Name]; !ok {
				models[d.Name] = len(models)
			}
		}
	}
	if len(hosts) > 1 {
		c.Nodes = len(hosts)
	}
	for name, i := range models {
		if i == 0 {
			c.GPU = name
		}
	}
	if len(models) > 1 {
		c.Notes = append(c.Notes, fmt.Sprintf("the device lines name %d GPU models; the first, %s, chooses the preset", len(models), c.GPU))
	}
	for _, row := range r.Rows {
		m := row.OutOfPlace
		if !m.Present {
			m = row.InPlace
		}
		if !m.Present || m.TimeUs <= 0 {
			continue
		}
		c.Points = append(c.Points, CurvePoint{Bytes: float64(row.SizeBytes), TimeUs: m.TimeUs, BusBW: m.BusBW})
	}
	if len(c.Points) == 0 {
		return Curve{}, fmt.Errorf("doctor: nccl-tests run: %w (no timed row)", ErrNoCurve)
	}
	return c, nil
}

// CurveFromRun reads the samples of one collective from a commlab NCCL run
// (probes.Run of kind "nccl", or a PyTorch reference run), out-of-place
// unless inPlace. Ranks come from the samples, nodes are 1 (commlab's NCCL
// probe runs on one host).
func CurveFromRun(r *probes.Run, collective string, inPlace bool) (Curve, error) {
	if r == nil {
		return Curve{}, fmt.Errorf("doctor: run: %w", ErrNoCurve)
	}
	c := Curve{Source: "commlab probe " + r.Kind, Collective: collective, Nodes: 1, NCCL: r.NCCL, GPU: r.GPUModel,
		CollectiveFrom: "the run's samples", RanksFrom: "the run's samples"}
	if r.Kind == "nccl-tests" {
		c.Source = "nccl-tests (through commlab)"
	}
	for _, s := range r.Samples {
		if s.Op != collective || s.InPlace != inPlace || s.MedianUS <= 0 {
			continue
		}
		if s.Ranks > c.Ranks {
			c.Ranks = s.Ranks
		}
		c.Points = append(c.Points, CurvePoint{Bytes: float64(s.Bytes), TimeUs: s.MedianUS, BusBW: s.BusBW})
	}
	if c.Ranks == 0 {
		c.Ranks = r.GPUCount
	}
	if len(c.Points) == 0 {
		return Curve{}, fmt.Errorf("doctor: run %s: %w for %s (in place %v)", r.Kind, ErrNoCurve, collective, inPlace)
	}
	sort.SliceStable(c.Points, func(i, j int) bool { return c.Points[i].Bytes < c.Points[j].Bytes })
	return c, nil
}

// Machine names the machine the model prices: a costmodel node preset cut
// to GPUsPerNode GPUs, Nodes of them, NCCL's tuning constants of Family
// ("" is costmodel.DefaultNCCL), NVLS on or off.
type Machine struct {
	Preset      string `json:"preset"`
	GPUsPerNode int    `json:"gpus_per_node"`
	Nodes       int    `json:"nodes"`
	Family      string `json:"nccl_family"`
	NVLS        bool   `json:"nvls"`
}

func (m Machine) String() string {
	nvls := "NVLS off"
	if m.NVLS {
		nvls = "NVLS on"
	}
	family := m.Family
	if family == "" {
		family = costmodel.DefaultNCCL
	}
	return fmt.Sprintf("%d node(s) of %s with %d GPUs each, NCCL %s tuning constants, %s", m.Nodes, m.Preset, m.GPUsPerNode, family, nvls)
}

// ModelPoint is the model's expectation at one size.
type ModelPoint struct {
	Bytes     float64 `json:"bytes" unit:"B"`
	TimeUs    float64 `json:"time_us" unit:"us"`
	LatencyUs float64 `json:"latency_us" unit:"us"`
	BusBW     float64 `json:"busbw_gbps" unit:"GB/s"`
	Algorithm string  `json:"algorithm"`
	Protocol  string  `json:"protocol"`
}

// Model is the expected curve at a measured curve's sizes.
type Model struct {
	Source string       `json:"source"`
	Points []ModelPoint `json:"points"`
}

// Sizes returns the model's message sizes in bytes.
func (m Model) Sizes() []float64 {
	return column(len(m.Points), func(i int) float64 { return m.Points[i].Bytes })
}

// BusBWs returns the model's busbw (GB/s) per size, for a chart.
func (m Model) BusBWs() []float64 {
	return column(len(m.Points), func(i int) float64 { return m.Points[i].BusBW })
}

// ExpectedCurve tunes the machine with costmodel's NCCL-like tuner and
// prices collective at each size with the tuner's pick (chapter 4).
func ExpectedCurve(m Machine, collective string, sizes []float64) (Model, error) {
	node, err := costmodel.NodeByName(m.Preset)
	if err != nil {
		return Model{}, fmt.Errorf("doctor: %w", err)
	}
	if m.GPUsPerNode <= 0 {
		m.GPUsPerNode = node.GPUs
	}
	m.Nodes = max(m.Nodes, 1)
	if m.GPUsPerNode*m.Nodes <= 1 {
		// NCCL's tuner has no algorithm for one rank: nothing to price.
		return Model{Source: "no model: one rank (" + m.Preset + ")"}, nil
	}
	T, err := costmodel.TuneNodes(node, m.GPUsPerNode, m.Nodes, m.Family, m.NVLS)
	if err != nil {
		return Model{}, fmt.Errorf("doctor: %w", err)
	}
	return ExpectedFromTuner(T, collective, m.GPUsPerNode*m.Nodes, sizes, "costmodel tuner: "+m.String())
}

// ExpectedFromTuner prices collective on ranks GPUs at each size with the
// pick of a tuning table.
func ExpectedFromTuner(T costmodel.TunerTable, collective string, ranks int, sizes []float64, source string) (Model, error) {
	c, err := costmodel.ParseCollective(collective)
	if err != nil {
		return Model{}, fmt.Errorf("doctor: %w", err)
	}
	factor := costmodel.BusBWFactor(c, ranks)
	out := Model{Source: source, Points: make([]ModelPoint, 0, len(sizes))}
	for _, s := range sizes {
		ch, err := T.Pick(c, s)
		if err != nil {
			return Model{}, fmt.Errorf("doctor: %w", err)
		}
		p := ModelPoint{Bytes: s, TimeUs: ch.TimeUs, LatencyUs: ch.LatencyUs, Algorithm: ch.Algorithm, Protocol: ch.Protocol}
		if ch.TimeUs > 0 {
			p.BusBW = s / (ch.TimeUs * 1e3) * factor
		}
		out.Points = append(out.Points, p)
	}
	return out, nil
}

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
	// MultiNodeFail: a multi-node curve is far below single-node when its
	// plateau's share of the single-node plateau is below MultiNodeFail
	// times the share the model expects.
	MultiNodeFail float64 `json:"multi_node_fail"`
}

// DefaultCurveOptions are the thresholds the command and the chapter use.
// The floor thresholds sit above what the lab's own healthy 2xH200 record
// shows (nccl-h200x2-proto-auto: about 21 us against NCCL's model's 7.8 us,
// 2.7x: NCCL's latency model counts no kernel launch or host overhead);
// the plateau thresholds below its 97% of the model at 8 GiB.
func DefaultCurveOptions() CurveOptions {
	return CurveOptions{Bound: 4, PlateauWarn: 0.8, PlateauFail: 0.6, FloorWarn: 4, FloorFail: 8,
		DipDepth: 0.7, DipSpan: 4, MultiNodeFail: 0.5}
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

func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	c := append([]float64(nil), v...)
	sort.Float64s(c)
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
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
		v.Status = Skipped
		v.Summary = fmt.Sprintf("the sweep ends at %s, where the model is not yet bandwidth-bound: extend it (nccl-tests -e) to read the %s", units.Readable(c.Points[len(c.Points)-1].Bytes, "B"), name)
		return v
	}
	rep.PlateauFrom = m.Points[idx[0]].Bytes
	top := idx[max(0, len(idx)-3):]
	var meas, mod []float64
	for _, i := range top {
		meas = append(meas, c.Points[i].BusBW)
		mod = append(mod, m.Points[i].BusBW)
	}
	rep.PlateauBusBW, rep.ModelPlateauBusBW = medianOf(meas), medianOf(mod)
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
	switch {
	case share < opt.PlateauFail:
		v.Status = Fail
	case share < opt.PlateauWarn:
		v.Status = Warn
	}
	if v.Status == OK {
		v.Summary = fmt.Sprintf("%s at %s of the model (%s busbw)", name, pct(share), units.Readable(rep.PlateauBusBW, "GB/s"))
		return v
	}
	v.Summary = fmt.Sprintf("%s too low: %s busbw, %s of the model's %s", name, units.Readable(rep.PlateauBusBW, "GB/s"), pct(share), units.Readable(rep.ModelPlateauBusBW, "GB/s"))
	v.Next = "check " + strings.Join(b.Checks, "; ")
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
		v.Status = Skipped
		v.Summary = fmt.Sprintf("the sweep starts at %s, where the model is no longer latency-bound: start it lower (nccl-tests -b 8) to read the small-message floor", units.Readable(c.Points[0].Bytes, "B"))
		return v
	}
	rep.FloorUs, rep.ModelFloorUs = medianOf(meas), medianOf(mod)
	times := 0.0
	if rep.ModelFloorUs > 0 {
		times = rep.FloorUs / rep.ModelFloorUs
	}
	v.Evidence = []string{
		fmt.Sprintf("%s, %d ranks: median %s over %s against %s in the model (%.1fx)", c.Collective, c.Ranks,
			units.Readable(rep.FloorUs, "us"), sizeRange(c.Points[0].Bytes, rep.FloorUpTo), units.Readable(rep.ModelFloorUs, "us"), times),
		fmt.Sprintf("thresholds: warn above %gx, fail above %gx (NCCL's latency model counts no launch or host overhead)", opt.FloorWarn, opt.FloorFail),
	}
	switch {
	case times > opt.FloorFail:
		v.Status = Fail
	case times > opt.FloorWarn:
		v.Status = Warn
	}
	if v.Status == OK {
		v.Summary = fmt.Sprintf("small-message floor %s, %.1fx the model", units.Readable(rep.FloorUs, "us"), times)
		return v
	}
	v.Summary = fmt.Sprintf("small-message floor too high: %s, %.1fx the model's %s", units.Readable(rep.FloorUs, "us"), times, units.Readable(rep.ModelFloorUs, "us"))
	v.Next = "check " + strings.Join(b.Checks, "; ")
	return v
}

// dipVerdicts finds runs of sizes whose measured/model ratio falls well
// below the best ratio of their neighbours on both sides.
func dipVerdicts(rep *CurveReport, opt CurveOptions) []Verdict {
	r, c, m := rep.Ratio, rep.Curve, rep.Model
	b, _ := BranchByID(BranchDip)
	// The latency-bound sizes are left out: there a few us of noise look
	// like dips.
	depth := dipDepths(r, opt.DipSpan, func(i int) bool { return c.Points[i].Bytes <= rep.FloorUpTo })
	var out []Verdict
	for _, run := range dipRuns(depth, opt.DipDepth) {
		i, j, worst := run.first, run.last, run.worst
		lo, hi := c.Points[i].Bytes, c.Points[j].Bytes
		v := Verdict{Layer: LayerCollective, Check: BranchDip, Status: Warn, Chapter: ChapterCurve,
			Summary: fmt.Sprintf("dip at %s: busbw %s at %s, %s of what its neighbours reach against the model", sizeRange(lo, hi),
				units.Readable(c.Points[worst].BusBW, "GB/s"), units.Readable(c.Points[worst].Bytes, "B"), pct(depth[worst])),
			Evidence: []string{fmt.Sprintf("measured/model ratio %.2f at %s; the model picks %s/%s there", r[worst], units.Readable(c.Points[worst].Bytes, "B"), m.Points[worst].Algorithm, m.Points[worst].Protocol)},
			Next:     "check " + strings.Join(b.Checks, "; ")}
		if near := nearSwitch(m, i, j); near != "" {
			v.Evidence = append(v.Evidence, "the model switches "+near)
		} else if len(rep.Switches) > 0 {
			v.Evidence = append(v.Evidence, "no model switch near it (the model switches "+strings.Join(rep.Switches, ", ")+"): NCCL's own switch is elsewhere than its model's, or something else runs there")
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		out = append(out, Verdict{Layer: LayerCollective, Check: BranchDip, Status: OK, Chapter: ChapterCurve,
			Summary: fmt.Sprintf("no dip: no size below %s of its neighbours' ratio to the model", pct(opt.DipDepth))})
		if len(rep.Switches) > 0 {
			out[0].Evidence = []string{"the model switches " + strings.Join(rep.Switches, ", ")}
		}
	}
	return out
}

// dipDepths is each value over the smaller of the best values within span
// places on its left and on its right: how far it falls below what its
// neighbours on both sides reach. The ends, the places leftOut names and
// places without a reference get 1 (no dip).
func dipDepths(values []float64, span int, leftOut func(i int) bool) []float64 {
	span = max(span, 1)
	depth := make([]float64, len(values))
	for i := range values {
		depth[i] = 1
		if i == 0 || i == len(values)-1 || leftOut(i) {
			continue
		}
		left, right := 0.0, 0.0
		for j := max(0, i-span); j < i; j++ {
			left = math.Max(left, values[j])
		}
		for j := i + 1; j <= min(len(values)-1, i+span); j++ {
			right = math.Max(right, values[j])
		}
		if ref := math.Min(left, right); ref > 0 {
			depth[i] = values[i] / ref
		}
	}
	return depth
}

// dipRun is one dip: consecutive places whose depth is below the limit,
// first to last, and the deepest of them.
type dipRun struct{ first, last, worst int }

// dipRuns groups the places whose depth is below limit into dips.
func dipRuns(depth []float64, limit float64) []dipRun {
	var out []dipRun
	for i := 0; i < len(depth); {
		if depth[i] >= limit {
			i++
			continue
		}
		run := dipRun{i, i, i}
		for run.last+1 < len(depth) && depth[run.last+1] < limit {
			run.last++
			if depth[run.last] < depth[run.worst] {
				run.worst = run.last
			}
		}
		out = append(out, run)
		i = run.last + 1
	}
	return out
}

// nearSwitch names a model switch within one size step of points i..j.
func nearSwitch(m Model, i, j int) string {
	for k := max(1, i-1); k <= min(len(m.Points)-1, j+1); k++ {
		a, b := m.Points[k-1], m.Points[k]
		if a.Algorithm != b.Algorithm || a.Protocol != b.Protocol {
			return fmt.Sprintf("%s/%s -> %s/%s at %s", a.Algorithm, a.Protocol, b.Algorithm, b.Protocol, units.Readable(b.Bytes, "B"))
		}
	}
	return ""
}

// CompareNodes judges a multi-node curve against a single-node one of the
// same collective: the share of the single-node plateau the multi-node
// curve keeps, against the share the model expects. Both reports come from
// DiagnoseCurve with their own models.
func CompareNodes(multi, single CurveReport, opt CurveOptions) Verdict {
	b, _ := BranchByID(BranchMultiNode)
	v := Verdict{Layer: LayerCollective, Check: BranchMultiNode, Chapter: ChapterCurve}
	if multi.PlateauBusBW <= 0 || single.PlateauBusBW <= 0 || multi.ModelPlateauBusBW <= 0 || single.ModelPlateauBusBW <= 0 {
		v.Status = Skipped
		v.Summary = "both curves need a bandwidth-bound plateau (sweep to larger sizes)"
		return v
	}
	got := multi.PlateauBusBW / single.PlateauBusBW
	want := multi.ModelPlateauBusBW / single.ModelPlateauBusBW
	v.Evidence = []string{
		fmt.Sprintf("%d node(s): %s busbw; 1 node: %s; kept %s", multi.Curve.Nodes, units.Readable(multi.PlateauBusBW, "GB/s"), units.Readable(single.PlateauBusBW, "GB/s"), pct(got)),
		fmt.Sprintf("the model keeps %s (%s against %s)", pct(want), units.Readable(multi.ModelPlateauBusBW, "GB/s"), units.Readable(single.ModelPlateauBusBW, "GB/s")),
	}
	if got < opt.MultiNodeFail*want {
		v.Status = Fail
		v.Summary = fmt.Sprintf("multi-node far below single-node: %s of the single-node busbw where the model expects %s", pct(got), pct(want))
		v.Next = "check " + strings.Join(b.Checks, "; ")
		return v
	}
	v.Summary = fmt.Sprintf("multi-node keeps %s of the single-node busbw (model %s)", pct(got), pct(want))
	return v
}

// Text renders the report for a terminal or a notebook: the verdicts with
// their evidence and next steps.
func (r CurveReport) Text() string {
	var b strings.Builder
	coll := r.Curve.Collective
	if coll == "" {
		coll = "collective not told"
	}
	if len(r.Curve.Points) == 0 {
		fmt.Fprintf(&b, "curve: %s, %s, no points\n", r.Curve.Source, coll)
		return b.String()
	}
	fmt.Fprintf(&b, "curve: %s, %s, %d rank(s), %d node(s), %d sizes %s\n", r.Curve.Source, coll, r.Curve.Ranks, r.Curve.Nodes,
		len(r.Curve.Points), sizeRange(r.Curve.Points[0].Bytes, r.Curve.Points[len(r.Curve.Points)-1].Bytes))
	if r.Curve.CollectiveFrom != "" && r.Curve.CollectiveFrom != "program name" && r.Curve.CollectiveFrom != "the run's samples" {
		fmt.Fprintf(&b, "collective from %s\n", r.Curve.CollectiveFrom)
	}
	if r.Curve.RanksFrom != "" && r.Curve.RanksFrom != "device lines" && r.Curve.RanksFrom != "the run's samples" {
		fmt.Fprintf(&b, "ranks from %s\n", r.Curve.RanksFrom)
	}
	if r.PresetFrom != "" {
		fmt.Fprintf(&b, "preset: %s\n", r.presetLine())
	}
	if r.Model.Source != "" {
		fmt.Fprintf(&b, "model: %s\n", r.Model.Source)
	}
	if r.ShapeOnly != "" {
		fmt.Fprintf(&b, "shape only: %s\n", r.ShapeOnly)
	}
	for _, n := range r.Curve.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	if same := sameSkip(r.Verdicts); same != "" {
		// one reason for every check (one rank): say it once
		var checks []string
		for _, v := range r.Verdicts {
			checks = append(checks, v.Check)
		}
		fmt.Fprintf(&b, "[skipped] %s/%s: %s\n", LayerCollective, strings.Join(checks, ", "), same)
		return b.String()
	}
	for _, v := range r.Verdicts {
		fmt.Fprintln(&b, v)
		for _, e := range v.Evidence {
			fmt.Fprintf(&b, "    %s\n", e)
		}
		if v.Next != "" {
			fmt.Fprintf(&b, "    next: %s\n", v.Next)
		}
	}
	return b.String()
}

func (r CurveReport) presetLine() string {
	if r.Preset == "" {
		return r.PresetFrom
	}
	return r.Preset + " (" + r.PresetFrom + ")"
}

// sameSkip returns the summary every verdict shares when all are skipped
// for one reason, else "".
func sameSkip(vs []Verdict) string {
	if len(vs) < 2 {
		return ""
	}
	for _, v := range vs {
		if v.Status != Skipped || v.Summary != vs[0].Summary || len(v.Evidence) > 0 {
			return ""
		}
	}
	return vs[0].Summary
}

// String is Text without its trailing newline.
func (r CurveReport) String() string { return strings.TrimRight(r.Text(), "\n") }

// CheckCurves reads the busbw curve the evidence holds (the nccl-tests
// run, else the NCCL sweep; all_reduce, out of place) with JudgeCurve: the
// preset from the topology's GPU model, NCCL's tuning family from the
// log, NVLS off where the environment or the log says so. These are the
// verdicts `commlab doctor --nccl-tests FILE` gives for one curve; a GPU
// no preset matches gives the shape-only reading. No curve gives no
// verdict.
func CheckCurves(ev *Evidence) []Verdict {
	setup := CurveSetup{Family: logFamily(ev.NCCLLog), NVLSOff: ev.Env["NCCL_NVLS_ENABLE"] == "0" || logNVLSOff(ev.NCCLLog)}
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
