package costmodel

import (
	"fmt"
	"math"
)

// This file is the calibrated model of sendrecv and all_to_all, which
// NCCL runs as point-to-point operations, outside its tuner: nccl-tests'
// sendrecv has each rank send its whole buffer to the next rank and
// receive from the previous one; alltoall has each rank send 1/n of its
// buffer to every rank, grouped (ncclGroupStart/End) into one launch.
//
// How NCCL runs them (NVIDIA/nccl v2.28.9-1):
//   - channels per peer: src/graph/paths.cc ncclTopoGetNchannels gives a
//     peer over NVLink 2 channels per NVLink of the path, a peer over PCIe
//     2, a peer across nodes 2 per NIC (NCCL_NCHANNELS_PER_NET_PEER),
//     rounded to powers of two (ncclTopoComputeP2pChannels); a large
//     operation is split over all of them (addP2pToPlan, src/enqueue.cc,
//     parts of at most 32 steps), so at large sizes a rank's transfer to
//     a peer runs at the link's rate, not a channel's;
//   - protocol: LL up to NCCL_P2P_LL_THRESHOLD (16 KiB) per channel of the
//     peer, Simple above it, with chunks of NCCL_P2P_NVL_CHUNKSIZE (512
//     KiB) over NVLink, NCCL_P2P_PCI_CHUNKSIZE and NCCL_P2P_NET_CHUNKSIZE
//     (128 KiB) otherwise (src/init.cc);
//   - the peers of one alltoall are walked round by round
//     (scheduleP2pTasksToPlan, src/enqueue.cc), each round a work item.
//
// The model: the latency is NCCL's Ring/LL base latency (tuning.cc
// baseLat) plus one LL hop of the link (hwLat) per peer in the node,
// and one network hop (hwLat plus the plugin's latency) when a peer is on
// another node; the pairwise exchange's (n-1) alpha of Predict's
// all_to_all, with NCCL's own hop figures. The bandwidth is each GPU's
// share of its links: in the node, NCCL's rating of the GPU's links
// (ncclIntraGBps) times the ring's share of it (ringShare,
// FitRingEfficiency over NVLink) and FitSHMEfficiency without
// peer-to-peer; across nodes, the GPU's share of the node's NICs at
// FitNetEfficiency. sendrecv moves the whole buffer over one peer's path;
// all_to_all moves (g-1)/n of it inside the node and (n-g)/n across, at
// the same time, the slower part setting the time. nccl-tests' busbw
// (BusBWFactor): sendrecv busbw = algbw, alltoall busbw = algbw (n-1)/n.
// No row across nodes checks the network half.

// p2pLLThreshold is NCCL_P2P_LL_THRESHOLD's default, bytes per channel
// (src/enqueue.cc, v2.28.9-1).
const p2pLLThreshold = 16384

// isP2P says whether NCCL runs the collective as point-to-point
// operations rather than through its tuner.
func isP2P(c Collective) bool { return c == SendRecv || c == AllToAll }

// estimateP2P is estimate's branch for sendrecv and all_to_all; node has
// its network latency resolved.
func (m Machine) estimateP2P(c Collective, bytes float64, node Node, nodes int, algorithm, protocol string, k calibration) (Estimate, error) {
	if algorithm != "" || protocol != "" {
		return Estimate{}, fmt.Errorf("%w: %s runs as point-to-point operations, which NCCL_ALGO and NCCL_PROTO do not choose", ErrParams, c)
	}
	g := node.GPUs
	n := g * nodes
	mm := m
	mm.Node, mm.GPUsPerNode = node, 0
	T, err := mm.Tuner()
	if err != nil {
		return Estimate{}, err
	}
	intraHw := hwPCI
	if T.Topology.IntraNVLink {
		intraHw = hwNVLink
	}
	tb := T.tables
	inPeers, outPeers := 1, 0
	if c == AllToAll {
		inPeers, outPeers = g-1, n-g
	} else if nodes > 1 {
		// The last GPU of each node sends to the first of the next.
		inPeers, outPeers = 0, 1
	}
	lat := tb.baseLat[aRing][pLL] + float64(inPeers)*tb.hwLat[intraHw][aRing][pLL]
	if outPeers > 0 {
		lat += tb.hwLat[hwNet][aRing][pLL] + node.NIC.NetLatency*1e6
	}

	B := ncclIntraGBps(node.Intra) * ringShare(node.Intra, k)
	if node.NoP2P {
		B *= k.shm
	}
	// perGPUNet is one GPU's share of its node's NICs (GB/s).
	perGPUNet := 0.0
	if nodes > 1 {
		nic := node.NIC.NCCLBandwidth
		if nic == 0 {
			nic = node.NIC.Beta() / 1e9
		}
		if node.NICs <= 0 || nic <= 0 {
			return Estimate{}, fmt.Errorf("%w: %d nodes of %s but no network (NICs %d)", ErrParams, nodes, node.Name, node.NICs)
		}
		perGPUNet = nic * k.net * float64(node.NICs) / float64(g)
		if c == SendRecv {
			// One GPU per node sends across: its own NICs, at least one.
			perGPUNet = nic * k.net * math.Max(1, float64(node.NICs)/float64(g))
		}
	}
	var bwUs float64
	switch c {
	case SendRecv:
		rate := B
		if nodes > 1 {
			rate = math.Min(B, perGPUNet)
		}
		bwUs = bytes / (rate * 1e3)
	case AllToAll:
		if inPeers > 0 {
			bwUs = float64(inPeers) / float64(n) * bytes / (B * 1e3)
		}
		if outPeers > 0 {
			bwUs = math.Max(bwUs, float64(outPeers)/float64(n)*bytes/(perGPUNet*1e3))
		}
	}
	perPeer := bytes
	if c == AllToAll {
		perPeer = bytes / float64(n)
	}
	proto := "Simple"
	if perPeer <= p2pLLThreshold {
		proto = "LL"
	}
	factor := BusBWFactor(c, n)
	e := Estimate{Collective: c, Bytes: bytes, Ranks: n, Nodes: nodes, Algorithm: "P2P", Protocol: proto,
		LatencyUs: lat, BandwidthUs: bwUs}
	if bwUs > 0 {
		e.PeakBusBWGBps = bytes * factor / (bwUs * 1e3)
	}
	e.FloorUs = float64(max(m.Harness.ThreadGPUs, 1)) * m.issueUs(k)
	e.finish(factor, node, nodes, m.Harness)
	return e, nil
}
