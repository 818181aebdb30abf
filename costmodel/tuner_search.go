package costmodel

// This file builds the tuner's input for a node preset: the channels and
// per-channel speeds NCCL's topology search (src/graph/search.cc) finds
// for rings, trees and NVLS on that node and between nodes.

import (
	"math"
)

// TuneNodes is NCCL's tuning table for nodes nodes of n, each cut to gpus
// of its GPUs (0 keeps them all; see Node.WithGPUs), with the constants of
// NCCL's version family and NVLS on or off (NCCL_NVLS_ENABLE) as nvls
// says: NCCLTopology and Tune in one call.
func TuneNodes(n Node, gpus, nodes int, family string, nvls bool) (TunerTable, error) {
	if gpus > 0 {
		var err error
		if n, err = n.WithGPUs(gpus); err != nil {
			return TunerTable{}, err
		}
	}
	topo := NCCLTopology(n, nodes, family)
	topo.NVLSDisable = !nvls
	return Tune(topo)
}

// NCCLTopology builds a tuner topology for nodes of a preset. NCCL's
// graph search result (channels and per-channel bandwidth) is
// approximated. On one node whose GPUs talk over NVLink it is
// ncclRingSearch's and ncclTreeSearch's emulation of NCCL's own search
// (for two H200s: ring 12 x 30, tree 12 x 60, as the lab's log prints);
// otherwise rings and trees get NCCL's default channel count with the
// node's intra bandwidth shared among them, and the network share of the
// NICs between nodes. Where a real log is at hand, set the graphs from its
// "Pattern ..., nChannels N, bw X/Y" lines instead.
func NCCLTopology(n Node, nodes int, family string) TunerTopology {
	if nodes < 1 {
		nodes = 1
	}
	channels := 16
	if !n.NVSwitch {
		channels = 4
	}
	nvlink := n.Intra.Kind == "nvlink" || n.Intra.Kind == "nvswitch"
	intra := ncclIntraGBps(n.Intra)
	inter := n.NIC.Beta() * float64(n.NICs) / 1e9
	perCh := func(total float64) float64 { return math.Floor(total/float64(channels)*10) / 10 }
	if nodes > 1 {
		// Across nodes NCCL's search only tries the speeds of its inter
		// array (search.cc, speedArrayInter and its sm90/sm100 forms).
		perCh = func(total float64) float64 {
			for _, s := range ncclSpeedsInterFor(n.ComputeCapability) {
				if s <= total/float64(channels)+1e-9 {
					return s
				}
			}
			return 0.12
		}
	}
	// A ring crosses every node, so each channel runs at the slower of
	// NVLink and network; a tree keeps the two apart (its intra-node chain
	// and its network edges), as NCCL's tree graph does.
	ring := TunerGraph{Channels: channels, BwIntraGBps: perCh(intra), BwInterGBps: perCh(intra), SameChannels: true}
	tree := ring
	if nodes > 1 {
		ring.BwInterGBps = perCh(math.Min(intra, inter))
		ring.BwIntraGBps = ring.BwInterGBps
		tree.BwInterGBps = perCh(inter)
	} else if nvlink && n.GPUs > 1 {
		ch, bw := ncclRingSearch(intra, n.ComputeCapability)
		ring = TunerGraph{Channels: ch, BwIntraGBps: bw, BwInterGBps: bw, SameChannels: true}
		tbw := ncclTreeSearch(intra, n.GPUs, ch, n.ComputeCapability)
		tree = TunerGraph{Channels: ch, BwIntraGBps: tbw, BwInterGBps: tbw}
	}
	tt := TunerTopology{Family: family, Nodes: nodes, GPUsPerNode: n.GPUs, IntraNVLink: nvlink,
		ComputeCapability: n.ComputeCapability, CPUVendor: "intel", NICPath: n.NICPath, NICFar: !n.NVSwitch,
		NVLSSupport: n.NVLS, Ring: ring, Tree: tree}
	if n.NVLS {
		tt.NVLS = ncclNVLSSearch(n, nodes)
	}
	if nodes > 1 {
		// A net plugin's own latency (ncclNetProperties_t.latency) rides on
		// every graph: search.cc sets graph->latencyInter from the NIC.
		lat := n.NIC.NetLatency * 1e6
		tt.Ring.LatencyInterUs, tt.Tree.LatencyInterUs, tt.NVLS.LatencyInterUs = lat, lat, lat
	}
	return tt
}

// ncclIntraGBps is the per-GPU rate, one way in GB/s, NCCL's topology
// gives an in-node link: Link.NCCLBandwidth, or for a link without one (a
// rate typed with --bw) the one-way rate scaled as NCCL scales NVLink 4
// (20.6 of 25 GB/s per link) or PCIe 4.0 (24 of 31.5 GB/s).
func ncclIntraGBps(l Link) float64 {
	if l.NCCLBandwidth > 0 {
		return l.NCCLBandwidth
	}
	if l.Kind == "pcie" {
		return l.Beta() * 0.762 / 1e9
	}
	return l.Beta() * 0.824 / 1e9
}

