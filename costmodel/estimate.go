package costmodel

import (
	"fmt"
	"math"

	"github.com/commlab/commlab/units"
)

// This file is the calibrated model behind `commlab model --algo auto`:
// NCCL's tuner (tuner.go) picks the algorithm and protocol and supplies
// its own latency; the bandwidth comes from the machine's links as NCCL
// rates them (Link.NCCLBandwidth) through the data each algorithm moves;
// a host floor covers operations issued faster than one host thread can
// launch them. The constants NCCL does not give are fitted to published
// measurements (calibration.go, testdata/published.tsv); the package doc
// lists each fit.

// The fitted constants (see the package doc, "Calibration"). Each is the
// value FitCalibration returns on the non-hold-out rows of
// testdata/published.tsv, rounded to three digits;
// TestFittedConstantsMatchTheTable holds them to it.
const (
	// FitRingEfficiency is the share of NCCL's link rating a ring or tree
	// gets inside a node.
	FitRingEfficiency = 0.95
	// FitNetEfficiency is the share of the NICs' port rate a collective
	// gets across nodes.
	FitNetEfficiency = 0.891
	// FitGatherLocalStep is the time of the one step in each loop of
	// all_gather's and reduce_scatter's ring that crosses no link (the
	// final receive or reduce-copy into the output), in link steps: the
	// ring gets NCCL's rating times (n-1)/(n-1+FitGatherLocalStep) on n
	// GPUs.
	FitGatherLocalStep = 0.244
	// FitLLEfficiency is the share of NCCL's LL bandwidth (half the link,
	// at most llMaxBws) that LL delivers at large sizes.
	FitLLEfficiency = 0.863
	// FitSHMEfficiency is the share of the PCIe rate NCCL gets when GPUs
	// exchange through host memory (no peer-to-peer).
	FitSHMEfficiency = 0.73
	// FitIssueUs is the host time, in microseconds, one thread spends
	// issuing one collective to one GPU (published hosts).
	FitIssueUs = 4.89
	// FitLabIssueUs is the same on the H200 machines this project records
	// on (virtual machines, NCCL 2.28.9).
	FitLabIssueUs = 12.1
	// FitEFALatency and FitTCPXOLatency are the per-hop latencies, in
	// seconds, those networks add to NCCL's model.
	FitEFALatency   = 22.1e-6
	FitTCPXOLatency = 54.5e-6
	// FitNVLSFillLoops is how many of NVLS's and NVLSTree's loops
	// (channels x heads x chunk, nvlsLoopBytes) pass before the pipeline
	// runs full: the pipeline fill at middle sizes, where NCCL shrinks
	// the NVLS chunk.
	FitNVLSFillLoops = 3.31
	// FitRingFillLoops is the same for the ring inside one node: the
	// share of one round of chunks over the channels NCCL uses
	// (channels x chunk, ringChunkBytes) that the pipeline takes to run
	// full. The fill grows with the size up to that round, then stays:
	// what makes a ring reach its plateau only at hundreds of MiB.
	FitRingFillLoops = 0.444
)

// NVLS channel counts and chunk size as NCCL v2.28.9-1 sets them:
// src/transport/nvls.cc L148-L150 (NVLS_NCHANNELS_SM90 16,
// NVLS_NCHANNELS_SM100 32 across nodes, NVLS_NCHANNELS_SM100_NVL 24 in one
// NVLink domain) and L153 (NCCL_NVLS_CHUNKSIZE 128 KiB).
const (
	nvlsChannelsSM90     = 16
	nvlsChannelsSM100    = 32
	nvlsChannelsSM100NVL = 24
	nvlsDefaultChunkSize = 128 << 10
	nvlsMaxHeads         = 32 // NCCL_MAX_NVLS_ARITY (src/include/device.h)
)

