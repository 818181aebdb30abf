package costmodel

import (
	"math"
	"testing"
)

// sendrecv and all_to_all follow NCCL's point-to-point operations
// (p2p.go): latency from NCCL's Ring/LL figures, one hop per peer in the
// node; bandwidth from each GPU's share of its links; busbw as
// nccl-tests defines it.
func TestEstimateP2P(t *testing.T) {
	a100, _ := NodeByName("dgx-a100")
	one := Machine{Node: a100}
	tb := tables228
	tests := []struct {
		name      string
		m         Machine
		c         Collective
		bytes     float64
		latencyUs float64
		// busbw over the peak per-GPU rate the bandwidth term uses
		rate float64
	}{
		{"sendrecv, one peer over NVLink", one, SendRecv, 1 << 30,
			tb.baseLat[aRing][pLL] + tb.hwLat[hwNVLink][aRing][pLL], ncclIntraGBps(a100.Intra) * FitRingEfficiency},
		{"all_to_all, 7 peers over NVLink", one, AllToAll, 1 << 30,
			tb.baseLat[aRing][pLL] + 7*tb.hwLat[hwNVLink][aRing][pLL], ncclIntraGBps(a100.Intra) * FitRingEfficiency},
	}
	for _, tt := range tests {
		e, err := tt.m.Estimate(tt.c, tt.bytes, "", "")
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if e.Algorithm != "P2P" || e.Protocol != "Simple" {
			t.Errorf("%s: pick %s/%s", tt.name, e.Algorithm, e.Protocol)
		}
		if math.Abs(e.LatencyUs-tt.latencyUs) > 1e-9 {
			t.Errorf("%s: latency %g us, want %g", tt.name, e.LatencyUs, tt.latencyUs)
		}
		if got := e.BusBWGBps / BusBWFactor(tt.c, e.Ranks) * e.TimeUs / e.BandwidthUs; math.Abs(got-tt.rate*bwShare(tt.c, e.Ranks)) > 1e-6*tt.rate {
			t.Errorf("%s: algbw at the bandwidth term %g GB/s, want %g", tt.name, got, tt.rate*bwShare(tt.c, e.Ranks))
		}
	}
	small, err := one.Estimate(AllToAll, 128, "", "")
	if err != nil || small.Protocol != "LL" || small.Bound != "latency" {
		t.Errorf("128 B all_to_all: %+v, %v", small, err)
	}
	// Across nodes the remote peers' share rides the NICs: all_to_all on
	// two nodes is slower than on one for the same buffer.
	two := Machine{Node: a100, Nodes: 2}
	far, err := two.Estimate(AllToAll, 1<<30, "", "")
	near, _ := one.Estimate(AllToAll, 1<<30, "", "")
	if err != nil || !(far.BandwidthUs > near.BandwidthUs) || !(far.LatencyUs > near.LatencyUs) {
		t.Errorf("two nodes: %+v against one node %+v (%v)", far, near, err)
	}
	if _, err := one.Estimate(SendRecv, 1, "", "simple"); err == nil {
		t.Error("a protocol forced on sendrecv was taken")
	}
}

// bwShare is the share of the buffer one GPU moves over its in-node
// links: all of it for sendrecv, (n-1)/n for all_to_all.
func bwShare(c Collective, n int) float64 {
	if c == AllToAll {
		return float64(n) / float64(n-1)
	}
	return 1
}
