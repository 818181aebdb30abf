package ucxlog_test

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/parse/ucxlog"
)

// A NIXL benchmark's UCX line (openucx/ucx#10854): between two nodes with
// GPUDirect-TCPX NICs, UCX used plain TCP on one interface for every lane.
func ExampleParse() {
	l, err := ucxlog.Parse(strings.NewReader("ucp_context_0 inter-node cfg#2 rma_am(tcp/eth1) amo_am(tcp/eth1) am(tcp/eth1) ka(tcp/eth1)\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l.Configs[0].Scope, l.Transports())
	// Output: inter-node [tcp/eth1]
}
