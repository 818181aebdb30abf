package doctor

// This file says what a curve's model assumes where the evidence does not
// tell: the network between nodes (its family and rate, the preset's
// NICs), NVLS on or off, NCCL's tuning family. Each comes from the log or
// the topology when given, else from the user (--network, --preset,
// --nvls), else it is named as an assumption with its alternative; and a
// plateau the assumed model calls low but an alternative explains is
// "cannot tell", not a warning ("if this machine has no NVLS, 359 GB/s is
// 98% of the ring model").

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/units"
)

// NetworkFamilies are the --network values, the network kinds costmodel's presets carry
// (Link.Kind of their NIC), in a reader's words.
var NetworkFamilies = map[string]string{
	"ib":    "InfiniBand",
	"roce":  "RoCE",
	"efa":   "AWS EFA",
	"tcpx":  "GPUDirect-TCPX",
	"tcpxo": "GPUDirect-TCPXO",
	"tcp":   "TCP sockets",
}

// presetsOfGPU are the costmodel presets that share a GPU board and
// differ in their network: the alternatives to a preset's network.
var presetsOfGPU = [][]string{
	{"hgx-h100", "gcp-a3-mega", "gcp-a3", "p5"},
	{"dgx-a100", "p4d", "p4de"},
}

// networkAlternatives are the presets with the same GPUs as preset and
// another network, by family.
func networkAlternatives(preset string) map[string]string {
	out := map[string]string{}
	for _, group := range presetsOfGPU {
		if !slices.Contains(group, preset) {
			continue
		}
		for _, p := range group {
			if n, err := costmodel.NodeByName(p); err == nil {
				if _, seen := out[n.NIC.Kind]; !seen {
					out[n.NIC.Kind] = p
				}
			}
		}
	}
	return out
}

// networkWords is a node's network as a reader says it: "8x 400 Gb/s
// InfiniBand (hgx-h100)".
func networkWords(preset string) string {
	n, err := costmodel.NodeByName(preset)
	if err != nil {
		return preset
	}
	fam := NetworkFamilies[n.NIC.Kind]
	if fam == "" {
		fam = n.NIC.Kind
	}
	return fmt.Sprintf("%dx %.0f Gb/s %s (%s)", n.NICs, n.NIC.Bandwidth.OneWay()*8/1e9, fam, preset)
}

// NetworkFromLog is the network family NCCL's log shows it used ("ib",
// "roce", "efa", "tcpxo", "tcpx", "tcp"), and the words that say so; ""
// when the log does not show one.
func NetworkFromLog(lg *nccllog.Log) (family, why string) {
	if lg == nil || lg.Network == nil {
		return "", ""
	}
	n := lg.Network
	text := strings.ToLower(n.Using + " " + n.Plugin + " " + strings.Join(n.PluginNotes, " "))
	switch {
	case strings.Contains(text, "tcpxo") || strings.Contains(text, "fastrak"):
		return "tcpxo", "NCCL's log: " + orDash(n.Using+" "+n.Plugin)
	case strings.Contains(text, "tcpx"):
		return "tcpx", "NCCL's log: " + orDash(n.Using+" "+n.Plugin)
	case strings.Contains(text, "libfabric") || strings.Contains(text, "ofi"):
		return "efa", "NCCL's log: " + orDash(n.Using+" "+n.Plugin)
	}
	for _, d := range n.IBDevices {
		if strings.HasSuffix(d, "/RoCE") {
			return "roce", "NCCL's log: NET/IB device " + d
		}
		if strings.HasSuffix(d, "/IB") {
			return "ib", "NCCL's log: NET/IB device " + d
		}
	}
	if strings.HasPrefix(strings.ToLower(n.Using), "socket") {
		return "tcp", "NCCL's log: Using network Socket"
	}
	return "", ""
}

// curveAssumption is one thing the model took without evidence, with the
// machine it would price if the other way.
type curveAssumption struct {
	said  string  // "NVLS on (not in the evidence)"
	alt   Machine // the machine the other way
	ifNot string  // "if this machine has no NVLS"
}

