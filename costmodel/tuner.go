package costmodel

import (
	"fmt"
	"math"
	"strings"
)

// This file re-evaluates NCCL's own performance model, ncclTopoTuneModel
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

// DefaultNCCL is the NCCL version family the tuner and Estimate use when
// none is named: the newest modelled.
const DefaultNCCL = "2.28"

// NCCLFamily returns the tuner family that models an NCCL version such as
// "2.21.5", "2.28.9+cuda13.0" or "2.27": "2.19" up to 2.22 (and for older
// versions, the nearest modelled), "2.23" ... "2.27" for those minors, and
// "2.28" from 2.28 on (newer versions are evaluated with 2.28's
// constants). "" gives DefaultNCCL.
func NCCLFamily(version string) (string, error) {
	v := strings.TrimSpace(version)
	if v == "" {
		return DefaultNCCL, nil
	}
	f := strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == '+' || r == '-' || r == ' ' })
	var major, minor int
	if len(f) < 2 {
		return "", fmt.Errorf("%w: NCCL version %q: want major.minor, e.g. 2.28 or 2.21.5", ErrParams, version)
	}
	if _, err := fmt.Sscanf(f[0]+" "+f[1], "%d %d", &major, &minor); err != nil || major != 2 || minor < 0 {
		return "", fmt.Errorf("%w: NCCL version %q: want 2.x", ErrParams, version)
	}
	switch {
	case minor >= 28:
		return "2.28", nil
	case minor >= 23:
		return fmt.Sprintf("2.%d", minor), nil
	}
	return "2.19", nil
}

// NCCL's algorithm and protocol names, in the order of its tables.
var (
	ncclAlgos  = []string{"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"}
	ncclProtos = []string{"LL", "LL128", "Simple"}
	ncclFuncs  = []Collective{Broadcast, Reduce, AllGather, ReduceScatter, AllReduce}
	ncclFuncNm = []string{"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"}
)

const (
	aTree = iota
	aRing
	aCollNetDirect
	aCollNetChain
	aNVLS
	aNVLSTree
	aPAT
)

const (
	pLL = iota
	pLL128
	pSimple
)

const (
	hwNVLink = iota
	hwPCI
	hwNet
)

// tuningTables holds the constants of one family of tuning.cc.
type tuningTables struct {
	nAlgos  int
	baseLat [7][3]float64
	hwLat   [3][7][3]float64
	// Indexed [compCapIndex][nodesIndex]: Volta, Ampere, Hopper, Blackwell
	// by N1, N2, N4+ (LL rows for multi-node use CPU vendor instead).
	llMaxBws             [4][3]float64
	perChMaxRingLL128Bws [4][3]float64
	perChMaxTreeLL128Bws [4][3]float64
	perChMaxTreeBws      [4][3]float64
	// perChMaxNVLSTreeBws and nvlsEfficiency exist from 2.28 on.
	perChMaxNVLSTreeBws [4][3]float64
	nvlsEfficiency      [4]float64
	// treeCorrection has 24 columns from 2.28 on (NVLSTree uses the 24th);
	// Tree reads only the first 23, as before.
	treeCorrection [3][24]float64
}

