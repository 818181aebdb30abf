package lspci_test

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/probes/parse/lspci"
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
