package doctor

// This file chooses what a curve is read against: the costmodel node
// preset of the GPU the curve names (PresetForGPU, one table), the nodes
// and GPUs per node, NCCL's tuning family; and reads the curve on its own
// shape when there is no model for it (no preset for the GPU, a
// collective NCCL's tuner does not model, a collective the input does not
// name).

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/units"
)

// gpuPresets maps GPU model names, as nccl-tests' device lines, NVML and
// nvidia-smi print them, to costmodel's node presets, first match wins.
// A preset of "" means a GPU no preset models (a PCIe card where the
// presets of its generation are NVSwitch nodes): reading it against the
// SXM node would be wrong. An entry whose preset costmodel does not have
// is passed over, so presets added there slot in by name.
var gpuPresets = []struct {
	pattern *regexp.Regexp
	preset  string
	why     string
}{
	{regexp.MustCompile(`\bGB200\b`), "gb200-nvl72", ""},
	{regexp.MustCompile(`\bH200\b`), "hgx-h200", ""},
	{regexp.MustCompile(`\bH800\b`), "hgx-h800", ""},
	{regexp.MustCompile(`\bH20\b`), "hgx-h20", ""},
	{regexp.MustCompile(`\bH100\b.*\b(?:PCIe|NVL)\b`), "", "a PCIe card, not an HGX node"},
	{regexp.MustCompile(`\bH100\b`), "hgx-h100", ""},
	{regexp.MustCompile(`\bA100\b.*\bPCIE\b|\bA100\b.*\bPCIe\b`), "", "a PCIe card, not a DGX A100 node"},
	{regexp.MustCompile(`\bA100\b`), "dgx-a100", ""},
	{regexp.MustCompile(`\bL40S\b`), "l40s-pcie", ""},
	{regexp.MustCompile(`RTX 4090\b`), "rtx4090-pcie", ""},
	{regexp.MustCompile(`RTX 5090\b`), "rtx5090-pcie", ""},
}

// PresetForGPU returns the costmodel node preset for a GPU model name
// ("NVIDIA A100-SXM4-80GB" -> "dgx-a100"), or "" with the reason there is
// none ("no preset for GPU NVIDIA L4"). It is the one place GPU names meet
// presets.
func PresetForGPU(gpu string) (preset, why string) {
	name := strings.TrimSpace(gpu)
	if name == "" {
		return "", "no GPU model in the input"
	}
	for _, e := range gpuPresets {
		if !e.pattern.MatchString(name) {
			continue
		}
		if e.preset == "" {
			return "", fmt.Sprintf("no preset for GPU %s (%s)", name, e.why)
		}
		if _, err := costmodel.NodeByName(e.preset); err != nil {
			continue // not in this costmodel: the next entry, or none
		}
		return e.preset, "the GPU the input names: " + name
	}
	return "", "no preset for GPU " + name
}

// CurveSetup is what the curve doctor prices a curve with besides the
// curve itself. Zero fields are found from the curve and the evidence.
type CurveSetup struct {
	// Preset is the costmodel node preset the user chose (--preset); ""
	// for the preset of the GPU the curve names, else of EvidenceGPU.
	Preset string `json:"preset,omitempty"`
	// EvidenceGPU is the GPU model other evidence names (the topology).
	EvidenceGPU string `json:"evidence_gpu,omitempty"`
	GPUsPerNode int    `json:"gpus_per_node,omitempty"`
	Nodes       int    `json:"nodes,omitempty"`
	// Family is NCCL's tuning family ("2.23"); "" for the curve's NCCL
	// version's, 2.28 when it names none.
	Family string `json:"nccl_family,omitempty"`
	// NVLSOff prices the node without NVLS (NCCL_NVLS_ENABLE=0); NVLSFrom
	// says who said so either way ("--nvls", "NCCL's log"), "" when no one
	// did and the preset's NVLS is an assumption (curve_assume.go).
	NVLSOff  bool   `json:"nvls_off,omitempty"`
	NVLSFrom string `json:"nvls_from,omitempty"`
	// Network is the network family between nodes ("ib", "roce", "efa",
	// "tcpx", "tcpxo"; NetworkFamilies), NetworkFrom who said so; "" when
	// no one did and the preset's network is an assumption.
	Network     string `json:"network,omitempty"`
	NetworkFrom string `json:"network_from,omitempty"`
}

