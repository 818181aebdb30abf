package doctor

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/prose"
)

// CheckNIC checks the NICs, RDMA and GPUDirect: RDMA devices and their
// ports' state, rate and GIDs (rdma-devices); the kernel's way for a NIC
// to reach GPU memory, nvidia_peermem or DMA-BUF (gpudirect-module); and
// per NIC whether GPUDirect RDMA is in effect and, when not, why (gdr:
// module missing, distance beyond NCCL_NET_GDR_LEVEL, ACS), from the
// topology and, when given, NCCL's own log.
func CheckNIC(t *probes.Topology, pci *probes.PCIFacts, lg *nccllog.Log, nodes int) []Verdict {
	return []Verdict{checkRDMADevices(t, nodes), checkGDRModule(t, lg, nodes), checkGDR(t, pci, lg, nodes)}
}

// networkUse counts NCCL's network connections in its log (NET/IB/...,
// not sockets) and those through GPUDirect RDMA (.../GDRDMA), and says
// whether the job sends anything over the network at all: it spans nodes,
// or the log shows network connections.
func networkUse(lg *nccllog.Log, nodes int) (conns, gdr int, traffic bool) {
	if lg != nil && lg.Network != nil {
		for _, u := range lg.Network.NICs {
			if u.Net == "Socket" || strings.HasPrefix(u.Net, "NET/Socket") {
				continue
			}
			conns += u.Connections
			gdr += u.GDR
		}
	}
	return conns, gdr, nodes > 1 || conns > 0
}

func checkRDMADevices(t *probes.Topology, nodes int) Verdict {
	v := Verdict{Layer: LayerNIC, Check: "rdma-devices", Chapter: chapterRDMA}
	if t == nil {
		return v.judge(Skipped, "no topology", "")
	}
	nics := RDMANICs(t)
	if len(nics) == 0 {
		if nodes > 1 {
			v.judge(Fail, fmt.Sprintf("no RDMA device on a job of %d nodes: NCCL falls back to TCP sockets", nodes),
				"load the RDMA driver (mlx5_ib, ib_core) and check ibv_devinfo")
		} else {
			v.judge(Skipped, "no RDMA device (fine on one node; across nodes NCCL would use TCP sockets)", "")
		}
		return v
	}
	var down, noGID []string
	withPorts := 0
	rates := map[float64][]string{}
	for _, n := range nics {
		if len(n.Ports) == 0 {
			v.Evidence = append(v.Evidence, fmt.Sprintf("%s (%s): named in the matrix, port state not in the evidence", n.ID(), n.Name))
			continue
		}
		withPorts++
		for _, p := range n.Ports {
			v.Evidence = append(v.Evidence, fmt.Sprintf("%s %s port %d: %s/%s, %s, %s, %d GIDs", n.ID(), n.Name, p.Port, orDash(p.State), orDash(p.PhysState), orDash(p.LinkLayer), orDash(p.Rate), len(p.GIDs)))
			if p.State != "" && !strings.EqualFold(p.State, "ACTIVE") {
				down = append(down, fmt.Sprintf("%s port %d (%s)", n.Name, p.Port, p.State))
				continue
			}
			if strings.EqualFold(p.LinkLayer, "Ethernet") && len(p.GIDs) == 0 {
				noGID = append(noGID, fmt.Sprintf("%s port %d", n.Name, p.Port))
			}
			if p.RateGbps > 0 {
				rates[p.RateGbps] = append(rates[p.RateGbps], n.Name)
			}
		}
	}
	switch {
	case len(down) > 0:
		v.judge(Fail, "RDMA ports not active: "+strings.Join(down, ", "),
			"ibstat / ibv_devinfo on the node; check cables, the switch port and the subnet manager (InfiniBand)")
	case len(noGID) > 0:
		v.judge(Fail, "RoCE ports without a GID (no IP address on their netdev): "+strings.Join(noGID, ", "),
			"give the netdev an address (show_gids lists them); NCCL_IB_GID_INDEX must name a RoCE v2 GID")
	case len(rates) > 1:
		keys := slices.Sorted(maps.Keys(rates))
		v.judge(Warn, fmt.Sprintf("RDMA ports at different rates: %s at %.0f Gb/s against %.0f Gb/s on the others", strings.Join(rates[keys[0]], ", "), keys[0], keys[len(keys)-1]),
			"a port that trained at a lower rate slows every ring through it; check the cable and the switch port")
	case withPorts == 0:
		v.judge(OK, fmt.Sprintf("%d RDMA NICs in the matrix (port states not in the evidence)", len(nics)), "")
	default:
		v.judge(OK, fmt.Sprintf("%d RDMA NICs, every port active", len(nics)), "")
	}
	return v
}