// nvlsLoopBytes is the bytes one loop of an NVLS or NVLSTree operation
// of nBytes (NCCL's size) covers on all its channels: concurrentOps x
// chunkSize, with the chunk shrunk for smaller operations as
// calcCollChunking does (NVIDIA/nccl v2.28.9-1 src/enqueue.cc L2041-L2068;
// the NVLS branch is unchanged since v2.18.5-1 src/enqueue.cc
// L1338-L1345). concurrentOps = nvlsChannels x nvls.nHeads, the heads
// being the NVLS graph's one channel per GPU. Not modelled: NVLS alone
// across nodes caps its chunk at 32 KiB where its bandwidth is under 150
// GB/s (no row runs it).
func nvlsLoopBytes(algorithm string, nBytes float64, cc, gpusPerNode, nodes int) float64 {
	channels := nvlsChannelsSM90
	if cc >= 100 {
		channels = nvlsChannelsSM100NVL
		if nodes > 1 {
			channels = nvlsChannelsSM100
		}
	}
	ops := float64(channels * min(nvlsMaxHeads, gpusPerNode))
	chunk := float64(nvlsDefaultChunkSize)
	if algorithm == "NVLSTree" {
		if nodes >= 4 {
			chunk = 65536 // NCCL_NVLSTREE_MAX_CHUNKSIZE's default, -2
		}
		for _, step := range []struct{ times, to float64 }{{32, 262144}, {16, 131072}, {4, 65536}, {1, 32768}} {
			if nBytes < step.times*ops*chunk && chunk > step.to {
				chunk = step.to
			}
		}
		return ops * chunk
	}
	for _, step := range []struct{ times, to float64 }{{64, 65536}, {8, 32768}, {2, 16384}} {
		if nBytes < step.times*ops*chunk && chunk > step.to {
			chunk = step.to
		}
	}
	return ops * chunk
}

// nvlsEfficiencyFor is NCCL 2.28's NVLS efficiency by generation (NVIDIA/nccl
// v2.28.9-1 src/graph/tuning.cc: 0.85 Hopper, 0.74 Blackwell).
func nvlsEfficiencyFor(cc int) float64 {
	if cc >= 100 {
		return 0.74
	}
	return 0.85
}

// calibration holds the fitted constants; Estimate uses the package's,
// FitCalibration tries others.
type calibration struct {
	ring, net, gatherStep, ll, shm, issue, labIssue, efa, tcpxo, nvlsFill, ringFill float64
}

var fitted = calibration{ring: FitRingEfficiency, net: FitNetEfficiency, gatherStep: FitGatherLocalStep, ll: FitLLEfficiency, shm: FitSHMEfficiency,
	issue: FitIssueUs, labIssue: FitLabIssueUs, efa: FitEFALatency, tcpxo: FitTCPXOLatency, nvlsFill: FitNVLSFillLoops, ringFill: FitRingFillLoops}

// Harness says how the measuring program drives the GPUs from the host.
// nccl-tests with -g N, and `commlab probe nccl`, issue every operation to
// N GPUs from one thread; under mpirun or torchrun each GPU has its own
// process (ThreadGPUs 1). Small operations then cost at least ThreadGPUs x
// IssueUs each.
type Harness struct {
	// ThreadGPUs is how many GPUs one host thread issues each operation
	// to; 0 means 1.
	ThreadGPUs int
	// Host is "" for the published machines' hosts (FitIssueUs per GPU)
	// or "lab" for the H200 virtual machines the recorded runs come from
	// (FitLabIssueUs).
	Host string
	// IssueUs, when above 0, replaces the host's fitted issue time, in
	// microseconds per GPU.
	IssueUs float64 `unit:"us"`
}

// LabHarness is how `commlab probe nccl` ran on the H200 machines the
// recorded runs come from: every GPU from one thread.
func LabHarness(gpus int) Harness { return Harness{ThreadGPUs: gpus, Host: "lab"} }

