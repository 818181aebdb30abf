package nccllog_test

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/parse/nccllog"
)

// Where rank 0 of two GPUs sits in NCCL's rings and trees, from the lines
// its process printed (NCCL 2.28.9's format; the tree of one node is a
// chain, flipped on half of the channels).
func ExampleLog_RootChannels() {
	log := `vm:2580:2598 [0] NCCL INFO Ring 00 : 1 -> 0 -> 1
vm:2580:2598 [0] NCCL INFO Ring 01 : 1 -> 0 -> 1
vm:2580:2599 [1] NCCL INFO Ring 00 : 0 -> 1 -> 0
vm:2580:2598 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] -1/-1/-1->0->1 [2] 1/-1/-1->0->-1 [3] -1/-1/-1->0->1
vm:2580:2599 [1] NCCL INFO Trees [0] -1/-1/-1->1->0 [1] 0/-1/-1->1->-1 [2] -1/-1/-1->1->0 [3] 0/-1/-1->1->-1
`
	l, err := nccllog.Parse(strings.NewReader(log))
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	places := l.RingPlaces(0, 0)
	fmt.Printf("rank 0: %d ring channels, the first %d -> %d -> %d\n", len(places), places[0].Prev, places[0].Rank, places[0].Next)
	root, other := l.RootChannels(0, 0)
	fmt.Println("rank 0 is the root in channels", root, "and not in", other)
	// Output:
	// rank 0: 2 ring channels, the first 1 -> 0 -> 1
	// rank 0 is the root in channels [0 2] and not in [1 3]
}
