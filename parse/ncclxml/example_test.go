package ncclxml_test

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/parse/ncclxml"
)

// Read an NCCL_TOPO_DUMP_FILE and list GPUs and NICs with their NUMA node.
// The XML is the dump recorded on this project's H200 machine.
func ExampleParseTopology() {
	dump := `<system version="1">
  <cpu host_hash="0xe417157cfd035853" numaid="-1" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="207">
    <pci busid="0000:00:06.0" class="0x030200" vendor="0x10de" device="0x2335" subsystem_vendor="0x10de" subsystem_device="0x18bf" link_speed="32.0 GT/s PCIe" link_width="0">
      <gpu dev="0" sm="90" rank="0" gdr="1"/>
    </pci>
    <nic>
      <net name="eth0" dev="0" latency="0" speed="10000" port="0" guid="0x0" maxconn="65536" gdr="0"/>
    </nic>
  </cpu>
</system>`
	sys, err := ncclxml.ParseTopology(strings.NewReader(dump))
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	for _, g := range sys.GPUs() {
		fmt.Printf("GPU %d at %s sm_%d numa %d, %s\n", g.Dev, g.BusID, g.SM, g.NUMA, g.LinkSpeed)
	}
	for _, n := range sys.NICs() {
		fmt.Printf("NIC %s %d Mb/s gdr %d\n", n.Net.Name, n.Net.Speed, n.Net.GDR)
	}
	// Output:
	// GPU 0 at 0000:00:06.0 sm_90 numa -1, 32.0 GT/s PCIe
	// NIC eth0 10000 Mb/s gdr 0
}

// Read an NCCL_GRAPH_DUMP_FILE: one graph per algorithm search, with the
// GPU order of each channel.
func ExampleParseGraphs() {
	dump := `<graphs version="1">
  <graph id="0" pattern="4" crossnic="0" nchannels="2" speedintra="12" speedinter="12" latencyinter="0" typeintra="SYS" typeinter="PIX" samechannels="0">
    <channel><gpu dev="0"/><gpu dev="1"/><gpu dev="2"/><gpu dev="3"/></channel>
    <channel><gpu dev="0"/><gpu dev="3"/><gpu dev="2"/><gpu dev="1"/></channel>
  </graph>
</graphs>`
	g, err := ncclxml.ParseGraphs(strings.NewReader(dump))
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	for _, gr := range g.Graphs {
		fmt.Println(gr.PatternName, gr.NChannels, gr.TypeIntra, gr.SpeedIntra)
		for i, ch := range gr.Channels {
			fmt.Println(i, ch.GPUOrder())
		}
	}
	// Output:
	// RING 2 SYS 12
	// 0 [0 1 2 3]
	// 1 [0 3 2 1]
}