// gdrModule says whether the kernel gives NICs a way to GPU memory: true
// when nvidia_peermem is loaded or DMA-BUF is usable, known false when
// neither; known is false when the evidence does not say.
func gdrModule(t *probes.Topology) (ok, known bool, why string) {
	g := t.GPUDirect
	dmabuf := strings.ToLower(g.DMABuf)
	switch {
	case g.PeerMem:
		return true, true, "nvidia_peermem loaded" + versionSuffix(g.PeerMemVersion)
	case strings.HasPrefix(dmabuf, "likely") || strings.HasPrefix(dmabuf, "yes"):
		return true, true, "DMA-BUF: " + g.DMABuf
	case strings.HasPrefix(dmabuf, "no"):
		return false, true, "nvidia_peermem not loaded and DMA-BUF unavailable (" + g.DMABuf + ")"
	case g.NvidiaVersion != "" && dmabuf == "":
		return false, true, "nvidia_peermem not loaded (DMA-BUF not checked)"
	}
	return false, false, "nvidia_peermem and DMA-BUF not in the evidence"
}

// guessed says whether the way to GPU memory is only inferred: DMA-BUF
// "likely" without nvidia_peermem loaded.
func guessed(t *probes.Topology) bool {
	return !t.GPUDirect.PeerMem && strings.HasPrefix(strings.ToLower(t.GPUDirect.DMABuf), "likely")
}

func versionSuffix(v string) string {
	if v == "" {
		return ""
	}
	return " (" + v + ")"
}

func checkGDRModule(t *probes.Topology, lg *nccllog.Log, nodes int) Verdict {
	v := Verdict{Layer: LayerNIC, Check: "gpudirect-module", Chapter: chapterRDMA}
	if t == nil {
		return v.judge(Skipped, "no topology", "")
	}
	ok, known, why := gdrModule(t)
	v.Evidence = []string{why}
	_, gdrConns, traffic := networkUse(lg, nodes)
	const loadPeerMem = "modprobe nvidia_peermem (driver package nvidia-peermem), or use the open kernel modules on Linux 5.12+ for DMA-BUF"
	switch {
	case gdrConns > 0 && !ok:
		v.judge(OK, fmt.Sprintf("NCCL's log shows %d network connection(s) through GPUDirect RDMA (GDRDMA), so NICs reach GPU memory (%s)", gdrConns, why), "")
	case known && !ok && len(RDMANICs(t)) > 0 && !traffic:
		v.judge(Warn, "GPUDirect RDMA would be off once the job spans nodes: "+why+" (one node: nothing crosses the network now)", loadPeerMem)
	case !known:
		v.judge(Skipped, why+" (run on the machine to read /sys/module)", "")
	case len(RDMANICs(t)) == 0 && !traffic:
		v.judge(Skipped, "no RDMA device: GPUDirect RDMA does not apply ("+why+")", "")
	case ok && guessed(t):
		v.judge(Skipped, "cannot tell: "+why+" is a guess from the driver and kernel, not a registration that worked; NCCL's log (GDRDMA in its transports) or ib_write_bw --use_cuda tells",
			"run once with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: 'GPU Direct RDMA Enabled' and .../GDRDMA connections confirm it")
	case ok:
		v.judge(OK, "NICs can reach GPU memory: "+why, "")
	case len(RDMANICs(t)) == 0:
		v.judge(OK, "no RDMA NIC, so no GPUDirect RDMA needed: "+why, "")
	default:
		v.judge(Fail, "GPUDirect RDMA is off: "+why+"; every network transfer is staged through host memory", loadPeerMem)
	}
	return v
}

