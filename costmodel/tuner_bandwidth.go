package costmodel

// This file is the bandwidth half of ncclTopoTuneModel (src/graph/
// tuning.cc): the bus bandwidth NCCL gives one algorithm and protocol,
// from its graph's channels and speeds, capped and scaled per family.

import "math"

// busBandwidth is NCCL's bus bandwidth of one cell in GB/s; ok is false
// where NCCL skips the cell (2.28's NVLS with fewer than 2 channels),
// leaving it 0.
func (x tuneContext) busBandwidth(c tuneCell) (float64, bool) {
	t, tb, is228, since223 := x.t, x.tb, x.is228, x.since223
	nNodes, nRanks, ccIdx, index2 := x.nNodes, x.nRanks, x.ccIdx, x.index2
	llMaxBw, perChMaxTreeBw, perChMaxRingLL128Bw, perChMaxTreeLL128Bw := x.llMaxBw, x.perChMaxTreeBw, x.perChMaxRingLL128Bw, x.perChMaxTreeLL128Bw
	ppn, cc := x.ppn, x.t.ComputeCapability
	coll, nsteps, a, p, g := c.coll, c.nsteps, c.a, c.p, c.g
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
			return 0, false
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
	return busBw, true
}