// Machine is what Estimate models: nodes of a preset, the NCCL version,
// NVLS on or off, and the harness.
type Machine struct {
	Node Node
	// GPUsPerNode uses that many of each node's GPUs (Node.WithGPUs); 0
	// means all.
	GPUsPerNode int
	// Nodes is the node count; 0 means 1.
	Nodes int
	// NCCL is a version ("2.21.5") or family ("2.28"); "" is DefaultNCCL.
	NCCL string
	// NVLSOff is NCCL_NVLS_ENABLE=0.
	NVLSOff bool
	Harness Harness
}

// Estimate is the model's prediction for one operation, as nccl-tests
// reports it: Bytes is nccl-tests' size, AlgBW = Bytes / Time and BusBW =
// AlgBW x BusBWFactor.
type Estimate struct {
	Collective Collective
	Bytes      float64 `unit:"B"`
	Ranks      int
	Nodes      int
	// Algorithm and Protocol are NCCL's names: the tuner's pick, or the
	// best within what was forced.
	Algorithm string
	Protocol  string
	TimeUs    float64 `unit:"us"`
	// LatencyUs is NCCL's own latency for the pick (tuning.cc, with the
	// network plugin's latency); FillUs NVLS's and NVLSTree's pipeline fill
	// (FitNVLSFillLoops loops, at most the whole operation; 0 for the
	// other algorithms); FloorUs the harness floor: the host time one
	// iteration takes to issue. nccl-tests issues its iterations back to
	// back and waits once (BenchTime in src/common.cu), so the host issues
	// the next while the GPUs run this one: the time is the larger of the
	// floor and the GPUs' time, LatencyUs + FillUs + BandwidthUs.
	LatencyUs float64 `unit:"us"`
	FillUs    float64 `unit:"us"`
	FloorUs   float64 `unit:"us"`
	// BandwidthUs is Bytes over the peak: the bandwidth term.
	BandwidthUs float64 `unit:"us"`
	// PeakBusBWGBps is the bus bandwidth the algorithm reaches at large
	// sizes on these links.
	PeakBusBWGBps float64 `unit:"GB/s"`
	AlgBWGBps     float64 `unit:"GB/s"`
	BusBWGBps     float64 `unit:"GB/s"`
	// NCCLTimeUs is NCCL's own prediction for the same pick (its tuner).
	NCCLTimeUs float64 `unit:"us"`
	// Bound is "latency" where the host floor hides the GPUs' time or
	// NCCL's latency and the fill outweigh the bandwidth term, else
	// "bandwidth".
	Bound string
	// Constants names the fitted constants (estimate.go) the estimate
	// rests on; FittedConstantStatus says how each is validated.
	Constants []string
}

// String prints the estimate in one line, e.g. "all_reduce 8.59 GB on 8
// GPUs: NVLS/Simple 30.66 ms (latency 25 µs, bandwidth 30.64 ms); busbw
// 490.2 GB/s".
func (e Estimate) String() string {
	where := fmt.Sprintf("%d GPUs", e.Ranks)
	if e.Nodes > 1 {
		where += fmt.Sprintf(" on %d nodes", e.Nodes)
	}
	lat := "latency " + units.Readable(e.LatencyUs, "us")
	if e.FillUs > 0 {
		lat += " + pipeline fill " + units.Readable(e.FillUs, "us")
	}
	if e.HostBound() {
		lat = "host floor " + units.Readable(e.FloorUs, "us") + " over GPU time " + units.Readable(e.LatencyUs+e.FillUs+e.BandwidthUs, "us")
	}
	return fmt.Sprintf("%s %s on %s: %s/%s %s (%s, bandwidth %s); busbw %s", e.Collective,
		units.Readable(e.Bytes, "B"), where, e.Algorithm, e.Protocol, units.Readable(e.TimeUs, "us"), lat,
		units.Readable(e.BandwidthUs, "us"), units.Readable(e.BusBWGBps, "GB/s"))
}