var tables219 = tuningTables{
	nAlgos:  6,
	baseLat: [7][3]float64{{6.8, 14.0, 0}, {6.6, 14.0, 8.4}},
	hwLat: [3][7][3]float64{
		{{.6, 1.25, 28}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 23}, {0, 0, 23}},
		{{1.0, 1.9, 28}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}},
		{{5.0, 8.5, 28}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 14}},
	},
	llMaxBws:             [4][3]float64{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}},
	perChMaxRingLL128Bws: [4][3]float64{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {36.7, 36.7, 36.7}},
	perChMaxTreeLL128Bws: [4][3]float64{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {36.7, 36.7, 29.0}},
	perChMaxTreeBws:      [4][3]float64{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {38.7, 41.4, 36.0}},
	treeCorrection: [3][24]float64{
		{1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
		{1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
		{.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
	},
}

var tables223 = tuningTables{
	nAlgos:  7,
	baseLat: [7][3]float64{{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}},
	hwLat: [3][7][3]float64{
		{{.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}},
		{{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}},
		{{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 14}},
	},
	llMaxBws:             [4][3]float64{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}},
	perChMaxRingLL128Bws: [4][3]float64{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {73.4, 73.4, 73.4}},
	perChMaxTreeLL128Bws: [4][3]float64{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {73.4, 73.4, 58.0}},
	perChMaxTreeBws:      [4][3]float64{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {77.4, 82.8, 72.0}},
	treeCorrection:       tables219.treeCorrection,
}

// tables228 is ncclTunerConstantsDefaults of NCCL 2.28 (NVIDIA/nccl
// v2.28.9-1 src/graph/tuning.cc, lines 132-199) with nvlsEfficiency and
// the 24-column treeCorrectionFactor of the same file. The lab's own
// 2.28.9 log (two H200s, NVLS off) checks the Volta to Hopper rows; the
// Blackwell and NVLS numbers are read from the tag and unchecked against
// a log.
var tables228 = tuningTables{
	nAlgos: 7,
	// PAT gets its own base latency row, 8 us (2.23 wrote the 8 inline).
	baseLat: [7][3]float64{{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, aPAT: {8.0, 8.0, 8.0}},
	hwLat: [3][7][3]float64{
		{{.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
		{{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
		{{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}},
	},
	llMaxBws:             tables223.llMaxBws,
	perChMaxRingLL128Bws: [4][3]float64{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {2 * 36.7, 34.6, 2 * 36.7}},
	perChMaxTreeLL128Bws: [4][3]float64{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}},
	perChMaxTreeBws:      [4][3]float64{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}},
	perChMaxNVLSTreeBws:  [4][3]float64{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0, 57.7, 45.5}, {0, 96.0, 43.8}},
	nvlsEfficiency:       [4]float64{0, 0, 0.85, 0.74},
	treeCorrection: [3][24]float64{
		{1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
		{1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
		{.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
	},
}

// NCCL's thread counts (src/include/device.h): NCCL_MAX_NTHREADS 640,
// NCCL_SIMPLE_MAX_NTHREADS 512, NCCL_LL_MAX_NTHREADS 512,
// NCCL_LL128_MAX_NTHREADS 640; PCI_BW 12 GB/s (src/graph/topo.h).
const (
	ncclMaxNThreads       = 640
	ncclSimpleMaxNThreads = 512
	ncclLLMaxNThreads     = 512
	ncclLL128MaxNThreads  = 640
	ncclPCIBW             = 12.0
)

// Per-thread work before NCCL adds channels or threads (src/include/device.h:
// NCCL_LL_THREAD_THRESHOLD 8, NCCL_LL128_THREAD_THRESHOLD 8,
// NCCL_SIMPLE_THREAD_THRESHOLD 64; tuning.cc multiplies Ring/LL by the rank
// count and sets CollNet/Simple to 512). A log prints them as
// "threadThresholds 8/8/64 | 16/8/64 | 512 | 512" for two ranks.
const (
	ncclLLThreadThreshold     = 8
	ncclLL128ThreadThreshold  = 8
	ncclSimpleThreadThreshold = 64
	// ncclMinTrafficPerChannel is scheduleCollTasksToPlan's
	// MinTrafficPerChannel (src/enqueue.cc, 16 KiB).
	ncclMinTrafficPerChannel = 16 << 10
	// ncclMaxCollChannels caps the doubled ring channels; 32 is NCCL's
	// default NCCL_MAX_CTAS, assumed here (set CollChannels from a log's
	// "N coll channels" line where it differs).
	ncclMaxCollChannels = 32
)

// TunerGraph is what NCCL's topology search found for one algorithm: the
// number of channels and the bandwidth of each inside and between nodes,
// as the log prints them ("Pattern 4, crossNic 0, nChannels 16, bw
// 40.000000/40.000000, type NVL/PIX, sameChannels 1").
type TunerGraph struct {
	Channels int
	// BwIntraGBps and BwInterGBps are per channel, GB/s.
	BwIntraGBps float64 `unit:"GB/s"`
	BwInterGBps float64 `unit:"GB/s"`
	// SameChannels is the log's sameChannels flag (ring graph).
	SameChannels bool
	// LatencyInterUs is extra network latency the net plugin reports (0).
	LatencyInterUs float64 `unit:"us"`
}

// TunerTopology is the input of the NCCL-like tuner.
type TunerTopology struct {
	// Family is "2.19", "2.23" ... "2.27" or "2.28" (see the top of
	// tuner.go); "" is DefaultNCCL.
	Family      string
	Nodes       int
	GPUsPerNode int
	// IntraNVLink: GPUs of a node talk over NVLink (else PCIe).
	IntraNVLink bool
	// ComputeCapability is the SM version x 10 (70, 80, 90, 100).
	ComputeCapability int
	// MinComputeCapability is the lowest SM version x 10 among the GPUs
	// when they differ; 0 means every GPU has ComputeCapability. NCCL up
	// to 2.28 enables LL128 only when all GPUs share one (tuning.cc,
	// ncclTopoTuneModel: minCompCap == maxCompCap).
	MinComputeCapability int
	// CPUVendor is "intel" (default), "amd" or "arm"; it sets NCCL's
	// network overhead and its multi-node LL limits.
	CPUVendor string
	// NICPath is how far each GPU is from its NIC, as NCCL's graph
	// "type NVL/PIX" and nvidia-smi topo -m name it: "PIX", "PXB", "PXN",
	// "PHB" or "SYS" (NCCL's graph typeInter). "" takes NICFar ("PHB"
	// when set, else "PIX"). It is a separate input from IntraNVLink: it
	// matters across nodes only, since on one node NCCL removes the NICs
	// and searches with typeInter PIX (paths.cc ncclTopoTrimSystem sets
	// system->inter 0; search.cc ncclTopoCompute starts minTypeInter at
	// PATH_PIX and only reads NIC paths when system->inter is set).
	NICPath string
	// NICFar is true when GPUs reach their NIC through the CPU (PHB/SYS
	// paths), which keeps NCCL from enabling LL128 across nodes. NICPath,
	// when set, takes precedence.
	NICFar bool
	// NVLSSupport: NVSwitch multicast (NVLink SHARP) is usable.
	// CollNetSupport: a CollNet (SHARP) network plugin is loaded.
	NVLSSupport    bool
	CollNetSupport bool
	// NVLSDisable is NCCL_NVLS_ENABLE=0: NVLS and NVLSTree stay off even
	// where the switch supports them, as on the lab's H200 machines, whose
	// logs say "0 nvls channels" (NCCL then builds no NVLS graph:
	// init.cc skips ncclNvlsInit's channels, tuning.cc sees nChannels 0).
	NVLSDisable bool
	// TreePattern is true when the tree graph's pattern is
	// NCCL_TOPO_PATTERN_TREE (log: "Pattern 3": all NIC traffic through
	// one GPU), which NCCL discounts by 0.85.
	TreePattern bool
	Ring        TunerGraph
	Tree        TunerGraph
	CollNet     TunerGraph
	NVLS        TunerGraph
	// CollChannels is the communicator's channel count, as the log's
	// "24 coll channels, ..." line prints it. 0 derives it as NCCL does on
	// one node: the ring graph's channels doubled (ncclTopoPostset), at
	// most 32. It sets TunerChoice.Channels and, in family 2.28, the ring
	// plateau test (older families keep using Ring.Channels there).
	CollChannels int
}

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

func (t TunerTopology) family() (*tuningTables, error) {
	switch t.Family {
	case "2.23", "2.24", "2.25", "2.26", "2.27":
		return &tables223, nil
	case "2.19", "2.20", "2.21", "2.22":
		return &tables219, nil
	case "", "2.28":
		return &tables228, nil
	}
	return nil, fmt.Errorf("%w: unknown NCCL family %q (want 2.19, 2.23 ... 2.27 or 2.28)", ErrParams, t.Family)
}

func knownFamily(f string) bool {
	switch f {
	case "", "2.19", "2.20", "2.21", "2.22", "2.23", "2.24", "2.25", "2.26", "2.27", "2.28":
		return true
	}
	return false
}

// minor returns the NCCL minor version the family string names: "2.19"
// to "2.28" name themselves, "" is DefaultNCCL's.
func (t TunerTopology) minor() int {
	f := t.Family
	if f == "" {
		f = DefaultNCCL
	}
	var m int
	if _, err := fmt.Sscanf(f, "2.%d", &m); err != nil {
		return 28
	}
	return m
}

// NCCL's path types in its order (src/include/graph.h, PATH_LOC ...
// PATH_SYS); the tuner reads only where the NIC lies among them.
var ncclPathTypes = []string{"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS"}

func pathIndex(s string) int {
	for i, p := range ncclPathTypes {
		if strings.EqualFold(p, strings.TrimSpace(s)) {
			return i
		}
	}
	return -1
}

// nicPath is the NIC's path type index; "" takes NICFar.
func (t TunerTopology) nicPath() int {
	if t.NICPath == "" {
		if t.NICFar {
			return pathIndex("PHB")
		}
		return pathIndex("PIX")
	}
	return pathIndex(t.NICPath)
}

// ll128Default is ncclTopoTuneModel's default LL128 rule (src/graph/
// tuning.cc; checked at v2.19.3-1, v2.23.4-1, v2.25.1-1, v2.27.3-1,
// v2.28.9-1 and 2.30.7): LL128 is on only when
//   - the graph's intra-node path is NVLink (typeIntra <= PATH_NVB): a
//     PCIe node never gets it;
//   - across nodes, the NIC is within PXB, or within PXN on sm90+
//     (typeInter <= PATH_PXB || (minCompCap >= 90 && typeInter <=
//     PATH_PXN)); on one node typeInter is PIX (see NICPath);
//   - every GPU has the same compute capability (minCompCap ==
//     maxCompCap; 2.29+ also accept mixed sm90+, a family not modelled);
//   - the compute capability is one NCCL lists: 70, 80 and 90 up to
//     2.24, plus 100 and 120 in 2.25 and 2.26, any from 70 on since 2.27
//     (the CUDA 11.8 two-rank Hopper exception is not modelled).
func (t TunerTopology) ll128Default() bool {
	cc := t.ComputeCapability
	minCC := t.MinComputeCapability
	if minCC == 0 || minCC > cc {
		minCC = cc
	}
	if !t.IntraNVLink || minCC != cc {
		return false
	}
	if t.Nodes > 1 {
		path := t.nicPath()
		if !(path <= pathIndex("PXB") || (minCC >= 90 && path <= pathIndex("PXN"))) {
			return false
		}
	}
	switch m := t.minor(); {
	case m <= 24:
		return cc == 70 || cc == 80 || cc == 90
	case m <= 26:
		return cc == 70 || cc == 80 || cc == 90 || cc == 100 || cc == 120
	}
	return cc >= 70
}

// patFactor is the share of the ring bandwidth NCCL gives PAT
// (ncclTopoTuneModel, "if (a == NCCL_ALGO_PAT) busBw *= ..."): 0.85 in
// v2.23.4-1, 0.75 from v2.24.3-1 on (checked in tuning.cc at v2.23.4-1,
// v2.24.3-1, v2.27.7-1, v2.28.9-1 and 2.30.7). So family "2.23" is 2.23
// itself here; give "2.24" to "2.27" for the later factor.
func (t TunerTopology) patFactor() float64 {
	if t.minor() <= 23 {
		return .85
	}
	return .75
}

func log2i(n int) int { return floorLog2(n) }

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
	tb := T.tables
	is228 := tb == &tables228
	nNodes, nRanks := T.nodes, T.ranks
	cc := t.ComputeCapability
	ccIdx := 0
	switch {
	case cc >= 100 && since223 && t.minor() >= 25: // Blackwell rows from v2.25.1-1
		ccIdx = 3
	case cc >= 90:
		ccIdx = 2
	case cc >= 80:
		ccIdx = 1
	}
	amd := strings.EqualFold(t.CPUVendor, "amd")
	index2 := 2
	if nNodes <= 2 {
		index2 = nNodes - 1
	}
	index1 := ccIdx
	if nNodes > 1 {
		index1 = 0
		if amd {
			index1 = 1
		}
	}
	llMaxBw := tb.llMaxBws[index1][index2]
	T.llMax = llMaxBw
	perChMaxTreeBw := tb.perChMaxTreeBws[ccIdx][index2]
	perChMaxRingLL128Bw := tb.perChMaxRingLL128Bws[ccIdx][index2]
	perChMaxTreeLL128Bw := tb.perChMaxTreeLL128Bws[ccIdx][index2]
	ppn := float64(nRanks) / float64(nNodes)
	intraHw := hwPCI
	if t.IntraNVLink {
		intraHw = hwNVLink
	}
	hw := intraHw
	if nNodes > 1 {
		hw = hwNet
	}
	netOverhead := 1.0
	if amd {
		netOverhead = 2.0
	}

	for ci, coll := range ncclFuncs {
		nsteps := nRanks
		switch coll {
		case AllReduce:
			nsteps = 2 * (nRanks - 1)
		case ReduceScatter, AllGather:
			nsteps = nRanks - 1
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
				if a == aPAT && (p != pSimple || !(nNodes == nRanks && cc >= 60)) {
					continue
				}
				g := graphs[a]
				collnet := a == aCollNetDirect || a == aCollNetChain
				bw := g.BwInterGBps
				if nNodes <= 2 || collnet {
					bw = g.BwIntraGBps
				}
				if a == aNVLS {
					if coll == AllReduce || t.minor() < 27 { // the AllGather/ReduceScatter rule is 2.27's
						bw = math.Min(g.BwIntraGBps, g.BwInterGBps)
					} else {
						bw = math.Min(g.BwIntraGBps*(ppn-1)/ppn, g.BwInterGBps*0.9)
					}
				}
				if a == aNVLSTree {
					inter := g.BwInterGBps
					if nNodes > 2 {
						inter /= 2
					}
					bw = math.Min(g.BwIntraGBps, inter)
				}
				if is228 && (a == aNVLS || a == aNVLSTree) {
					// 2.28: NVLS needs 2 channels; its per-channel rate is
					// the NVLink rate times nvlsEfficiency, less one channel,
					// doubled for all_reduce's two pipelined halves.
					if g.Channels < 2 {
						continue
					}
					nCh := float64(g.Channels)
					intra := g.BwIntraGBps * tb.nvlsEfficiency[ccIdx] * (nCh - 1) / nCh
					if coll == AllReduce {
						intra *= 2
					} else {
						intra *= (ppn - 1) / ppn
					}
					inter := g.BwInterGBps
					if nNodes <= 2 && a == aNVLSTree {
						inter *= 2
					}
					bw = math.Min(intra, inter)
					if a == aNVLSTree {
						bw = math.Min(bw, tb.perChMaxNVLSTreeBws[ccIdx][index2])
					}
				}
				nCh := float64(g.Channels)
				busBw := nCh * bw

				if a == aRing && p == pLL {
					f := 0.5
					if !since223 {
						f = 1.0 / 3.0
						if nNodes > 1 || coll == AllReduce || coll == Reduce {
							f = 1.0 / 4.0
						}
					}
					busBw = math.Min(llMaxBw, busBw*f)
				}
				if a == aRing && p == pLL128 {
					f := 0.92
					if !since223 && ppn < 2 {
						f = 0.7
					}
					busBw = math.Min(busBw*f, nCh*perChMaxRingLL128Bw)
				}
				if a == aTree && (coll == AllReduce || !since223) {
					busBw = math.Min(busBw*.92, nCh*perChMaxTreeBw)
				}
				if a == aTree && p == pLL {
					busBw = math.Min(busBw*1.0/3.8, llMaxBw)
				}
				if a == aTree && p == pLL128 {
					f := 120.0 / 128.0
					if nNodes == 1 {
						f = 7.0 / 9.0
					}
					busBw = math.Min(busBw*f, nCh*perChMaxTreeLL128Bw)
				}
				if a == aTree && t.TreePattern {
					busBw *= .85
				}
				if a == aPAT {
					busBw *= t.patFactor()
				}
				if collnet && p != pSimple {
					busBw = 0
				}
				if a == aCollNetDirect && p == pSimple {
					if coll == AllGather || coll == ReduceScatter {
						if since223 {
							busBw = ppn * math.Min(g.BwIntraGBps, g.BwInterGBps*0.9)
						} else {
							busBw = ppn * bw
							w := (ppn - 1) / (8 - 1)
							busBw *= w*0.85 + (1-w)*0.95
						}
					} else {
						factor := ppn / nCh
						factor -= (factor - 1) / 2
						busBw /= factor
						if cc >= 90 {
							busBw *= .85
						}
					}
				}
				// AllGather/ReduceScatter through the network switch need a
				// CollNet plugin and one NIC head per local GPU.
				if (a == aNVLS || a == aCollNetDirect) && p == pSimple && (coll == AllGather || coll == ReduceScatter) && nNodes > 1 {
					if !t.CollNetSupport || ppn > float64(t.CollNet.Channels) {
						busBw = 0
					}
				}
				convert := !(a == aCollNetDirect && (coll == AllGather || coll == ReduceScatter))
				if since223 {
					convert = !(a != aRing && (coll == AllGather || coll == ReduceScatter))
				}
				if convert {
					ratio := .5
					switch {
					case a == aRing, is228 && (a == aNVLS || a == aNVLSTree):
						ratio = float64(nRanks) / float64(nsteps)
					case a == aNVLS, a == aNVLSTree:
						ratio = 5.0 / 6.0
					}
					busBw *= ratio
				}
				T.bw[ci][a][p] = busBw

				lat := tb.baseLat[a][p]
				intraLat := tb.hwLat[intraHw][a][p]
				interLat := tb.hwLat[hwNet][a][p]
				if since223 && ppn == 1 {
					interLat = tb.hwLat[hwNet][aTree][p]
				}
				interLat += g.LatencyInterUs
				if p == pSimple {
					interLat += g.LatencyInterUs
				}
				localRanks := nRanks / nNodes
				switch a {
				case aRing:
					hop := tb.hwLat[hw][a][p]
					if coll == Reduce || coll == Broadcast {
						if g.SameChannels {
							lat += hop
						} else {
							if p == pSimple {
								hop = tb.hwLat[hw][aTree][p]
							}
							lat += float64(nsteps) * hop
						}
					} else {
						over := 0.0
						if nNodes > 1 {
							over = netOverhead
							if p == pSimple {
								over *= 3
							}
						}
						intraLat = math.Max(intraLat, over)
						var nInter int
						switch {
						case since223 && nNodes == 1:
							nInter = 0
						case since223 && coll == AllReduce:
							nInter = 2 * (nNodes - 1)
						case since223:
							nInter = nNodes - 1
						case coll == AllReduce:
							if nNodes > 1 {
								nInter = 2 * nNodes
							}
						default:
							nInter = nNodes - 1
						}
						lat += float64(nsteps-nInter)*intraLat + float64(nInter)*interLat
					}
				case aTree:
					if coll == AllReduce || !since223 {
						lat += 2 * (float64(localRanks-1)*intraLat + float64(log2i(nNodes))*interLat)
					}
				case aCollNetDirect:
					lat += 2*(math.Min(1, float64(localRanks-1))*intraLat+float64(localRanks-1)*0.4) + interLat
				case aCollNetChain:
					lat += 2*float64(localRanks-1)*intraLat + interLat
				case aNVLS:
					lat = intraLat
					if nNodes > 1 {
						lat += interLat
					}
				case aNVLSTree:
					lat += intraLat + 2*float64(log2i(nNodes))*interLat
				case aPAT:
					// 2.23 writes the 8 us base inline; 2.28 keeps it in
					// baseLatencies, which lat already holds.
					if !is228 {
						lat = 8
					}
					lat += float64(log2i(nNodes))*(interLat/3.5) + float64(nRanks)*2.8
				}
				T.lat[ci][a][p] = lat
			}
		}
	}

	// Default enables: LL128 only where NCCL trusts it, NVLSTree only
	// across nodes, CollNet only with a plugin, CollNetDirect only on
	// NVSwitch systems (approximated by NVLink inside the node).
	ll128 := t.ll128Default()
	for c := range ncclFuncs {
		for a := 0; a < T.nAlgos; a++ {
			off := (a == aNVLSTree && nNodes == 1) ||
				(!t.CollNetSupport && (a == aCollNetDirect || a == aCollNetChain || (a == aNVLS && nNodes > 1))) ||
				(a == aCollNetDirect && !t.IntraNVLink)
			for p := 0; p < 3; p++ {
				if off || (p == pLL128 && !ll128) {
					T.bw[c][a][p] = 0
				}
			}
		}
	}
}

// TimeUs returns NCCL's predicted time in microseconds for one operation
// of the given size with one algorithm and protocol (ncclTopoGetAlgoTime
// with one operation in flight), or ok=false when that pair is disabled.
func (T TunerTable) TimeUs(c Collective, algorithm, protocol string, bytes float64) (us float64, ok bool) {
	ci, a, p := funcIndex(c), algoIndex(algorithm), protoIndex(protocol)
	if ci < 0 || a < 0 || a >= T.nAlgos || p < 0 || T.tables == nil {
		return 0, false
	}
	bw, lat := T.bw[ci][a][p], T.lat[ci][a][p]
	if bw == 0 {
		return 0, false
	}
	is228 := T.tables == &tables228
	since223 := T.tables == &tables223 || is228
	logSize := log2i(int(int64(bytes) >> 6))
	if a == aTree && logSize >= 0 && logSize < 23 && (c == AllReduce || !since223) {
		bw *= T.tables.treeCorrection[p][logSize]
	}
	// 2.28 corrects NVLSTree too, on Blackwell with x86 hosts only.
	if is228 && a == aNVLSTree && c == AllReduce && logSize >= 0 && logSize < 24 &&
		T.compCap >= 100 && !strings.EqualFold(T.Topology.CPUVendor, "arm") {
		bw *= T.tables.treeCorrection[p][logSize]
	}
	if a == aRing && p == pSimple && T.nodes > 1 && c == AllReduce && T.nChannel > 0 &&
		int64(bytes)/int64(T.nChannel*T.ranks) >= 64 {
		if T.compCap < 80 {
			lat *= 1.9
		} else {
			lat *= 1.4
		}
	}
	return lat + bytes/(1000*bw), true
}

// TunerChoice is the tuner's pick for one operation.
type TunerChoice struct {
	Collective Collective
	// Bytes is NCCL's nBytes for the operation: the whole buffer for
	// all_reduce, broadcast and reduce, and for all_gather and
	// reduce_scatter the gathered (largest) buffer, that is ranks times
	// the per-rank size the TUNING log prints ("AllGather: 4 Bytes" on two
	// ranks is 8 here).
	Bytes     float64 `unit:"B"`
	Algorithm string
	Protocol  string
	TimeUs    float64 `unit:"us"`
	// LatencyUs and BandwidthGBps are the table cell behind the pick.
	LatencyUs     float64 `unit:"us"`
	BandwidthGBps float64 `unit:"GB/s"`
	// Channels is how many channels (CTAs) NCCL runs the operation on when
	// it is the only one in its group: the width of the log's
	// "channel{Lo..Hi}" range. It is topoGetAlgoInfo's channel cut for
	// small sizes followed by scheduleCollTasksToPlan's split of the
	// traffic into 16 KiB-traffic cells (src/enqueue.cc, NCCL 2.2x). It is
	// 0 where that is not modelled: CollNet and NVLS algorithms, and
	// Force's forced choice.
	Channels int
}

// Pick returns the fastest enabled algorithm and protocol for one
// operation, scanning in NCCL's order (algorithm, then protocol) and
// keeping the first minimum, as NCCL does.
func (T TunerTable) Pick(c Collective, bytes float64) (TunerChoice, error) {
	ci := funcIndex(c)
	if ci < 0 {
		return TunerChoice{}, fmt.Errorf("%w: NCCL's tuner covers broadcast, reduce, all_gather, reduce_scatter and all_reduce, not %s", ErrUnsupported, c)
	}
	best := TunerChoice{Collective: c, Bytes: bytes, TimeUs: -1}
	for a := 0; a < T.nAlgos; a++ {
		for p := 0; p < 3; p++ {
			us, ok := T.TimeUs(c, ncclAlgos[a], ncclProtos[p], bytes)
			if !ok {
				continue
			}
			if best.TimeUs < 0 || us < best.TimeUs {
				best = TunerChoice{Collective: c, Bytes: bytes, Algorithm: ncclAlgos[a], Protocol: ncclProtos[p],
					TimeUs: us, LatencyUs: T.lat[ci][a][p], BandwidthGBps: T.bw[ci][a][p]}
			}
		}
	}
	if best.TimeUs < 0 {
		return TunerChoice{}, fmt.Errorf("%w: no algorithm is enabled for %s on this topology", ErrUnsupported, c)
	}
	best.Channels = T.channels(c, algoIndex(best.Algorithm), protoIndex(best.Protocol), bytes)
	return best, nil
}

// channels reproduces how many channels NCCL gives one collective that is
// alone in its plan, for Ring, Tree and PAT (0 for the others).
func (T TunerTable) channels(c Collective, a, p int, nBytes float64) int {
	if a != aRing && a != aTree && a != aPAT {
		return 0
	}
	comm := T.commChannels
	if comm < 1 || nBytes < 1 || nBytes > 1<<62 {
		return 0
	}
	n := int64(nBytes)
	// topoGetAlgoInfo: drop channels while each thread would get less
	// than its threshold of work.
	threshold := int64(ncclSimpleThreadThreshold)
	switch p {
	case pLL:
		threshold = ncclLLThreadThreshold
		if a == aRing {
			threshold *= int64(T.ranks)
		}
	case pLL128:
		threshold = ncclLL128ThreadThreshold
	}
	nt := int64(T.threads[a][p])
	nc := int64(comm)
	for n < nc*nt*threshold && nc >= 2 {
		nc--
	}

	// scheduleCollTasksToPlan: the plan's traffic is split evenly over
	// min(nc, comm) channels, in cells of 16 KiB of traffic.
	count := n // bytes one rank holds: NCCL's task->count x element size
	perByte := int64(1)
	switch c {
	case AllReduce:
		perByte = 2
	case AllGather, ReduceScatter:
		perByte = int64(T.ranks)
		count = n / int64(T.ranks)
	}
	if p == pLL {
		perByte *= 4 // LL sends a flag with every 4 bytes of data
	}
	if count < 1 {
		return 0
	}
	traffic := max(int64(ncclMinTrafficPerChannel), count*perByte)
	nPlan := min(nc, int64(comm))
	perChannel := max(int64(ncclMinTrafficPerChannel), traffic/nPlan)
	cellSize := divUp64(divUp64(ncclMinTrafficPerChannel, perByte), 16) * 16
	cells := divUp64(count, cellSize)
	perCell := cellSize * perByte
	cellsPerChannel := min(cells, divUp64(perChannel, perCell))
	cellsLo := cells
	if comm > 1 {
		cellsLo = min(cells, divUp64(perChannel, perCell))
	}
	nMid := (cells - cellsLo) / cellsPerChannel
	cellsHi := (cells - cellsLo) % cellsPerChannel
	nCh := nMid
	if cellsLo != 0 {
		nCh++
	}
	if cellsHi != 0 {
		nCh++
	}
	if int64(comm) < nCh { // more than the communicator has: spread wider cells
		nMid = int64(comm) - 2
		cellsPerChannel = (cells - cellsLo) / (nMid + 1)
		cellsHi = cellsPerChannel + (cells-cellsLo)%(nMid+1)
	}
	if cellsHi == 0 && nMid != 0 {
		cellsHi = cellsPerChannel
		nMid--
	}
	countLo, countHi := cellsLo*cellSize, cellsHi*cellSize
	if countHi != 0 {
		countHi -= cells*cellSize - count
	} else {
		countLo -= cells*cellSize - count
	}
	nCh = nMid
	if countLo != 0 {
		nCh++
	}
	if cellsHi != 0 {
		nCh++
	}
	return int(nCh)
}

func divUp64(a, b int64) int64 { return (a + b - 1) / b }

// ForcedCost compares forcing an algorithm and/or protocol (as
// NCCL_ALGO / NCCL_PROTO do) with the tuner's free pick.
type ForcedCost struct {
	Auto   TunerChoice
	Forced TunerChoice
	// Slowdown is Forced.TimeUs / Auto.TimeUs (1 when the pick agrees).
	Slowdown float64 `unit:"x"`
}

// Force returns the cost of restricting the tuner to one algorithm
// and/or protocol ("" leaves that dimension free).
func (T TunerTable) Force(c Collective, bytes float64, algorithm, protocol string) (ForcedCost, error) {
	auto, err := T.Pick(c, bytes)
	if err != nil {
		return ForcedCost{}, err
	}
	if algorithm != "" && algoIndex(algorithm) < 0 {
		return ForcedCost{}, fmt.Errorf("%w: unknown NCCL algorithm %q (want %s)", ErrParams, algorithm, strings.Join(ncclAlgos[:T.nAlgos], ", "))
	}
	if protocol != "" && protoIndex(protocol) < 0 {
		return ForcedCost{}, fmt.Errorf("%w: unknown NCCL protocol %q (want LL, LL128, Simple)", ErrParams, protocol)
	}
	forced := TunerChoice{TimeUs: -1}
	ci := funcIndex(c)
	for a := 0; a < T.nAlgos; a++ {
		if algorithm != "" && a != algoIndex(algorithm) {
			continue
		}
		for p := 0; p < 3; p++ {
			if protocol != "" && p != protoIndex(protocol) {
				continue
			}
			us, ok := T.TimeUs(c, ncclAlgos[a], ncclProtos[p], bytes)
			if ok && (forced.TimeUs < 0 || us < forced.TimeUs) {
				forced = TunerChoice{Collective: c, Bytes: bytes, Algorithm: ncclAlgos[a], Protocol: ncclProtos[p],
					TimeUs: us, LatencyUs: T.lat[ci][a][p], BandwidthGBps: T.bw[ci][a][p]}
			}
		}
	}
	if forced.TimeUs < 0 {
		return ForcedCost{}, fmt.Errorf("%w: %s/%s is not available for %s on this topology", ErrUnsupported, orAny(algorithm), orAny(protocol), c)
	}
	return ForcedCost{Auto: auto, Forced: forced, Slowdown: forced.TimeUs / auto.TimeUs}, nil
}

func orAny(s string) string {
	if s == "" {
		return "any"
	}
	return s
}

// String prints the table as NCCL prints it at init with
// NCCL_DEBUG_SUBSYS=TUNING (without the log prefix): blocks of three
// algorithms, "latency/bandwidth" per protocol.
func (T TunerTable) String() string {
	var b strings.Builder
	for block := 0; block*3 < T.nAlgos; block++ {
		line := "  Algorithm   |"
		for ba := 0; ba < 3; ba++ {
			a := block*3 + ba
			if a >= T.nAlgos {
				continue
			}
			line += fmt.Sprintf(" %14s   %14s   %14s |", "", ncclAlgos[a], "")
		}
		b.WriteString(line + "\n")
		line = "  Protocol    |"
		for ba := 0; ba < 3; ba++ {
			if block*3+ba >= T.nAlgos {
				continue
			}
			for p := 0; p < 3; p++ {
				line += fmt.Sprintf(" %14s |", ncclProtos[p])
			}
		}
		b.WriteString(line + "\n")
		line = " Max NThreads |"
		for ba := 0; ba < 3; ba++ {
			a := block*3 + ba
			if a >= T.nAlgos {
				continue
			}
			for p := 0; p < 3; p++ {
				line += fmt.Sprintf(" %14d |", T.threads[a][p])
			}
		}
		b.WriteString(line + "\n")
		for c := range ncclFuncs {
			line = fmt.Sprintf("%13s |", ncclFuncNm[c])
			for ba := 0; ba < 3; ba++ {
				a := block*3 + ba
				if a >= T.nAlgos {
					continue
				}
				for p := 0; p < 3; p++ {
					line += fmt.Sprintf("%8.1f/%6.1f |", T.lat[c][a][p], T.bw[c][a][p])
				}
			}
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func funcIndex(c Collective) int {
	for i, f := range ncclFuncs {
		if f == c {
			return i
		}
	}
	return -1
}

func algoIndex(s string) int {
	k := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
	switch k {
	case "collnet":
		return aCollNetDirect
	case "ring":
		return aRing
	case "tree":
		return aTree
	}
	for i, a := range ncclAlgos {
		if strings.EqualFold(a, k) {
			return i
		}
	}
	return -1
}

func protoIndex(s string) int {
	for i, p := range ncclProtos {
		if strings.EqualFold(p, s) {
			return i
		}
	}
	return -1
}

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
