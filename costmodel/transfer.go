package costmodel

import (
	"fmt"
	"math"
)

// TransferNode is one side of a GPU-to-remote-GPU transfer: what the bytes
// can cross between a GPU's memory and the network.
type TransferNode struct {
	GPUs int
	// GPULink is each GPU's PCIe link; NIC is one network port, NICs how
	// many the node has for GPU traffic.
	GPULink Link
	NIC     Link
	NICs    int
	// HostMemory is one socket's memory bandwidth (reads and writes
	// together), Sockets how many the node has.
	HostMemory Link
	Sockets    int
}

// DefaultTransferNode is an HGX H200 node: 8 GPUs on PCIe Gen5 x16, eight
// 400 Gb/s NDR ports, two sockets of eight DDR5-4800 channels.
func DefaultTransferNode() TransferNode {
	must := func(name string) Link {
		l, err := LinkByName(name)
		if err != nil {
			panic(err) // a preset name below is wrong: TestTransfers catches it
		}
		return l
	}
	return TransferNode{GPUs: 8, GPULink: must("pcie5x16"), NIC: must("ib-ndr"), NICs: 8,
		HostMemory: must("ddr5-4800-8ch"), Sockets: 2}
}

// Hop is one movement of the payload on the way: who moves it, over what,
// and at which rate (one way, bytes per second).
type Hop struct {
	What string
	Over string
	Beta float64 `unit:"B/s"`
}

// Transfer is one way to move bytes from a GPU's memory to a GPU's memory
// on another node.
type Transfer struct {
	Name string
	// Hops from the sending GPU's memory to the receiving GPU's.
	Hops []Hop
	// Copies counts memory-to-memory copies besides the NICs' own DMA, at
	// both ends together; CPUCopies those the CPU makes.
	Copies    int
	CPUCopies int
	// PCIeCrossings counts the payload's trips over PCIe, both ends.
	PCIeCrossings int
	// HostMemoryPerByte is the host-memory traffic (reads plus writes) per
	// payload byte at one end.
	HostMemoryPerByte float64
	// Ceiling is the rate one GPU's transfer can reach alone: its slowest
	// hop (bytes per second, one way); Bottleneck names that hop.
	Ceiling    float64 `unit:"B/s"`
	Bottleneck string
	// NodeCeiling is the rate per GPU when all the node's GPUs send and
	// receive at once: the slowest hop or the host memory shared by all,
	// whichever is lower. HostMemoryNeeded is the host-memory traffic the
	// whole node needs for every NIC to run at its rate in both directions.
	NodeCeiling      float64 `unit:"B/s"`
	HostMemoryNeeded float64 `unit:"B/s"`
}

// Transfers models the three paths of chapter 3 on node n: TCP sockets
// (copied to host memory, into the kernel, onto the wire, and back),
// RDMA staged through host memory (one copy to a pinned buffer the NIC
// reads: NCCL's path without GPUDirect), and GPUDirect RDMA (the NIC reads
// and writes GPU memory over PCIe peer to peer). Rates are the links'
// datasheet rates; CPU memcpy speed, which bounds TCP further, is not
// modelled.
func Transfers(n TransferNode) ([]Transfer, error) {
	if n.GPUs < 1 || n.NICs < 1 || n.Sockets < 1 || !(n.GPULink.Beta() > 0) || !(n.NIC.Beta() > 0) || !(n.HostMemory.Beta() > 0) {
		return nil, fmt.Errorf("%w: transfer node needs GPUs, NICs, sockets and positive link rates", ErrParams)
	}
	pcie, wire := n.GPULink.Beta(), n.NIC.Beta()
	// Host memory is quoted as reads and writes together; one end's share
	// when every GPU on its socket streams at once.
	memory := n.HostMemory.Beta()
	gpuPCIe := n.GPULink.Description + " to the root complex"
	nicPCIe := "the NIC's PCIe link"
	network := n.NIC.Description
	host := n.HostMemory.Description
	paths := []Transfer{
		{Name: "TCP sockets", Copies: 4, CPUCopies: 2, PCIeCrossings: 4, HostMemoryPerByte: 4, Hops: []Hop{
			{"cudaMemcpy device to host (copy engine)", gpuPCIe, pcie},
			{"send(): CPU copies the user buffer into the kernel's socket buffer", host, memory / 2},
			{"NIC DMA reads the socket buffer", nicPCIe, pcie},
			{"the wire", network, wire},
			{"NIC DMA writes the socket buffer", nicPCIe, pcie},
			{"recv(): CPU copies the kernel's buffer to the user buffer", host, memory / 2},
			{"cudaMemcpy host to device", gpuPCIe, pcie},
		}},
		{Name: "RDMA through host memory", Copies: 2, PCIeCrossings: 4, HostMemoryPerByte: 2, Hops: []Hop{
			{"GPU copies into a pinned host buffer", gpuPCIe, pcie},
			{"NIC reads the host buffer (RDMA WRITE)", nicPCIe, pcie},
			{"the wire", network, wire},
			{"NIC writes the remote host buffer", nicPCIe, pcie},
			{"GPU copies out of the pinned buffer", gpuPCIe, pcie},
		}},
		{Name: "GPUDirect RDMA", PCIeCrossings: 2, Hops: []Hop{
			{"NIC reads GPU memory peer to peer (RDMA WRITE)", "PCIe through the shared switch", pcie},
			{"the wire", network, wire},
			{"NIC writes the remote GPU's memory", "PCIe through the shared switch", pcie},
		}},
	}
	// Every GPU sending and receiving at its NIC's share of the node's
	// network rate, in both directions at once.
	perGPU := math.Min(wire*float64(n.NICs)/float64(n.GPUs), wire)
	totalMemory := memory * float64(n.Sockets)
	for i := range paths {
		p := &paths[i]
		p.Ceiling = math.Inf(1)
		for _, h := range p.Hops {
			if h.Beta < p.Ceiling {
				p.Ceiling, p.Bottleneck = h.Beta, h.What+" ("+h.Over+")"
			}
		}
		p.NodeCeiling = math.Min(p.Ceiling, perGPU)
		// Each byte a node sends and each byte it receives costs
		// HostMemoryPerByte of host-memory traffic.
		p.HostMemoryNeeded = 2 * p.HostMemoryPerByte * perGPU * float64(n.GPUs)
		if p.HostMemoryNeeded > 0 {
			if limit := totalMemory / (2 * p.HostMemoryPerByte * float64(n.GPUs)); limit < p.NodeCeiling {
				p.NodeCeiling = limit
			}
		}
	}
	return paths, nil
}
