package costmodel

import (
	"fmt"
	"strings"
)

// The tuner (tuner*.go) re-evaluates NCCL's own performance model, ncclTopoTuneModel
// and ncclTopoGetAlgoTime in NVIDIA/nccl src/graph/tuning.cc, for a
// topology described in a few numbers. Three families of that file are
// modelled, because the tables changed (each checked against the tag
// named, NVIDIA/nccl):
//
//   - "2.19": NCCL 2.19 to 2.22 (six algorithms; Tree/Simple base latency
//     0 and per-hop 28 us; Ring LL at a quarter of the bus bandwidth),
//     as in NVIDIA/nccl commit b6475625fbcaa2c3c0e50eed2fa1255d7514d4a2;
//     older versions are evaluated with these constants too;
//   - "2.23": NCCL 2.23 to 2.27 (v2.23.4-1 ... v2.27.7-1: adds PAT;
//     Tree/Simple 8.4 + 4 us per hop; Ring LL at half; NVLS hop 25 us).
//     Blackwell rows exist from v2.25.1-1 (before, a Blackwell GPU reads
//     the Hopper row); the AllGather/ReduceScatter NVLS rule (intra x
//     (ppn-1)/ppn, inter x 0.9) from v2.27; PAT's factor changes at 2.24
//     (patFactor). "2.24" ... "2.27" name those minors;
//   - "2.28": NCCL 2.28 (v2.28.9-1 src/graph/tuning.cc,
//     ncclTunerConstantsDefaults and nvlsEfficiency): NVLS and NVLSTree
//     bandwidth = the NVLS graph's per-channel rate x nvlsEfficiency (0.85
//     Hopper, 0.74 Blackwell) x (nCh-1)/nCh, doubled for all_reduce, and
//     converted with nRanks/nsteps like a ring; NVLS needs 2 channels;
//     NVLSTree network hop 20.9 us; PAT's own base latency row. v2.28.3-1
//     and v2.28.7-1 differ from v2.28.9-1 in three Blackwell/NVLSTree
//     numbers only (NVLSTree hop 14, Blackwell NVLSTree N4 43.1 and, in
//     2.28.3, Blackwell ring LL128 N2 73.4).
//
// DefaultNCCL is the newest family; the command, the doctor and the
// chapters use it unless a log names a version.
//
// Why the NVLS bandwidth of an 8-GPU H100 board differs between the
// families, and what NVIDIA measures: on one node NCCL's NVLS graph has one
// channel per GPU (search.cc: maxChannels = min(NCCL_MAX_NVLS_ARITY 32,
// nGPUs), minChannels forced to the same) and every channel loads each
// GPU's NVSwitch link once and its head GPU twice, so the speed s is the
// fastest of sm90SpeedArrayIntra with (nCh+1) s <= 370.8: 8 channels of
// 40 GB/s. 2.23 converts nCh x s with 5/6 (busbw 8 x 40 x 5/6 x 14/8 =
// 466.7 GB/s); 2.28 with 0.85 x 7/8 x 2 and nRanks/nsteps (busbw 476 GB/s).
// Both sit near the ~480 GB/s NVIDIA quotes for 8 H100s with NVLink SHARP
// (sjeaugey, NVIDIA/nccl-tests#212, 2024-05-06) and Azure measures (478.87
// GB/s, testdata/published.tsv). The 538.8 and 369.5 GB/s this package
// printed before came from a wrong NVLS graph (16 channels of 23.1 GB/s,
// the ring's share), not from the families.
//
// Latencies are in microseconds and bandwidths in GB/s (1e9 B/s), as NCCL
// keeps them, and the field names say so.
//
// The files: tuner.go tunes a table (Tune); tuner_tables.go holds
// tuning.cc's constants per family; tuner_topology.go the input and the
// rules NCCL derives from it; tuner_bandwidth.go and tuner_latency.go the
// two halves of ncclTopoTuneModel per algorithm and protocol;
// tuner_pick.go reads a table (TimeUs, Pick, Force); tuner_print.go prints
// it as NCCL does; tuner_search.go finds a preset's channels and speeds.

// TunerEntry is one cell of NCCL's tuning table.
type TunerEntry struct {
	Collective Collective
	Algorithm  string
	Protocol   string
	LatencyUs  float64 `unit:"us"`
	// BandwidthGBps is the algorithm bandwidth NCCL divides bytes by;
	// 0 means disabled or not applicable.
	BandwidthGBps float64 `unit:"GB/s"`
	MaxThreads    int
}

