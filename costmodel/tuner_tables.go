package costmodel

// This file holds the constants the tuner reads from NCCL's source: the
// tables of src/graph/tuning.cc per version family (the families and what
// each changes are described in tuner.go), the algorithm, protocol and
// hardware indexes of those tables, and NCCL's thread counts and
// thresholds.

import (
	"fmt"
	"strings"
)

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
	// treeCorrection is treeCorrectionFactor: 23 columns (64 B to 256 MiB)
	// through 2.28.9, which Tree reads; 2.29.2 adds a 24th for NVLSTree,
	// kept here with the same first 23 for a later family.
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
// the treeCorrectionFactor of the same file (23 columns; the 24th is
// 2.29.2's, unused here). The lab's own
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
