package nccllog_test

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/parse/nccllog"
)

// Parse a multi-node log and read what a notebook shows: ranks, rings,
// transports per peer. The lines are from NVIDIA/nccl-tests#252.
func ExampleParse() {
	log := `kolyoz1:27225:27907 [3] NCCL INFO comm 0x558b580881d0 rank 3 nRanks 8 nNodes 2 localRanks 4 localRank 3 MNNVL 0
kolyoz1:27225:27907 [3] NCCL INFO Trees [0] -1/-1/-1->3->2 [1] 0/-1/-1->3->2
kolyoz1:27223:27908 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/CUMEM
kolyoz2:25146:25827 [0] NCCL INFO Channel 00/0 : 3[3] -> 4[0] [receive] via NET/IBext_v8/0/GDRDMA
`
	l, err := nccllog.Parse(strings.NewReader(log))
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("hosts:", l.Hosts(), "ranks:", l.NRanks())
	r := l.Ranks[0]
	fmt.Printf("rank %d of %d on %s, %d nodes\n", r.Rank, r.NRanks, r.Source.Host, r.NNodes)
	for _, t := range l.Trees {
		fmt.Printf("tree channel %d: rank %d parent %d children %v\n", t.Channel, t.Rank, t.Parent, t.Children)
	}
	for _, c := range l.Connections {
		fmt.Printf("channel %d: %d -> %d via %s (%s)\n", c.Channel, c.FromRank, c.ToRank, c.Transport, c.Kind)
	}
	// Output:
	// hosts: [kolyoz1 kolyoz2] ranks: 8
	// rank 3 of 8 on kolyoz1, 2 nodes
	// tree channel 0: rank 3 parent 2 children [-1 -1 -1]
	// tree channel 1: rank 3 parent 2 children [0 -1 -1]
	// channel 0: 1 -> 2 via P2P/CUMEM (P2P)
	// channel 0: 3 -> 4 via NET/IBext_v8/0/GDRDMA (NET)
}

// Read the algorithm and protocol NCCL chose per size, and the tuning
// model's numbers for one cell. The choice lines are from
// NVIDIA/nccl#1453, the table rows from NVIDIA/nccl#1519 (that excerpt
// lacks the Algorithm line, so NCCL's algorithm order is assumed and the
// table says so in AlgorithmsAssumed).
func ExampleLog_ChoicesFor() {
	log := `[0] h100clust-worker-1:497888:497888 [0] NCCL INFO 262144 Bytes -> Algo 0 proto 1 time 54.707825
[0] h100clust-worker-1:497888:497888 [0] NCCL INFO 536870912 Bytes -> Algo 1 proto 2 time 5679.147949
nathan-h100-1:14492:14605 [0] NCCL INFO   Protocol    |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |
nathan-h100-1:14492:14605 [0] NCCL INFO  Max NThreads |            512 |            640 |            512 |            512 |            640 |            512 |              0 |              0 |            640 |
nathan-h100-1:14492:14605 [0] NCCL INFO     AllGather |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |    23.3/   5.3 |    44.6/   0.0 |    70.0/  21.3 |     5.6/   0.0 |     5.6/   0.0 |    44.0/   0.0 |
`
	l, err := nccllog.Parse(strings.NewReader(log))
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	for _, c := range l.ChoicesFor("all_reduce") {
		fmt.Printf("%d bytes: %s/%s, model %.1f us\n", c.Bytes, c.Algorithm, c.Protocol, c.TimeUs)
	}
	e, ok := l.Tuning[0].Lookup("AllGather", "Ring", "Simple")
	fmt.Println(ok, e.LatencyUs, e.BandwidthGBs, e.MaxThreads)
	// Output:
	// 262144 bytes: TREE/LL128, model 54.7 us
	// 536870912 bytes: RING/SIMPLE, model 5679.1 us
	// true 70 21.3 512
}

// A benchmark makes the same call many times; NCCL logs each.
func ExampleLog_FoldedChoices() {
	call := nccllog.Choice{Op: "AllReduce", Bytes: 1 << 30, Algorithm: "RING", Protocol: "SIMPLE", ChannelLo: 0, ChannelHi: 31}
	l := &nccllog.Log{}
	for line := 1; line <= 20; line++ {
		c := call
		c.Source.Line = line
		l.Choices = append(l.Choices, c)
	}
	l.Choices = append(l.Choices, nccllog.Choice{Op: "AllGather", Bytes: 4096, Algorithm: "RING", Protocol: "LL", ChannelLo: -1})
	for _, f := range l.FoldedChoices() {
		fmt.Printf("%s %d B %s/%s x%d\n", f.Choice.Op, f.Choice.Bytes, f.Choice.Algorithm, f.Choice.Protocol, f.Count)
	}
	// Output:
	// AllReduce 1073741824 B RING/SIMPLE x20
	// AllGather 4096 B RING/LL x1
}