// TunerTable is NCCL's table for one topology.
type TunerTable struct {
	Topology TunerTopology
	Entries  []TunerEntry
	ranks    int
	nAlgos   int
	tables   *tuningTables
	lat, bw  [5][7][3]float64
	threads  [7][3]int
	nodes    int
	compCap  int
	nChannel int
	// commChannels is comm->nChannels (see TunerTopology.CollChannels).
	commChannels int
	// llMax is the LL bus bandwidth cap of this topology (llMaxBws).
	llMax float64
}

// Tune computes NCCL's latency and bandwidth for every collective,
// algorithm and protocol on the topology, with the algorithms and
// protocols NCCL enables by default.
func Tune(t TunerTopology) (TunerTable, error) {
	if !knownFamily(t.Family) {
		// A version such as "2.21.5" names its family.
		f, err := NCCLFamily(t.Family)
		if err != nil {
			return TunerTable{}, err
		}
		t.Family = f
	}
	tb, err := t.family()
	if err != nil {
		return TunerTable{}, err
	}
	if t.Nodes < 1 || t.GPUsPerNode < 1 {
		return TunerTable{}, fmt.Errorf("%w: tuner needs nodes >= 1 and GPUs per node >= 1", ErrParams)
	}
	if t.nicPath() < 0 {
		return TunerTable{}, fmt.Errorf("%w: unknown NIC path %q (want PIX, PXB, PXN, PHB or SYS)", ErrParams, t.NICPath)
	}
	if t.Ring.Channels < 0 || t.Tree.Channels < 0 || t.NVLS.Channels < 0 || t.CollNet.Channels < 0 || t.CollChannels < 0 {
		return TunerTable{}, fmt.Errorf("%w: negative channel count", ErrParams)
	}
	// 2.28 keeps every 2.23 rule and adds its own (is228).
	since223 := tb == &tables223 || tb == &tables228
	T := TunerTable{Topology: t, tables: tb, nAlgos: tb.nAlgos}
	nNodes := t.Nodes
	nRanks := t.Nodes * t.GPUsPerNode
	T.ranks, T.nodes, T.compCap, T.nChannel = nRanks, nNodes, t.ComputeCapability, t.Ring.Channels
	T.commChannels = t.CollChannels
	if T.commChannels == 0 {
		T.commChannels = min(2*t.Ring.Channels, ncclMaxCollChannels)
	}
	if tb == &tables228 {
		T.nChannel = T.commChannels
	}
	graphs := [7]TunerGraph{t.Tree, t.Ring, t.CollNet, t.CollNet, t.NVLS, t.NVLS, t.Ring}
	if !t.NVLSSupport || t.NVLSDisable {
		graphs[aNVLS].Channels, graphs[aNVLSTree].Channels = 0, 0
	}
	if !t.CollNetSupport {
		graphs[aCollNetDirect].Channels, graphs[aCollNetChain].Channels = 0, 0
	}

	simpleDefault := ncclSimpleMaxNThreads
	if graphs[aRing].BwIntraGBps*float64(graphs[aRing].Channels) <= ncclPCIBW {
		simpleDefault = 256
	}
	T.threads[aRing][pSimple] = simpleDefault
	T.threads[aTree][pSimple] = ncclSimpleMaxNThreads
	for _, a := range []int{aCollNetDirect, aCollNetChain, aNVLS, aNVLSTree} {
		T.threads[a][pSimple] = ncclMaxNThreads
	}
	T.threads[aRing][pLL], T.threads[aTree][pLL] = ncclLLMaxNThreads, ncclLLMaxNThreads
	T.threads[aRing][pLL128], T.threads[aTree][pLL128] = ncclLL128MaxNThreads, ncclLL128MaxNThreads

	if nRanks > 1 {
		T.compute(t, graphs, since223)
	}
	for c := range ncclFuncs {
		for a := 0; a < T.nAlgos; a++ {
			for p := 0; p < 3; p++ {
				T.Entries = append(T.Entries, TunerEntry{Collective: ncclFuncs[c], Algorithm: ncclAlgos[a],
					Protocol: ncclProtos[p], LatencyUs: T.lat[c][a][p], BandwidthGBps: T.bw[c][a][p], MaxThreads: T.threads[a][p]})
			}
		}
	}
	return T, nil
}

