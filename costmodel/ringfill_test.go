package costmodel

import (
	"math"
	"slices"
	"testing"
)

func TestRingChunkBytes(t *testing.T) {
	for _, tc := range []struct {
		c        Collective
		protocol string
		want     float64
	}{
		{AllReduce, "Simple", 2 << 20},     // 4 MiB / 8 steps x ALLREDUCE_CHUNKSTEPS 4
		{AllGather, "Simple", 2 << 20},     // ALLGATHER_CHUNKSTEPS 4
		{ReduceScatter, "Simple", 2 << 20}, // REDUCESCATTER_CHUNKSTEPS 4
		{Broadcast, "Simple", 512 << 10},   // BROADCAST_CHUNKSTEPS 1
		{AllReduce, "LL", 32 << 10},        // 512 KiB / 8 steps, halved
		{AllReduce, "LL128", 576000},       // 4915200 / 8 steps x 15/16
	} {
		if got := ringChunkBytes(tc.c, tc.protocol); got != tc.want {
			t.Errorf("ringChunkBytes(%s, %s) = %v, want %v", tc.c, tc.protocol, got, tc.want)
		}
	}
}

// The ring's fill grows with the size up to one round of chunks over the
// channels NCCL uses, then stays; across nodes there is none.
func TestRingFill(t *testing.T) {
	node, err := NodeByName("hgx-h200")
	if err != nil {
		t.Fatal(err)
	}
	one := Machine{Node: node, GPUsPerNode: 2, NVLSOff: true}
	fill := func(m Machine, bytes float64) float64 {
		t.Helper()
		e, err := m.Estimate(AllReduce, bytes, "ring", "simple")
		if err != nil {
			t.Fatal(err)
		}
		return e.FillUs
	}
	small, mid, round, large := fill(one, 4<<20), fill(one, 16<<20), fill(one, 1<<30), fill(one, 8<<30)
	if !(small > 0 && small < mid && mid < round) {
		t.Errorf("fill at 4 MiB, 16 MiB, 1 GiB = %.3g, %.3g, %.3g us: want it growing", small, mid, round)
	}
	if math.Abs(large-round) > 1e-9*round {
		t.Errorf("fill at 1 GiB %.6g us, at 8 GiB %.6g us: want it constant past one round", round, large)
	}
	e, err := one.Estimate(AllReduce, 8<<30, "ring", "simple")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(e.Constants, "FitRingFillLoops") {
		t.Errorf("8 GiB ring on one node rests on %v: want FitRingFillLoops among them", e.Constants)
	}
	two := Machine{Node: node, Nodes: 2}
	if f := fill(two, 32<<20); f != 0 {
		t.Errorf("two nodes, ring at 32 MiB: fill %.3g us, want none (not modelled across nodes)", f)
	}
}