// assume settles the machine's network and NVLS from the setup and says
// what it took without evidence: the notes for the report and the
// alternatives to price if the plateau looks low.
func (s CurveSetup) assume(m *Machine, c Curve) (notes []string, alts []curveAssumption, err error) {
	node, err := costmodel.NodeByName(m.Preset)
	if err != nil {
		return nil, nil, fmt.Errorf("doctor: %w", err)
	}
	if m.Nodes > 1 {
		others := networkAlternatives(m.Preset)
		switch {
		case s.Network == "" && s.Preset != "":
			notes = append(notes, "network: "+networkWords(m.Preset)+", the preset's (--preset)")
		case s.Network != "":
			p, ok := others[s.Network]
			if !ok && node.NIC.Kind != s.Network && s.NetworkFrom != "--network" {
				notes = append(notes, fmt.Sprintf("network: %s from %s, which no preset of these GPUs has: assumed %s", orDash(NetworkFamilies[s.Network]), orDash(s.NetworkFrom), networkWords(m.Preset)))
				break
			}
			if !ok {
				if node.NIC.Kind != s.Network {
					fams := slices.Sorted(maps.Keys(others))
					return nil, nil, fmt.Errorf("doctor: --network %s: no %s preset with %s (have: %s)", s.Network, node.Name, orDash(NetworkFamilies[s.Network]), orNone(fams))
				}
				p = m.Preset
			}
			m.Preset = p
			notes = append(notes, "network: "+networkWords(p)+", from "+orDash(s.NetworkFrom))
		default:
			notes = append(notes, "assumed: the network of "+networkWords(m.Preset)+" (the evidence does not name the network: --network or NCCL's log with NCCL_DEBUG_SUBSYS=INIT,NET tells it)")
			fams := slices.Sorted(maps.Keys(others))
			for _, f := range fams {
				if p := others[f]; p != m.Preset {
					alt := *m
					alt.Preset = p
					alts = append(alts, curveAssumption{said: "the network of " + m.Preset, alt: alt, ifNot: "if this machine's network is " + networkWords(p)})
				}
			}
		}
	}
	if node.NVLS && m.NVLS && s.NVLSFrom == "" {
		notes = append(notes, "assumed: NVLS on, as "+m.Preset+" has it (--nvls off, NCCL_NVLS_ENABLE=0 or NCCL's log tells otherwise)")
		alt := *m
		alt.NVLS = false
		alts = append(alts, curveAssumption{said: "NVLS on", alt: alt, ifNot: "if this machine has no NVLS"})
	} else if node.NVLS {
		notes = append(notes, fmt.Sprintf("NVLS %s, from %s", onOff(m.NVLS), orDash(s.NVLSFrom)))
	}
	if s.Family == "" && c.NCCL == "" {
		notes = append(notes, "assumed: NCCL "+m.Family+"'s tuning constants (the input names no NCCL version)")
	}
	return notes, alts, nil
}

// plausibleAbove is the most a healthy run measures above its model
// (the lab's H200 pair: 101%; published runs against their presets stay
// within a few percent): an alternative model the run beats by more is
// not its machine.
const plausibleAbove = 1.25

// reconsider holds a low plateau against the alternatives to what the
// model assumed: when one of them reaches the warning threshold, the
// plateau cannot be judged without knowing which machine this is.
func reconsider(rep CurveReport, c Curve, alts []curveAssumption, opt CurveOptions) CurveReport {
	for i, v := range rep.Verdicts {
		if v.Check != BranchLargePlateau && v.Check != BranchMultiNode || v.Status != Warn && v.Status != Fail || rep.ModelPlateauBusBW <= 0 {
			continue
		}
		share := rep.PlateauBusBW / rep.ModelPlateauBusBW
		var explained []string
		for _, a := range alts {
			m, err := ExpectedCurve(a.alt, c.Collective, c.Sizes())
			if err != nil || len(m.Points) != len(c.Points) {
				continue
			}
			alt, err := DiagnoseCurve(c, m, opt)
			if err != nil || alt.ModelPlateauBusBW <= 0 {
				continue
			}
			altShare := alt.PlateauBusBW / alt.ModelPlateauBusBW
			rep.Verdicts[i].Evidence = append(rep.Verdicts[i].Evidence, fmt.Sprintf("%s, %s is %s of that model's %s (%s)", a.ifNot, units.Readable(rep.PlateauBusBW, "GB/s"), pct(altShare), units.Readable(alt.ModelPlateauBusBW, "GB/s"), m.Source))
			// a measurement far above a model is not that machine either
			if altShare >= opt.PlateauWarn && altShare <= plausibleAbove {
				explained = append(explained, fmt.Sprintf("%s, %s is %s of that model", a.ifNot, units.Readable(rep.PlateauBusBW, "GB/s"), pct(altShare)))
			}
		}
		if len(explained) == 0 {
			continue
		}
		rep.Verdicts[i].judge(Skipped, fmt.Sprintf("cannot tell: %s is %s of the model, which assumed what the evidence does not say; %s", units.Readable(rep.PlateauBusBW, "GB/s"), pct(share), strings.Join(explained, "; ")),
			"say which machine this is: --network and --nvls (or --preset), or give NCCL's log (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,NET,TUNING), which names the network and whether NVLS is in use")
	}
	return rep
}

// nvlsFrom says where the evidence tells NVLS on or off: the job's
// NCCL_NVLS_ENABLE, NCCL's log; "" when it does not.
func nvlsFrom(ev *Evidence) string {
	if v, ok := ev.Env["NCCL_NVLS_ENABLE"]; ok {
		return "NCCL_NVLS_ENABLE=" + v
	}
	if logNVLSOff(ev.NCCLLog) {
		return "NCCL's log"
	}
	return ""
}
