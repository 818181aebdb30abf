package smi_test

import (
	"fmt"

	"github.com/commlab/commlab/probes/parse/smi"
)

func ExampleParseString() {
	text := `
==============NVSMI LOG==============

Driver Version                            : 565.57.01
CUDA Version                              : 12.7

Attached GPUs                             : 1
GPU 00000000:18:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
    PCI
        GPU Link Info
            PCIe Generation
                Max                       : 5
                Current                   : 4
            Link Width
                Max                       : 16x
                Current                   : 16x
    FB Memory Usage
        Total                             : 81559 MiB
`
	rep, err := smi.ParseString(text)
	if err != nil {
		fmt.Println(err)
		return
	}
	g := rep.GPUs[0]
	topo := rep.Topology()
	fmt.Printf("%s: PCIe %s, %.1f of %.1f GB/s\n", g.Name, topo.GPUs[0].PCIe, topo.GPUs[0].PCIe.GBps(), topo.GPUs[0].PCIe.MaxGBps())
	// Output:
	// NVIDIA H100 80GB HBM3: PCIe Gen4 x16 (max Gen5 x16), 31.5 of 63.0 GB/s
}
