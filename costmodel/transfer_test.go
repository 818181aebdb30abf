package costmodel

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// TestTransfers holds the three paths to numbers worked out by hand for an
// HGX H200 node: PCIe Gen5 x16 63.02 GB/s, NDR 50 GB/s, 8 NICs for 8 GPUs,
// two sockets of DDR5-4800 x 8 channels (307.2 GB/s each).
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
		hostPerByte                 float64
		ceiling, nodeCeiling        float64
		needed                      float64
	}{
		// Alone, TCP is bound by the CPU's copy at half the socket's
		// memory rate; together, 8 GPUs x 50 GB/s x 2 directions x 4
		// bytes of host traffic each need 3.2 TB/s of 614 GB/s.
		{"TCP sockets", 4, 2, 4, 4, 50e9, 2 * memory / (2 * 4 * 8), 2 * 4 * 50e9 * 8},
		{"RDMA through host memory", 2, 0, 4, 2, 50e9, 2 * memory / (2 * 2 * 8), 2 * 2 * 50e9 * 8},
		{"GPUDirect RDMA", 0, 0, 2, 0, 50e9, 50e9, 0},
	}
	if len(paths) != len(tests) {
		t.Fatalf("%d paths, want %d", len(paths), len(tests))
	}
	for i, tt := range tests {
		p := paths[i]
		if p.Name != tt.name || p.Copies != tt.copies || p.CPUCopies != tt.cpuCopies || p.PCIeCrossings != tt.crossing || p.HostMemoryPerByte != tt.hostPerByte {
			t.Errorf("%s: got %s copies %d (cpu %d) crossings %d host/byte %g", tt.name, p.Name, p.Copies, p.CPUCopies, p.PCIeCrossings, p.HostMemoryPerByte)
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
}

func ExampleTransfers() {
	paths, _ := Transfers(DefaultTransferNode())
	for _, p := range paths {
		fmt.Printf("%s: %d copies, %d PCIe crossings, alone %v, all 8 GPUs at once %v each\n",
			p.Name, p.Copies, p.PCIeCrossings, Bandwidth{BytesPerSecond: p.Ceiling}, Bandwidth{BytesPerSecond: p.NodeCeiling})
	}
	// Output:
	// TCP sockets: 4 copies, 4 PCIe crossings, alone 50 GB/s, all 8 GPUs at once 9.6 GB/s each
	// RDMA through host memory: 2 copies, 4 PCIe crossings, alone 50 GB/s, all 8 GPUs at once 19.2 GB/s each
	// GPUDirect RDMA: 0 copies, 2 PCIe crossings, alone 50 GB/s, all 8 GPUs at once 50 GB/s each
}
