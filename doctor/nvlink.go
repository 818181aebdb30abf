package doctor

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/commlab/commlab/probes"
)

// Bandwidth thresholds: a copy that reaches at least goodFraction of its
// link's one-way ceiling is healthy; below poorFraction something is wrong.
// The lab's own H200 runs reach 88% of PCIe Gen5 x16 (pinned host-device,
// 55.5 GB/s) and 88% of 18 NVLink 4 links (P2P write, 394.8 GB/s) (the
// recorded bandwidth-h200x2 run, 2026-11-29), so 0.7 leaves room for
// other machines without hiding a halved link.
const (
	goodFraction = 0.7
	poorFraction = 0.5
	// nvlink4LinkGBps is one NVLink 4 link's one-way rate (H100/H200: 18
	// links, 450 GB/s one way; NVIDIA H100 datasheet).
	nvlink4LinkGBps = 25.0
)

// CheckNVLink checks NVLink and peer-to-peer: every GPU's NVLink ports up
// (nvlink-state), P2P capability per GPU pair (p2p), and measured copies
// against their link's ceiling (p2p-bandwidth, host-device-bandwidth) when
// a bandwidth run is given.
func CheckNVLink(t *probes.Topology, bw *probes.Run) []Verdict {
	var out []Verdict
	if t == nil {
		out = append(out, skipped(LayerNVLink, "nvlink-state", "no topology", chapterInterconnect))
	} else {
		out = append(out, checkNVLinkState(t), checkP2P(t))
	}
	return append(out, checkBandwidth(t, bw)...)
}

func checkNVLinkState(t *probes.Topology) Verdict {
	v := Verdict{Layer: LayerNVLink, Check: "nvlink-state", Chapter: chapterInterconnect}
	total, withPorts := 0, 0
	var down []string
	for _, g := range t.GPUs {
		if len(g.NVLinks) == 0 {
			continue
		}
		withPorts++
		active := 0
		var off []string
		for _, p := range g.NVLinks {
			if p.Active {
				active++
			} else {
				off = append(off, fmt.Sprint(p.Link))
			}
		}
		total += active
		v.Evidence = append(v.Evidence, fmt.Sprintf("%s: %d of %d NVLink ports active", g.ID(), active, len(g.NVLinks)))
		if active > 0 && len(off) > 0 {
			down = append(down, fmt.Sprintf("%s links %s", g.ID(), strings.Join(off, ",")))
		}
	}
	nvPairs := 0
	for i, g := range t.GPUs {
		for _, h := range t.GPUs[i+1:] {
			if p, ok := t.PathBetween(g.ID(), h.ID()); ok && p.Level == probes.LevelNVLink {
				nvPairs++
			}
		}
	}
	switch {
	case len(down) > 0:
		v.judge(Fail, "NVLink ports down on GPUs whose other ports are up: "+strings.Join(down, "; "),
			"nvidia-smi nvlink -s and -e (error counters); a GPU with links down gets less bandwidth to its peers, and NCCL's rings run at its pace")
	case withPorts == 0 && nvPairs > 0:
		v.judge(OK, fmt.Sprintf("%d GPU pairs joined by NVLink in the matrix (port states not in the evidence)", nvPairs), "")
	case withPorts == 0:
		v.judge(Skipped, "no NVLink in the evidence (a PCIe-only machine, a single GPU, or the matrix alone)", "")
	case total == 0:
		v.judge(Skipped, "no NVLink port is active: the GPUs talk over PCIe (or there is one GPU)", "")
	default:
		v.judge(OK, fmt.Sprintf("all NVLink ports up on %d GPUs", withPorts), "")
	}
	return v
}

func checkP2P(t *probes.Topology) Verdict {
	v := Verdict{Layer: LayerNVLink, Check: "p2p", Chapter: chapterInterconnect}
	if len(t.GPUs) < 2 {
		return v.judge(Skipped, "fewer than two GPUs: no peer-to-peer pairs", "")
	}
	if len(t.P2P) == 0 {
		return v.judge(Skipped, "P2P capability not in the evidence (NVML reads it on the machine)", "")
	}
	var bad []string
	for _, p := range t.P2P {
		line := fmt.Sprintf("GPU%d-GPU%d: read %s, write %s, NVLink %s", p.GPU1, p.GPU2, orDash(p.Read), orDash(p.Write), orDash(p.NVLink))
		v.Evidence = append(v.Evidence, line)
		if (p.Read != "" && p.Read != "OK") || (p.Write != "" && p.Write != "OK") {
			bad = append(bad, fmt.Sprintf("GPU%d-GPU%d", p.GPU1, p.GPU2))
		}
	}
	if len(bad) > 0 {
		return v.judge(Fail, "peer-to-peer not supported between "+strings.Join(bad, ", ")+": NCCL falls back to shared memory through the host",
			"check ACS and the IOMMU (topology layer), and that the GPUs sit in one IOMMU group or share NVLink")
	}
	return v.judge(OK, fmt.Sprintf("peer-to-peer read and write supported on %d GPU pair%s", len(t.P2P), plural(len(t.P2P))), "")
}

