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
	fmt.Printf("%s at %s: PCIe Gen%d x%d (max Gen%d x%d), %.0f MiB\n", g.Name, smi.NormalizeBusID(g.BusID),
		g.PCIeGenCurrent, g.PCIeWidthCurrent, g.PCIeGenMax, g.PCIeWidthMax, g.MemoryTotalMiB)
	// Output:
	// NVIDIA H100 80GB HBM3 at 0000:18:00.0: PCIe Gen4 x16 (max Gen5 x16), 81559 MiB
}
