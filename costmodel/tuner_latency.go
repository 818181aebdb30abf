package costmodel

// This file is the latency half of ncclTopoTuneModel: the microseconds
// NCCL charges one operation per algorithm and protocol.

import "math"

func log2i(n int) int { return floorLog2(n) }

// latency is NCCL's latency of one cell in microseconds: the base latency
// of the algorithm and protocol plus its hops inside and between nodes.
func (x tuneContext) latency(c tuneCell) float64 {
	tb, is228, since223, nNodes := x.tb, x.is228, x.since223, x.nNodes
	nRanks, ppn, intraHw, hw := x.nRanks, x.ppn, x.intraHw, x.hw
	netOverhead := x.netOverhead
	coll, nsteps, a, p, g := c.coll, c.nsteps, c.a, c.p, c.g
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
	return lat
}