// choosePreset is the preset a curve is read against and why: the one the
// user chose, else the GPU the curve names, else the evidence's GPU.
func (s CurveSetup) choosePreset(c Curve) (string, string, error) {
	if s.Preset != "" {
		if _, err := costmodel.NodeByName(s.Preset); err != nil {
			return "", "", fmt.Errorf("doctor: --preset: %w", err)
		}
		return s.Preset, "chosen with --preset", nil
	}
	if c.GPU != "" {
		p, why := PresetForGPU(c.GPU)
		return p, why, nil
	}
	if s.EvidenceGPU != "" {
		p, why := PresetForGPU(s.EvidenceGPU)
		if p != "" {
			why = "the GPU the topology names: " + strings.TrimSpace(s.EvidenceGPU)
		}
		return p, why, nil
	}
	return "", "no GPU model in the input and none given (--preset)", nil
}

// JudgeCurve reads a curve against the model of the machine setup and
// the curve describe: the preset (CurveSetup.Preset, else the GPU the
// curve names, else the evidence's), nodes and GPUs per node (the
// curve's hosts and ranks; ranks beyond the preset's GPUs per node fill
// more nodes), NCCL's tuning family (the curve's NCCL version). Where
// there is no model for it (no preset for the GPU, a collective NCCL's
// tuner does not cover, a collective the input does not name) the curve
// is read on its own shape: dips judged, plateau and floor skipped with
// the reason. A one-rank curve is skipped as DiagnoseCurve says. The
// report says which preset and why. Only an unknown --preset or a curve
// without points is an error.
func JudgeCurve(c Curve, s CurveSetup, opt CurveOptions) (CurveReport, error) {
	if len(c.Points) == 0 {
		return CurveReport{Curve: c}, fmt.Errorf("doctor: %w", ErrNoCurve)
	}
	preset, from, err := s.choosePreset(c)
	if err != nil {
		return CurveReport{Curve: c}, err
	}
	c.Nodes = max(c.Nodes, s.Nodes) // the hosts the user named, where the input names fewer
	if c.Ranks <= 1 && c.Collective != "" {
		rep, err := DiagnoseCurve(c, Model{}, opt)
		rep.Preset, rep.PresetFrom = preset, from
		return rep, err
	}
	if c.Collective == "" {
		why := "the input does not name the collective"
		if c.CollectiveFrom != "" {
			why += " and " + strings.TrimPrefix(c.CollectiveFrom, "not told: ")
		}
		return shapeReport(c, preset, from, why+"; name it to read the curve against a model", opt), nil
	}
	if preset == "" {
		return shapeReport(c, "", from, from+": judged on shape only (choose one with --preset)", opt), nil
	}
	node, err := costmodel.NodeByName(preset)
	if err != nil {
		return CurveReport{Curve: c}, fmt.Errorf("doctor: %w", err)
	}
	m := Machine{Preset: preset, Nodes: max(s.Nodes, c.Nodes, 1), GPUsPerNode: s.GPUsPerNode, Family: s.Family, NVLS: !s.NVLSOff,
		Harness: costmodel.Harness{ThreadGPUs: c.ThreadGPUs}}
	if m.GPUsPerNode <= 0 {
		m.GPUsPerNode = max(1, ceilDiv(c.Ranks, m.Nodes))
		if m.GPUsPerNode > node.GPUs && s.Nodes <= 0 {
			// More ranks than the preset's node holds, and no hosts named:
			// full nodes.
			m.Nodes = ceilDiv(c.Ranks, node.GPUs)
			m.GPUsPerNode = ceilDiv(c.Ranks, m.Nodes)
			c.Notes = append(c.Notes, fmt.Sprintf("%d ranks are more than a %s node's %d GPUs: read as %d nodes of %d", c.Ranks, preset, node.GPUs, m.Nodes, m.GPUsPerNode))
		}
	}
	if m.Family == "" {
		m.Family = "2.28"
		if c.NCCL != "" {
			m.Family = familyOf(c.NCCL)
		}
	}
	c.Nodes = m.Nodes
	notes, alts, err := s.assume(&m, c)
	if err != nil {
		return CurveReport{Curve: c}, err
	}
	c.Notes = append(c.Notes, notes...)
	model, err := ExpectedCurve(m, c.Collective, c.Sizes())
	if err != nil {
		if errors.Is(err, costmodel.ErrUnsupported) || errors.Is(err, costmodel.ErrParams) {
			return shapeReport(c, preset, from, fmt.Sprintf("no model for %s: %s", c.Collective, modelGap(err)), opt), nil
		}
		return CurveReport{Curve: c}, err
	}
	rep, err := DiagnoseCurve(c, model, opt)
	rep = reconsider(rep, c, alts, opt)
	rep.Preset, rep.PresetFrom = preset, from
	if m.Preset != preset {
		rep.Preset, rep.PresetFrom = m.Preset, from+"; its network from "+s.NetworkFrom
	}
	return rep, err
}