// Estimate predicts one operation of size bytes (nccl-tests' size) on the
// machine. algorithm and protocol are NCCLAlgorithm's and NCCLProtocol's
// inputs ("" or "auto" leave the choice to NCCL's tuner).
func (m Machine) Estimate(c Collective, bytes float64, algorithm, protocol string) (Estimate, error) {
	return m.estimate(c, bytes, algorithm, protocol, fitted)
}

// EstimateSweep is Estimate at every size.
func (m Machine) EstimateSweep(c Collective, sizes []float64, algorithm, protocol string) ([]Estimate, error) {
	out := make([]Estimate, 0, len(sizes))
	for _, s := range sizes {
		e, err := m.Estimate(c, s, algorithm, protocol)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// resolve cuts the node to the GPUs in use and checks the inputs.
func (m Machine) resolve() (Node, int, string, error) {
	node := m.Node
	if node.GPUs < 1 {
		return Node{}, 0, "", fmt.Errorf("%w: the machine has no GPUs (set Node to a preset)", ErrParams)
	}
	if m.GPUsPerNode > 0 {
		var err error
		if node, err = node.WithGPUs(m.GPUsPerNode); err != nil {
			return Node{}, 0, "", err
		}
	}
	if m.Nodes < 0 {
		return Node{}, 0, "", fmt.Errorf("%w: %d nodes", ErrParams, m.Nodes)
	}
	family, err := NCCLFamily(m.NCCL)
	if err != nil {
		return Node{}, 0, "", err
	}
	return node, max(m.Nodes, 1), family, nil
}

// Tuner returns NCCL's tuning table for the machine.
func (m Machine) Tuner() (TunerTable, error) {
	node, nodes, family, err := m.resolve()
	if err != nil {
		return TunerTable{}, err
	}
	topo := NCCLTopology(node, nodes, family)
	topo.NVLSDisable = m.NVLSOff
	return Tune(topo)
}

func (m Machine) estimate(c Collective, bytes float64, algorithm, protocol string, k calibration) (Estimate, error) {
	if !(bytes >= 0) || math.IsInf(bytes, 0) {
		return Estimate{}, fmt.Errorf("%w: size %v", ErrParams, bytes)
	}
	if m.Harness.ThreadGPUs < 0 || m.Harness.IssueUs < 0 || !(m.Harness.IssueUs < math.Inf(1)) {
		return Estimate{}, fmt.Errorf("%w: harness %+v: want ThreadGPUs and IssueUs >= 0", ErrParams, m.Harness)
	}
	if m.Harness.Host != "" && m.Harness.Host != "lab" {
		return Estimate{}, fmt.Errorf("%w: harness host %q: want \"\" (published hosts) or \"lab\"", ErrParams, m.Harness.Host)
	}
	node, nodes, _, err := m.resolve()
	if err != nil {
		return Estimate{}, err
	}
	fa, err := NCCLAlgorithm(algorithm)
	if err != nil {
		return Estimate{}, err
	}
	fp, err := NCCLProtocol(protocol)
	if err != nil {
		return Estimate{}, err
	}
	scale := node.NIC.NetLatencyScale
	if scale == 0 {
		scale = 1
	}
	switch node.NIC.NetLatencyFit {
	case "efa":
		node.NIC.NetLatency = k.efa * scale
	case "tcpxo":
		node.NIC.NetLatency = k.tcpxo * scale
	}
	if isP2P(c) {
		return m.estimateP2P(c, bytes, node, nodes, fa, fp, k)
	}
	mm := m
	mm.Node, mm.GPUsPerNode = node, 0
	T, err := mm.Tuner()
	if err != nil {
		return Estimate{}, err
	}
	f, err := T.Force(c, bytes, fa, fp)
	if err != nil {
		return Estimate{}, err
	}
	ch := f.Forced
	peak, err := peakBusBW(node, nodes, c, ch.Algorithm, ch.Protocol, T.llMax, k)
	if err != nil {
		return Estimate{}, err
	}
	ranks := node.GPUs * nodes
	e := Estimate{Collective: c, Bytes: bytes, Ranks: ranks, Nodes: nodes, Algorithm: ch.Algorithm, Protocol: ch.Protocol,
		LatencyUs: ch.LatencyUs, PeakBusBWGBps: peak, NCCLTimeUs: ch.TimeUs}
	e.FloorUs = float64(max(m.Harness.ThreadGPUs, 1)) * m.issueUs(k)
	factor := BusBWFactor(c, ranks)
	if peak > 0 && factor > 0 {
		e.BandwidthUs = bytes * factor / (peak * 1e3)
		if ch.Algorithm == "NVLS" || ch.Algorithm == "NVLSTree" {
			loop := nvlsLoopBytes(ch.Algorithm, bytes, node.ComputeCapability, node.GPUs, nodes)
			e.FillUs = k.nvlsFill * math.Min(bytes, loop) * factor / (peak * 1e3)
		}
		if ch.Algorithm == "Ring" && nodes == 1 {
			if nc := T.channels(c, aRing, protoIndex(ch.Protocol), bytes); nc > 0 {
				loop := float64(nc) * ringChunkBytes(c, ch.Protocol)
				e.FillUs = k.ringFill * math.Min(bytes, loop) * factor / (peak * 1e3)
			}
		}
	}
	e.finish(factor, node, nodes, m.Harness)
	return e, nil
}

// finish takes the time as the larger of the GPUs' time (NCCL's latency,
// the pipeline fill, the bandwidth term) and the host floor, which
// overlap (Estimate.FloorUs), and derives the rates, the bound and the
// constants the estimate rests on; factor is nccl-tests' busbw factor.
func (e *Estimate) finish(factor float64, node Node, nodes int, h Harness) {
	e.TimeUs = math.Max(e.LatencyUs+e.FillUs+e.BandwidthUs, e.FloorUs)
	if e.TimeUs > 0 {
		e.AlgBWGBps = e.Bytes / (e.TimeUs * 1e3)
		e.BusBWGBps = e.AlgBWGBps * factor
	}
	e.Bound = "bandwidth"
	if e.HostBound() || e.LatencyUs+e.FillUs > e.BandwidthUs {
		e.Bound = "latency"
	}
	e.Constants = restsOn(node, nodes, e.Collective, *e, h)
}

// LatencyTermUs is the time the bandwidth term does not explain: NCCL's
// latency and the pipeline fill, or, where the host floor is the longer,
// the floor less the bandwidth term it hides.
func (e Estimate) LatencyTermUs() float64 { return e.TimeUs - e.BandwidthUs }

// HostBound reports whether the host floor is longer than the GPUs' time:
// the operation then takes the host's time whatever its size.
func (e Estimate) HostBound() bool { return e.FloorUs > e.LatencyUs+e.FillUs+e.BandwidthUs }

// issueUs is the harness's host issue time per GPU, in microseconds.
func (m Machine) issueUs(k calibration) float64 {
	switch {
	case m.Harness.IssueUs > 0:
		return m.Harness.IssueUs
	case m.Harness.Host == "lab":
		return k.labIssue
	}
	return k.issue
}

// restsOn names the fitted constants an estimate used, in the order
// peakBusBW and the floor apply them.
func restsOn(node Node, nodes int, c Collective, e Estimate, h Harness) []string {
	var out []string
	switch e.Algorithm {
	case "Ring", "Tree", "PAT", "P2P":
		if node.Intra.Kind != "pcie" && !gatherRing(c, e.Algorithm) {
			out = append(out, "FitRingEfficiency")
		}
	}
	if node.NoP2P {
		out = append(out, "FitSHMEfficiency")
	}
	if nodes > 1 {
		out = append(out, "FitNetEfficiency")
		switch node.NIC.NetLatencyFit {
		case "efa":
			out = append(out, "FitEFALatency")
		case "tcpxo":
			out = append(out, "FitTCPXOLatency")
		}
	}
	if gatherRing(c, e.Algorithm) {
		out = append(out, "FitGatherLocalStep")
	}
	if e.Protocol == "LL" && e.Algorithm != "P2P" {
		out = append(out, "FitLLEfficiency")
	}
	if e.FillUs > 0 && e.LatencyUs+e.FillUs >= e.FloorUs {
		if e.Algorithm == "Ring" {
			out = append(out, "FitRingFillLoops")
		} else {
			out = append(out, "FitNVLSFillLoops")
		}
	}
	if e.FloorUs > e.LatencyUs+e.FillUs && h.IssueUs == 0 {
		if h.Host == "lab" {
			out = append(out, "FitLabIssueUs")
		} else {
			out = append(out, "FitIssueUs")
		}
	}
	return out
}

// ringShare is the share of NCCL's in-node rating a ring, tree or PAT
// reaches: FitRingEfficiency over NVLink, whose rating NCCL sets near the
// link's payload rate (ncclTopoNVLinkBw, 20.6 of 25 GB/s on Hopper); all
// of it over PCIe, whose rating NCCL already sets below what a PCIe ring
// carries (24 GB/s for PCIe 4.0 x16, topo.cc; a ring of 4 GPUs on PCIe
// 4.0 reaches 25.95 GB/s in tinygrad/open-gpu-kernel-modules#36, row
// tinygrad36-4090x4-p2p-1g). Applying both counted the PCIe overhead
// twice: -13% on those rows under cross-validation, -6% without.
func ringShare(intra Link, k calibration) float64 {
	if intra.Kind == "pcie" {
		return 1
	}
	return k.ring
}

// peakBusBW is the bus bandwidth (nccl-tests' busbw, GB/s) an algorithm
// and protocol reach at large sizes, from the links as NCCL rates them:
//
//   - B, each GPU's in-node rate (Link.NCCLBandwidth: NVLink links x
//     NCCL's per-link rate, or PCIe width x NCCL's per-lane rate), times
//     FitSHMEfficiency where GPUs have no peer-to-peer; rings, trees and
//     PAT get FitRingEfficiency of it over NVLink, all of it over PCIe
//     (ringShare);
//   - N, each node's network rate (NICs x port rate x FitNetEfficiency).
//
// Ring: R = B x FitRingEfficiency on one node, min(R, N) across nodes (every ring crosses each
// node boundary once each way). Tree (NCCL's double binary tree of
// nodes, a chain inside each): at most R; across two nodes each node
// sends and receives the whole buffer once (busbw 2(n-1)/n x N), across
// more twice ((n-1)/n x N). NVLS all_reduce: NCCL 2.28's formula with the NVLS graph's rate
// unrounded, 2 B eff (nCh-1)/(nCh+1), nCh = min(32, GPUs) channels
// (tuning.cc and search.cc, v2.28.9-1); all_gather and reduce_scatter
// B eff. NVLSTree: the lower of NVLS in the node and the tree's
// network bound. PAT (one GPU per node): min(R, N). Protocols: LL128 x 0.92, LL
// half the link capped at NCCL's llMaxBws, times FitLLEfficiency
// (tuning.cc). all_gather and reduce_scatter over rings and PAT take B
// whole as R, and the ring's loop: each loop runs n steps on n GPUs, of
// which n-1 cross a link (src/device/all_gather.h: directCopySend, n-2
// directRecvCopyDirectSend, directRecv; reduce_scatter.h: send, n-2
// recvReduceSend, recvReduceCopy; v2.28.9-1), where tuning.cc rates the
// ring by the n-1 alone. The local step costs FitGatherLocalStep link
// steps, so the in-node rate is B (n-1)/(n-1+FitGatherLocalStep): on one
// node the result is scaled by it, across nodes it bounds the in-node
// leg only (the network leg has FitNetEfficiency).
func peakBusBW(node Node, nodes int, c Collective, algorithm, protocol string, llMax float64, k calibration) (float64, error) {
	g := node.GPUs
	n := g * nodes
	B := ncclIntraGBps(node.Intra)
	if node.NoP2P {
		B *= k.shm
	}
	N := node.NIC.NCCLBandwidth * float64(node.NICs) * k.net
	if node.NIC.NCCLBandwidth == 0 {
		N = node.NIC.Beta() / 1e9 * float64(node.NICs) * k.net
	}
	if nodes > 1 && N <= 0 {
		return 0, fmt.Errorf("%w: %d nodes of %s but no network (NICs %d)", ErrParams, nodes, node.Name, node.NICs)
	}
	// between is the tree's network bound: across two nodes each node
	// sends and receives the buffer once, across more twice.
	between := func() float64 {
		switch {
		case nodes == 1:
			return math.Inf(1)
		case nodes == 2:
			return 2 * float64(n-1) / float64(n) * N
		}
		return float64(n-1) / float64(n) * N
	}
	nvls := func(coll Collective) float64 {
		eff := nvlsEfficiencyFor(node.ComputeCapability)
		if coll != AllReduce {
			return B * eff
		}
		ch := float64(min(32, g))
		return 2 * B * eff * (ch - 1) / (ch + 1)
	}
	gather := gatherRing(c, algorithm)
	R := B * ringShare(node.Intra, k)
	if gather {
		R = B
	}
	var bb float64
	switch algorithm {
	case "Ring":
		bb = R
		if nodes > 1 {
			bb = math.Min(R, N)
		}
	case "Tree":
		bb = math.Min(R, between())
	case "NVLS":
		bb = nvls(c)
	case "NVLSTree":
		bb = math.Min(nvls(AllReduce), between())
	case "PAT":
		bb = math.Min(R, N)
	default:
		return 0, fmt.Errorf("%w: no bandwidth model for %s (no preset has a CollNet network)", ErrUnsupported, algorithm)
	}
	switch protocol {
	case "LL128":
		bb *= 0.92
	case "LL":
		half := bb / 2
		if llMax > 0 {
			half = math.Min(half, llMax)
		}
		bb = half * k.ll
	}
	if gather {
		share := float64(n-1) / (float64(n-1) + k.gatherStep)
		if nodes == 1 {
			bb *= share
		} else {
			bb = math.Min(bb, B*share)
		}
	}
	return bb, nil
}

// gatherRing says whether c runs as all_gather or reduce_scatter over a
// ring or PAT, the runs FitGatherLocalStep shapes.
func gatherRing(c Collective, algorithm string) bool {
	return (c == AllGather || c == ReduceScatter) && (algorithm == "Ring" || algorithm == "PAT")
}

// ringChunkBytes is the data one ring step of one channel moves at full
// size, by protocol (NVIDIA/nccl v2.28.9-1: src/init.cc DEFAULT_BUFFSIZE
// 4 MiB, DEFAULT_LL_BUFFSIZE and DEFAULT_LL128_BUFFSIZE; NCCL_STEPS 8;
// src/include/collectives.h: ALLREDUCE/ALLGATHER/REDUCESCATTER_CHUNKSTEPS
// NCCL_STEPS/2, BROADCAST_CHUNKSTEPS 1; src/enqueue.cc calcCollChunking:
// LL halves the step, LL128 carries 15 data words of 16).
func ringChunkBytes(c Collective, protocol string) float64 {
	const steps = 8
	switch protocol {
	case "LL":
		return 8 * 512 * steps * 16 / steps / 2
	case "LL128":
		return 120 * 640 * steps * 8 / steps / 16 * 15
	}
	chunkSteps := steps / 2
	if c == Broadcast || c == Reduce {
		chunkSteps = 1
	}
	return float64((4 << 20) / steps * chunkSteps)
}