func checkGDR(t *probes.Topology, pci *probes.PCIFacts, lg *nccllog.Log, nodes int) Verdict {
	v := Verdict{Layer: LayerNIC, Check: "gdr", Chapter: chapterRDMA}
	var net *nccllog.Network
	if lg != nil {
		net = lg.Network
	}
	if t == nil && net == nil {
		return v.judge(Skipped, "no topology and no NCCL log", "")
	}
	netConns, gdrConns, traffic := networkUse(lg, nodes)
	why := map[string][]string{} // NIC name -> reasons GDR is off
	hard := map[string]bool{}    // NICs off for a reason other than distance (module, ACS, NCCL)
	var nics []string
	if t != nil {
		moduleOK, known, modWhy := gdrModule(t)
		rdma := RDMANICs(t)
		names := map[string]string{}
		for _, n := range rdma {
			nics = append(nics, n.Name)
			names[n.ID()] = n.Name
			if known && !moduleOK && gdrConns == 0 { // GDRDMA in NCCL's log: the NIC does reach GPU memory
				why[n.Name] = append(why[n.Name], modWhy)
				hard[n.Name] = true
			}
		}
		if len(rdma) > 0 {
			for _, p := range t.NICPaths(probes.LevelPXB) {
				name := names[p.NIC]
				if name == "" {
					continue
				}
				if !p.GDR {
					why[name] = append(why[name], fmt.Sprintf("%s is %s from it, beyond NCCL_NET_GDR_LEVEL=PXB", p.GPU, p.Path))
				}
				g, _ := t.GPUByID(p.GPU)
				n, _ := t.NICByID(p.NIC)
				if br, ok := pci.BridgesBetween(busKey(g.BusID), busKey(n.BusID)); ok {
					for _, b := range br {
						if a, ok := pci.ACSOf(b); ok && a.Ctl.Redirects() {
							why[name] = append(why[name], fmt.Sprintf("ACS redirect on %s between %s and it: GPUDirect traffic turns at the root complex", b, p.GPU))
							hard[name] = true
						}
					}
				}
			}
		}
	}
	usedNoGDR := []string{}
	if net != nil {
		for _, g := range net.GDR {
			if g.Net == "Socket" {
				// NCCL 2.28 prints "NET/Socket : GPU Direct RDMA Disabled
				// for HCA 0 'eth0'" for every socket interface: sockets never
				// do GPUDirect, so the line says nothing about the NICs.
				continue
			}
			if !g.Enabled {
				r := "NCCL: GPU Direct RDMA disabled for HCA " + g.Device
				if g.Reason != "" {
					r += " (" + g.Reason + ")"
				}
				why[g.Device] = append(why[g.Device], r)
				hard[g.Device] = true
				if !slices.Contains(nics, g.Device) {
					nics = append(nics, g.Device)
				}
			}
			v.Evidence = append(v.Evidence, fmt.Sprintf("NCCL %s HCA %s: GPUDirect RDMA %s", g.Net, g.Device, enabled(g.Enabled)))
		}
		for _, p := range net.GDRPaths {
			if !p.Enabled {
				key := fmt.Sprintf("HCA %d", p.NIC)
				why[key] = append(why[key], fmt.Sprintf("NCCL: GPU %s / HCA %d distance %d > %d (NCCL_NET_GDR_LEVEL)", p.GPU, p.NIC, p.Distance, p.Limit))
				hard[key] = true
				if !slices.Contains(nics, key) {
					nics = append(nics, key)
				}
			}
		}
		for _, u := range net.NICs {
			v.Evidence = append(v.Evidence, fmt.Sprintf("NCCL NET/%s/%d: %d network connections, %d with GDRDMA", u.Net, u.Dev, u.Connections, u.GDR))
			if u.Connections > 0 && u.GDR < u.Connections && !strings.HasPrefix(u.Net, "NET/Socket") && u.Net != "Socket" {
				usedNoGDR = append(usedNoGDR, fmt.Sprintf("NET/%s/%d", u.Net, u.Dev))
			}
		}
	}
	if gdrConns > 0 {
		v.Evidence = append(v.Evidence, fmt.Sprintf("NCCL's transports: %d of %d network connections via .../GDRDMA (GPUDirect RDMA in use)", gdrConns, netConns))
	}
	var off, offHard []string
	for _, n := range nics {
		if hard[n] {
			offHard = append(offHard, n)
		}
		if len(why[n]) > 0 {
			off = append(off, n)
			v.Evidence = append(v.Evidence, n+": "+strings.Join(prose.Distinct(why[n]), "; "))
		}
	}
	sockOnly := false
	if net != nil {
		sock, rdma := 0, 0
		for _, u := range net.NICs {
			if u.Net == "Socket" {
				sock += u.Connections
			} else {
				rdma += u.Connections
			}
		}
		sockOnly = sock > 0 && rdma == 0
	}
	const fix = "for each reason: load nvidia_peermem (or DMA-BUF), put the NIC within PXB of its GPU, disable ACS on the bridges between them; NCCL_NET_GDR_LEVEL raises the distance limit at a bandwidth cost"
	const place = "run each rank on a GPU within PXB of its NIC (nvidia-smi topo -m: PIX or PXB; chapter 2's NIC affinity), or move the NIC to the GPU's socket; compare the same sizes with NCCL_NET_GDR_LEVEL unset"
	forced := gdrForcedPast(lg)
	switch {
	case sockOnly:
		v.judge(Warn, "GPUDirect RDMA not in effect: NCCL's inter-node traffic went over TCP sockets (the nccl-network check says why)", fix)
	case len(usedNoGDR) > 0 && len(off) > 0 && len(offHard) == 0:
		// Off only for distance: NCCL's default choice for a NIC that far;
		// what to change is where the GPU and the NIC sit.
		v.judge(Warn, "NCCL sent over "+strings.Join(usedNoGDR, ", ")+" without GPUDirect RDMA because the NIC is beyond PXB from its GPU ("+strings.Join(off, ", ")+"): traffic is staged through host memory, as NCCL's distance limit wants; the placement is the fault", place)
	case len(usedNoGDR) > 0:
		v.judge(Fail, "NCCL sent over "+strings.Join(usedNoGDR, ", ")+" without GPUDirect RDMA: network traffic is staged through host memory", fix)
	case gdrConns > 0 && forced != "":
		v.judge(Warn, fmt.Sprintf("GPUDirect RDMA forced past NCCL's default distance (%s): %d network connections via .../GDRDMA, the NIC reaching GPU memory across the CPU (NCCL would stage through host memory there)", forced, gdrConns), place)
	case len(offHard) > 0 && traffic:
		v.judge(Fail, fmt.Sprintf("GPUDirect RDMA is off or detoured for %d of %d NICs: %s", len(offHard), len(nics), strings.Join(offHard, ", ")), fix)
	case len(offHard) > 0:
		v.judge(Warn, fmt.Sprintf("GPUDirect RDMA would be off or detoured for %d of %d NICs (%s) once the job spans nodes (one node: nothing crosses the network now)", len(offHard), len(nics), strings.Join(offHard, ", ")), fix)
	case len(off) > 0:
		v.judge(Warn, fmt.Sprintf("some GPUs are too far from their NIC for GPUDirect RDMA (beyond PXB; the nic-affinity check places them): %s", strings.Join(off, ", ")), fix)
	case gdrConns > 0:
		v.judge(OK, fmt.Sprintf("GPUDirect RDMA in use: all %d network connections in NCCL's log go through .../GDRDMA", netConns), "")
	case len(nics) == 0 && net != nil && net.Using != "" && net.Using != "Socket":
		// The log names an RDMA network but neither its connections nor
		// the NICs' place: whether it reached GPU memory is not shown.
		v.judge(Skipped, "NCCL chose "+net.Using+" but the evidence shows neither its connections (NET/... lines) nor where its NICs sit: whether GPUDirect RDMA was used is not known", "")
	case len(nics) == 0:
		v.judge(Skipped, "no RDMA NIC in the evidence: GPUDirect RDMA does not apply", "")
	default:
		v.judge(OK, fmt.Sprintf("GPUDirect RDMA in effect for all %d NICs", len(nics)), "")
	}
	return v
}

// gdrForcedPast is "NCCL_NET_GDR_LEVEL=SYS set by environment" when NCCL's
// log shows the variable raised past PXB, NCCL's default limit for
// GPUDirect RDMA (src/graph/paths.cc ncclTopoCheckGdr: netGdrLevel =
// PATH_PXB unless the user sets it), "" otherwise.
func gdrForcedPast(lg *nccllog.Log) string {
	if lg == nil {
		return ""
	}
	pxb := slices.Index(pathLevels, "PXB")
	for _, e := range lg.Env {
		if e.Name == "NCCL_NET_GDR_LEVEL" && slices.Index(pathLevels, e.Value) > pxb {
			return "NCCL_NET_GDR_LEVEL=" + e.Value + " set by environment"
		}
	}
	return ""
}

func enabled(b bool) string {
	if b {
		return "enabled"
	}
	return "disabled"
}
