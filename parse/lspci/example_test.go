package lspci_test

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/parse/lspci"
)

func Example() {
	out := `17:00.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)
	Bus: primary=17, secondary=18, subordinate=18, sec-latency=0
	Capabilities: [148 v1] Access Control Services
		ACSCap:	SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+
		ACSCtl:	SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-
18:00.0 3D controller: NVIDIA Corporation GH100 [H200 SXM 141GB] (rev a1)
`
	r, err := lspci.Parse(strings.NewReader(out))
	if err != nil {
		panic(err)
	}
	f := r.Facts()
	for _, a := range f.ACS {
		fmt.Println(a.Address, "redirects peer traffic:", a.Ctl.Redirects())
	}
	fmt.Println("GPU below:", f.Chains["0000:18:00.0"])
	// Output:
	// 0000:17:00.0 redirects peer traffic: true
	// GPU below: [0000:17:00.0]
}

// A tree from `lspci -tv` and the NUMA nodes from `lspci -v`: the path
// nvidia-smi would print between a GPU and the NIC on another root bus.
func ExampleParseTree() {
	tree, err := lspci.ParseTree(strings.NewReader(`-+-[0000:00]-+-00.0  AMD Device 14a4
 |           \-01.1-[01]----00.0  NVIDIA Corporation AD102GL [RTX 6000 Ada Generation]
 \-[0000:20]-+-00.0  AMD Device 14a4
             \-03.1-[21]--+-00.0  Mellanox Technologies MT2910 Family [ConnectX-7]
                          \-00.1  Mellanox Technologies MT2910 Family [ConnectX-7]
`))
	if err != nil {
		panic(err)
	}
	numa, err := lspci.ParseNUMA(strings.NewReader(`/sys/bus/pci/devices/0000:01:00.0/numa_node:0
/sys/bus/pci/devices/0000:21:00.0/numa_node:0
`))
	if err != nil {
		panic(err)
	}
	topo, err := tree.Topology(lspci.TreeOptions{NUMA: numa})
	if err != nil {
		panic(err)
	}
	for _, pair := range [][2]string{{"GPU0", "NIC0"}, {"NIC0", "NIC1"}} {
		p, _ := topo.PathBetween(pair[0], pair[1])
		fmt.Println(pair[0], "to", pair[1], p)
	}
	// Output:
	// GPU0 to NIC0 NODE
	// NIC0 to NIC1 PIX
}