// modelGap is costmodel's reason in a reader's words.
func modelGap(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}

func ceilDiv(a, b int) int {
	if b <= 0 {
		return a
	}
	return (a + b - 1) / b
}

// shapeReport reads a curve without a model: the plateau and the floor
// are measured and shown, but skipped (nothing to hold them against);
// dips, where busbw falls well below what the sizes on both sides reach,
// are judged: a healthy curve's busbw does not fall as the size grows.
func shapeReport(c Curve, preset, from, why string, opt CurveOptions) CurveReport {
	rep := CurveReport{Curve: c, Preset: preset, PresetFrom: from, ShapeOnly: why}
	n := len(c.Points)
	id, name := BranchLargePlateau, "large-message plateau"
	if c.Nodes > 1 {
		id, name = BranchMultiNode, "multi-node plateau"
	}
	top := c.Points[max(0, n-3):]
	var bw []float64
	for _, p := range top {
		bw = append(bw, p.BusBW)
	}
	rep.PlateauBusBW = probes.Median(bw)
	rep.Verdicts = append(rep.Verdicts, Verdict{Layer: LayerCollective, Check: id, Status: Skipped, Chapter: ChapterCurve,
		Summary: fmt.Sprintf("%s not judged: %s", name, why),
		Evidence: []string{fmt.Sprintf("%s, %d rank(s): busbw %s at %s (median of the largest sizes)", orDash(c.Collective), c.Ranks,
			units.Readable(rep.PlateauBusBW, "GB/s"), sizeRange(top[0].Bytes, top[len(top)-1].Bytes))}})
	low := c.Points[:min(n, 3)]
	var us []float64
	for _, p := range low {
		us = append(us, p.TimeUs)
	}
	rep.FloorUs = probes.Median(us)
	rep.Verdicts = append(rep.Verdicts, Verdict{Layer: LayerCollective, Check: BranchSmallFloor, Status: Skipped, Chapter: ChapterCurve,
		Summary:  "small-message floor not judged: " + why,
		Evidence: []string{fmt.Sprintf("median %s over %s", units.Readable(rep.FloorUs, "us"), sizeRange(low[0].Bytes, low[len(low)-1].Bytes))}})
	rep.Verdicts = append(rep.Verdicts, shapeDips(c, opt)...)
	return rep
}

// shapeDips finds sizes whose busbw falls below DipDepth times the best
// busbw on both sides (within DipSpan sizes), among the sizes past a
// tenth of the curve's peak (below it, a few microseconds of noise look
// like dips).
func shapeDips(c Curve, opt CurveOptions) []Verdict {
	b, _ := BranchByID(BranchDip)
	peak := 0.0
	for _, p := range c.Points {
		peak = math.Max(peak, p.BusBW)
	}
	depth := dipDepths(c.BusBWs(), opt.DipSpan, func(i int) bool {
		return c.Points[i].BusBW < peak/10 && c.Points[i-1].BusBW < peak/10
	})
	var out []Verdict
	runs := dipRuns(depth, opt.DipDepth)
	for _, run := range runs {
		i, j, worst := run.first, run.last, run.worst
		p := c.Points[worst]
		out = append(out, Verdict{Layer: LayerCollective, Check: BranchDip, Status: Warn, Chapter: ChapterCurve,
			Summary: fmt.Sprintf("dip at %s: busbw %s at %s, %s of what the sizes on both sides reach", sizeRange(c.Points[i].Bytes, c.Points[j].Bytes),
				units.Readable(p.BusBW, "GB/s"), units.Readable(p.Bytes, "B"), pct(depth[worst])),
			Evidence: []string{"read on the curve's own shape: busbw should not fall as the size grows"},
			Next:     "check " + strings.Join(b.Checks, "; ")})
	}
	// A size slower than a larger one counts past four times the floor:
	// near it a few microseconds of noise reorder sizes, past it they do
	// not, however low the busbw there.
	floor := c.FloorUs()
	for _, v := range slowerThanLarger(c, runs, opt, func(i int) bool { return c.Points[i].TimeUs < 4*floor }) {
		out = append(out, v.Verdict)
	}
	if len(out) == 0 {
		out = append(out, Verdict{Layer: LayerCollective, Check: BranchDip, Status: OK, Chapter: ChapterCurve,
			Summary: fmt.Sprintf("no dip: no size below %s of the busbw on both sides (read on the curve's own shape)", pct(opt.DipDepth))})
	}
	return out
}