// link ceilings, one way, GB/s.
func pcieCeiling(t *probes.Topology, dev int) (float64, string) {
	if t == nil {
		return 0, ""
	}
	for _, g := range t.GPUs {
		if g.Index == dev {
			if c := g.PCIe.MaxGBps(); c > 0 {
				return c, fmt.Sprintf("PCIe Gen%d x%d", g.PCIe.GenMax, g.PCIe.WidthMax)
			}
		}
	}
	return 0, ""
}

func p2pCeiling(t *probes.Topology, a, b int) (float64, string) {
	if t == nil {
		return 0, ""
	}
	p, ok := t.PathBetween(fmt.Sprintf("GPU%d", a), fmt.Sprintf("GPU%d", b))
	if !ok {
		return 0, ""
	}
	if p.Level == probes.LevelNVLink {
		return float64(p.NVLinks) * nvlink4LinkGBps, fmt.Sprintf("%s, %d NVLink 4 links x 25 GB/s", p, p.NVLinks)
	}
	c, name := pcieCeiling(t, a)
	return c, name + " (" + p.String() + ")"
}

// best returns the fastest sample per (op, src, dst): the plateau a link
// reaches at large sizes.
func bestSamples(run *probes.Run, ops ...string) []probes.Sample {
	best := map[[3]any]probes.Sample{}
	for _, s := range run.Samples {
		ok := false
		for _, o := range ops {
			ok = ok || s.Op == o
		}
		if !ok || s.MedianUS <= 0 {
			continue
		}
		k := [3]any{s.Op, s.Src, s.Dst}
		if b, seen := best[k]; !seen || gbpsOf(s) > gbpsOf(b) {
			best[k] = s
		}
	}
	out := make([]probes.Sample, 0, len(best))
	for _, s := range best {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b probes.Sample) int {
		return cmp.Or(cmp.Compare(a.Op, b.Op), cmp.Compare(a.Src, b.Src), cmp.Compare(a.Dst, b.Dst))
	})
	return out
}

func gbpsOf(s probes.Sample) float64 {
	if s.AlgBW > 0 {
		return s.AlgBW
	}
	return float64(s.Bytes) / (s.MedianUS * 1e-6) / 1e9
}

func checkBandwidth(t *probes.Topology, bw *probes.Run) []Verdict {
	h2d := Verdict{Layer: LayerNVLink, Check: "host-device-bandwidth", Chapter: chapterInterconnect}
	p2p := Verdict{Layer: LayerNVLink, Check: "p2p-bandwidth", Chapter: chapterInterconnect}
	if bw == nil {
		const why = "no bandwidth run: on a GPU machine the doctor measures it (commlab probe bandwidth), or give --bandwidth RUN.json"
		h2d.judge(Skipped, why, "")
		p2p.judge(Skipped, why, "")
		return []Verdict{h2d, p2p}
	}
	// rate judges the fastest copies of one kind against their links'
	// ceilings; next is what to do when they fall short.
	rate := func(v *Verdict, samples []probes.Sample, ceiling func(s probes.Sample) (float64, string), next string) {
		worst := 2.0
		n := 0
		var worstLine string
		for _, s := range samples {
			c, name := ceiling(s)
			got := gbpsOf(s)
			line := fmt.Sprintf("%s %s: %s at %s", s.Op, devPair(s), gbpsText(got), sizeText(float64(s.Bytes)))
			if c > 0 {
				line += fmt.Sprintf(" = %s of %s (%s)", pctText(got/c), gbpsText(c), name)
				if got/c < worst {
					worst, worstLine = got/c, line
				}
				n++
			}
			v.Evidence = append(v.Evidence, line)
		}
		switch {
		case len(samples) == 0:
			v.judge(Skipped, "the bandwidth run has no "+v.Check+" samples", "")
		case n == 0:
			v.judge(Skipped, "measured, but the link's ceiling is not known (no PCIe/NVLink facts in the topology)", "")
		case worst < poorFraction:
			v.judge(Fail, "far below the link's ceiling: "+worstLine, next)
		case worst < goodFraction:
			v.judge(Warn, "below 70% of the link's ceiling: "+worstLine, next)
		default:
			v.judge(OK, fmt.Sprintf("every copy reaches at least %s of its link's ceiling (worst: %s)", pctText(worst), worstLine), "")
		}
	}
	rate(&h2d, bestSamples(bw, "h2d_pinned", "d2h_pinned"), func(s probes.Sample) (float64, string) {
		dev := s.Dst
		if dev < 0 {
			dev = s.Src
		}
		return pcieCeiling(t, dev)
	}, "compare the GPU's PCIe link (pcie-link check) under load with nvidia-smi -q -d PCIE; check the process's NUMA binding and that the buffer is pinned")
	rate(&p2p, bestSamples(bw, "p2p_write", "p2p_read"), func(s probes.Sample) (float64, string) {
		return p2pCeiling(t, s.Src, s.Dst)
	}, "nvidia-smi nvlink -s (links down?) and the acs and iommu checks for PCIe peers")
	if p2p.Status == Skipped && bw.GPUCount < 2 {
		p2p.Summary = "one GPU: no peer-to-peer copies"
	}
	return []Verdict{h2d, p2p}
}

func devPair(s probes.Sample) string {
	name := func(d int) string {
		if d < 0 {
			return "host"
		}
		return fmt.Sprintf("GPU%d", d)
	}
	return name(s.Src) + "->" + name(s.Dst)
}
