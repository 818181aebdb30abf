package costmodel

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// TestTransfers holds the three paths to numbers worked out by hand for an
// HGX H200 node: PCIe Gen5 x16 63.02 GB/s for the GPU, the NIC and the
// switch's uplink, NDR 50 GB/s, 8 NICs for 8 GPUs, two sockets of
// DDR5-4800 x 8 channels (307.2 GB/s each), TCP at 12 GB/s on one core.
func TestTransfers(t *testing.T) {
	paths, err := Transfers(DefaultTransferNode())
	if err != nil {
		t.Fatal(err)
	}
	pcie := 32e9 * 16 * 128 / 130 / 8
	memory := 8 * 4800e6 * 8.0
	tests := []struct {
		name                        string
		copies, cpuCopies, crossing int
		rootComplex                 int
		hostPerByte, uplinkLoad     float64
		ceiling, nodeCeiling        float64
		needed                      float64
	}{
		// Alone, TCP is bound by the one core that copies at each end;
		// together, 8 GPUs x 50 GB/s x 2 directions x 4 bytes of host
		// traffic each need 3.2 TB/s of 614 GB/s. Each byte crosses the
		// GPU's link and the uplink up to memory, the uplink and the NIC's
		// link down to the NIC: 4 links at each end, 8 in all.
		{"TCP sockets", 4, 2, 8, 4, 4, 2, 12e9, 2 * memory / (2 * 4 * 8), 2 * 4 * 50e9 * 8},
		// Staged RDMA alone: the uplink carries the bytes sent and received
		// twice each way: 63 / 2 = 31.5 GB/s, below the NIC's 50.
		{"RDMA through host memory", 2, 0, 8, 4, 2, 2, pcie / 2, 2 * memory / (2 * 2 * 8), 2 * 2 * 50e9 * 8},
		// GPUDirect RDMA turns at the switch: the GPU's and the NIC's link
		// at each end, no root complex, no uplink.
		{"GPUDirect RDMA", 0, 0, 4, 0, 0, 0, 50e9, 50e9, 0},
	}
	if len(paths) != len(tests) {
		t.Fatalf("%d paths, want %d", len(paths), len(tests))
	}
	for i, tt := range tests {
		p := paths[i]
		if p.Name != tt.name || p.Copies != tt.copies || p.CPUCopies != tt.cpuCopies || p.PCIeCrossings != tt.crossing ||
			p.RootComplexCrossings != tt.rootComplex || p.HostMemoryPerByte != tt.hostPerByte || p.UplinkLoad != tt.uplinkLoad {
			t.Errorf("%s: got %s copies %d (cpu %d) crossings %d (root complex %d) host/byte %g uplink load %g", tt.name, p.Name,
				p.Copies, p.CPUCopies, p.PCIeCrossings, p.RootComplexCrossings, p.HostMemoryPerByte, p.UplinkLoad)
		}
		for _, c := range []struct {
			what      string
			got, want float64
		}{{"ceiling", p.Ceiling, tt.ceiling}, {"node ceiling", p.NodeCeiling, tt.nodeCeiling}, {"host memory needed", p.HostMemoryNeeded, tt.needed}} {
			if math.Abs(c.got-c.want) > 1e-6*c.want+1e-9 {
				t.Errorf("%s: %s %v, want %v", tt.name, c.what, c.got, c.want)
			}
		}
		if p.Bottleneck == "" {
			t.Errorf("%s: no bottleneck named", tt.name)
		}
	}
	if pcie < 50e9 {
		t.Fatal("the worked numbers assume PCIe Gen5 x16 is faster than NDR")
	}
	if _, err := Transfers(TransferNode{}); !errors.Is(err, ErrParams) {
		t.Errorf("empty node: %v, want ErrParams", err)
	}
	bad := DefaultTransferNode()
	bad.TCPCoreBeta = math.NaN()
	if _, err := Transfers(bad); !errors.Is(err, ErrParams) {
		t.Errorf("NaN core rate: %v, want ErrParams", err)
	}
}

// Without a switch (GPU and NIC on root ports of their own) nothing is
// shared below the CPU: staged RDMA reaches the wire, GPUDirect RDMA goes
// through the root complex, and the CPU left out of TCP leaves it at the
// wire too.
func TestTransfersNoSwitch(t *testing.T) {
	n := DefaultTransferNode()
	n.Uplink, n.TCPCoreBeta = Link{}, 0
	n.GPUsPerSwitch = 0
	paths, err := Transfers(n)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if p.Ceiling != 50e9 || p.UplinkLoad != 0 {
			t.Errorf("%s: ceiling %v uplink %v", p.Name, p.Ceiling, p.UplinkLoad)
		}
	}
	if paths[2].RootComplexCrossings != 2 || paths[2].PCIeCrossings != 4 || paths[1].PCIeCrossings != 4 {
		t.Errorf("crossings: GDR %d (rc %d), staged %d", paths[2].PCIeCrossings, paths[2].RootComplexCrossings, paths[1].PCIeCrossings)
	}
	// Two GPU and NIC pairs on one switch halve the staged path again.
	n = DefaultTransferNode()
	n.GPUsPerSwitch = 2
	paths, _ = Transfers(n)
	if want := n.Uplink.Beta() / 4; math.Abs(paths[1].Ceiling-want) > 1 {
		t.Errorf("two pairs per switch: %v, want %v", paths[1].Ceiling, want)
	}
}

func ExampleTransfers() {
	paths, _ := Transfers(DefaultTransferNode())
	for _, p := range paths {
		fmt.Printf("%s: %d copies, %d PCIe crossings, alone %v, all 8 GPUs at once %v each\n",
			p.Name, p.Copies, p.PCIeCrossings, Bandwidth{BytesPerSecond: p.Ceiling}, Bandwidth{BytesPerSecond: p.NodeCeiling})
	}
	// Output:
	// TCP sockets: 4 copies, 8 PCIe crossings, alone 12 GB/s, all 8 GPUs at once 9.6 GB/s each
	// RDMA through host memory: 2 copies, 8 PCIe crossings, alone 31.5077 GB/s, all 8 GPUs at once 19.2 GB/s each
	// GPUDirect RDMA: 0 copies, 4 PCIe crossings, alone 50 GB/s, all 8 GPUs at once 50 GB/s each
}
