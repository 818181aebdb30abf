package costmodel

// This file reads a tuned table: the time of one operation (TimeUs), the
// fastest enabled algorithm and protocol (Pick) with the channels and
// threads NCCL gives it, and the cost of forcing one (Force).

import (
	"fmt"
	"strings"
)

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
	since223 := T.tables == &tables223 || T.tables == &tables228
	logSize := log2i(int(int64(bytes) >> 6))
	// 2.28.9 corrects Tree only (ncclTopoGetAlgoTime); the NVLSTree
	// correction on Blackwell with x86 hosts first ships in 2.29.2.
	if a == aTree && logSize >= 0 && logSize < 23 && (c == AllReduce || !since223) {
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
