package cudasamples_test

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/parse/cudasamples"
)

// Two GPUs each on its own root port: the copy staged through host memory
// against the one that goes peer to peer.
func ExampleParseP2P() {
	rep, err := cudasamples.ParseP2P(strings.NewReader(`[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]
Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)
   D\D     0      1
     0 140.75  22.23
     1  22.32 813.80
Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)
   D\D     0      1
     0 802.93  26.33
     1  26.32 833.33
`))
	if err != nil {
		panic(err)
	}
	off, _ := rep.Bandwidth(false, false)
	on, _ := rep.Bandwidth(false, true)
	fmt.Printf("staged %.2f GB/s, peer to peer %.2f GB/s\n", off.At(0, 1), on.At(0, 1))
	// Output:
	// staged 22.23 GB/s, peer to peer 26.33 GB/s
}
