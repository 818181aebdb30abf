package nccllog_test

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/probes/parse/nccllog"
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