func (T *TunerTable) compute(t TunerTopology, graphs [7]TunerGraph, since223 bool) {
	x := newTuneContext(t, T.tables, T.nodes, T.ranks, since223)
	T.llMax = x.llMaxBw
	for ci, coll := range ncclFuncs {
		nsteps := T.ranks
		switch coll {
		case AllReduce:
			nsteps = 2 * (T.ranks - 1)
		case ReduceScatter, AllGather:
			nsteps = T.ranks - 1
		}
		for a := 0; a < T.nAlgos; a++ {
			if (coll == Broadcast || coll == Reduce) && a != aRing {
				continue
			}
			if (coll == ReduceScatter || coll == AllGather) && a != aPAT && a != aRing && a != aNVLS && a != aCollNetDirect {
				continue
			}
			if coll == AllReduce && a == aPAT {
				continue
			}
			for p := 0; p < 3; p++ {
				if (a == aNVLS || a == aNVLSTree) && p != pSimple {
					continue
				}
				if a == aPAT && (p != pSimple || !(T.nodes == T.ranks && t.ComputeCapability >= 60)) {
					continue
				}
				cell := tuneCell{coll: coll, nsteps: nsteps, a: a, p: p, g: graphs[a]}
				bw, ok := x.busBandwidth(cell)
				if !ok {
					continue
				}
				T.bw[ci][a][p] = bw
				T.lat[ci][a][p] = x.latency(cell)
			}
		}
	}

	// Default enables: LL128 only where NCCL trusts it, NVLSTree only
	// across nodes, CollNet only with a plugin, CollNetDirect only on
	// NVSwitch systems (approximated by NVLink inside the node).
	ll128 := t.ll128Default()
	for c := range ncclFuncs {
		for a := 0; a < T.nAlgos; a++ {
			off := (a == aNVLSTree && T.nodes == 1) ||
				(!t.CollNetSupport && (a == aCollNetDirect || a == aCollNetChain || (a == aNVLS && T.nodes > 1))) ||
				(a == aCollNetDirect && !t.IntraNVLink)
			for p := 0; p < 3; p++ {
				if off || (p == pLL128 && !ll128) {
					T.bw[c][a][p] = 0
				}
			}
		}
	}
}

// tuneContext is what ncclTopoTuneModel reads for every cell of the
// table: the family's constants cut to the topology's compute capability
// and node count, and the topology's shape.
type tuneContext struct {
	t                       TunerTopology
	tb                      *tuningTables
	is228, since223         bool
	nNodes, nRanks          int
	ccIdx, index2           int
	llMaxBw, perChMaxTreeBw float64
	perChMaxRingLL128Bw     float64
	perChMaxTreeLL128Bw     float64
	ppn                     float64
	intraHw, hw             int
	netOverhead             float64
}

// tuneCell is one cell of the table being tuned: a collective (with its
// step count), an algorithm and a protocol, and the algorithm's graph.
type tuneCell struct {
	coll   Collective
	nsteps int
	a, p   int
	g      TunerGraph
}

func newTuneContext(t TunerTopology, tb *tuningTables, nNodes, nRanks int, since223 bool) tuneContext {
	x := tuneContext{t: t, tb: tb, is228: tb == &tables228, since223: since223, nNodes: nNodes, nRanks: nRanks}
	cc := t.ComputeCapability
	switch {
	case cc >= 100 && since223 && t.minor() >= 25: // Blackwell rows from v2.25.1-1
		x.ccIdx = 3
	case cc >= 90:
		x.ccIdx = 2
	case cc >= 80:
		x.ccIdx = 1
	}
	amd := strings.EqualFold(t.CPUVendor, "amd")
	x.index2 = 2
	if nNodes <= 2 {
		x.index2 = nNodes - 1
	}
	index1 := x.ccIdx
	if nNodes > 1 {
		index1 = 0
		if amd {
			index1 = 1
		}
	}
	x.llMaxBw = tb.llMaxBws[index1][x.index2]
	x.perChMaxTreeBw = tb.perChMaxTreeBws[x.ccIdx][x.index2]
	x.perChMaxRingLL128Bw = tb.perChMaxRingLL128Bws[x.ccIdx][x.index2]
	x.perChMaxTreeLL128Bw = tb.perChMaxTreeLL128Bws[x.ccIdx][x.index2]
	x.ppn = float64(nRanks) / float64(nNodes)
	x.intraHw = hwPCI
	if t.IntraNVLink {
		x.intraHw = hwNVLink
	}
	x.hw = x.intraHw
	if nNodes > 1 {
		x.hw = hwNet
	}
	x.netOverhead = 1.0
	if amd {
		x.netOverhead = 2.0
	}
	return x
}