// ncclNVLSSearch emulates search.cc's NVLS graph (NCCL_TOPO_PATTERN_NVLS).
// Each channel has a head GPU; it loads every GPU's NVSwitch link with the
// channel's bwIntra and its head's twice, in each direction
// (ncclTopoSearchTryNvls, ncclTopoFollowPath), so nCh channels fit when
// (nCh+1) x bwIntra is at most the GPU's NVLink total. On one node the
// channels are forced to min(NCCL_MAX_NVLS_ARITY 32, GPUs) and the speed
// drops through the intra speed array until they fit (8 H100s: 8 channels
// of 40 GB/s). Pass 2 then raises bwInter alone, which no NVLink carries,
// while it is below twice bwIntra (to 60 on 8 H100s). Across nodes only
// GPUs with a NIC head a channel (at most one per GPU), the speeds come
// from the inter array and bwInter is also held to each head's share of
// the NICs. The emulation is not checked against a log with NVLS on.
func ncclNVLSSearch(n Node, nodes int) TunerGraph {
	total := ncclIntraGBps(n.Intra)
	channels := min(32, n.GPUs)
	speeds := ncclSpeedsIntraFor(n.ComputeCapability)
	perHead := math.Inf(1)
	if nodes > 1 {
		if n.NICs > 0 {
			channels = min(channels, n.NICs)
			perHead = n.NIC.NCCLBandwidth * float64(n.NICs) / float64(channels)
		}
		speeds = ncclSpeedsInterFor(n.ComputeCapability)
	}
	for i, s := range speeds {
		if float64(channels+1)*s > total+1e-9 || s > perHead+1e-9 {
			continue
		}
		g := TunerGraph{Channels: channels, BwIntraGBps: s, BwInterGBps: s}
		for j := i - 1; j >= 0 && g.BwInterGBps < 2*g.BwIntraGBps && speeds[j] <= perHead+1e-9; j-- {
			g.BwInterGBps = speeds[j]
		}
		return g
	}
	return TunerGraph{}
}

// NCCL's per-channel speeds for the search on one node (src/graph/
// search.cc, speedArrayIntra, sm90SpeedArrayIntra, sm100SpeedArrayIntra;
// v2.28.9-1).
var (
	ncclSpeedsIntra      = []float64{40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0}
	ncclSpeedsIntraSM90  = []float64{60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0}
	ncclSpeedsIntraSM100 = []float64{90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0}
)

// ncclSpeedsInterFor is search.cc's speed array for graphs that leave the
// node (speedArrayInter, sm90SpeedArrayInter, sm100SpeedArrayInter).
func ncclSpeedsInterFor(cc int) []float64 {
	switch {
	case cc >= 100:
		return []float64{96.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12}
	case cc >= 90:
		return []float64{48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12}
	}
	return []float64{48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2, 0.24, 0.12}
}

func ncclSpeedsIntraFor(cc int) []float64 {
	switch {
	case cc >= 100:
		return ncclSpeedsIntraSM100
	case cc >= 90:
		return ncclSpeedsIntraSM90
	}
	return ncclSpeedsIntra
}

// ncclRingSearch emulates search.cc's ncclTopoCompute for the ring
// pattern on one node where every GPU reaches every other over links of
// total GB/s each way (an NVSwitch board; NCCL's maxBw = totalBw): pass 1
// starts at the fastest speed not above it, fits as many channels as the
// link carries (each ring channel crosses every GPU's link once each way),
// and lowers the speed while the next is more than 0.49 of the best found,
// keeping a later result only when channels x speed is strictly larger
// (ncclTopoCompareGraphs); then ncclTopoDupChannels doubles the channels
// and halves their speed unless the speed is under 25 GB/s, or under 50
// with more than 4 channels on sm90+. Pass 2's try at a higher speed with
// as many channels never fits on such a link. Two H200s: 6 x 60 GB/s, then
// 12 x 30 (the lab's log: "Pattern 4, ... nChannels 12, bw 30/30").
func ncclRingSearch(total float64, cc int) (channels int, bw float64) {
	const maxChannels = 16 // MAXCHANNELS/2 in 2.19 (32 later); never reached here
	speeds := ncclSpeedsIntraFor(cc)
	i := 0
	for i < len(speeds)-1 && speeds[i] > total {
		i++
	}
	for ; i < len(speeds); i++ {
		s := speeds[i]
		if channels > 0 && s/bw <= .49 {
			break
		}
		n := min(int(total/s+1e-9), maxChannels)
		if float64(n)*s > float64(channels)*bw {
			channels, bw = n, s
		}
	}
	if channels == 0 {
		return 1, 0.1 // NCCL's fallback: one channel at 0.1 GB/s
	}
	if bw >= 25 && !(cc > 80 && bw < 50 && channels > 4) {
		dup := min(2*channels, 2*maxChannels)
		bw /= float64((dup + channels - 1) / channels)
		channels = dup
	}
	return channels, bw
}

// ncclTreeSearch is the tree graph's speed on one node with the ring's
// channel count (init.cc: treeGraph min and max channels are the ring's):
// search.cc scales totalBw by gpus/(gpus-1) for patterns other than the
// ring and starts at the fastest speed s with s <= maxBw and s x channels
// <= that total. Two H200s: 12 x 60 GB/s, as the lab's log prints
// ("Pattern 1, ... nChannels 12, bw 60/60").
func ncclTreeSearch(total float64, gpus, channels, cc int) float64 {
	speeds := ncclSpeedsIntraFor(cc)
	budget := total * float64(gpus) / float64(gpus-1)
	i := 0
	for i < len(speeds)-1 && (speeds[i] > total || speeds[i]*float64(channels) > budget+1e-9) {
		i++
	}
	return speeds[i]
}
