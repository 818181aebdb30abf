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
	// Uplink is the link from the PCIe switch a GPU shares with its NIC up
	// to the CPU (an HGX board's PCIe Gen5 x16), and GPUsPerSwitch how
	// many GPU and NIC pairs share one (0 counts as 1). A zero Uplink
	// means GPU and NIC hang off root ports of their own, with no switch
	// to share.
	Uplink        Link
	GPUsPerSwitch int
	// TCPCoreBeta is what one CPU core moves through the kernel's socket
	// path, bytes per second each way, and TCPCores how many cores one
	// GPU's socket traffic gets at each end (0 counts as 1: NCCL's socket
	// transport runs on its proxy thread alone unless NCCL_SOCKET_NTHREADS
	// says otherwise, NVIDIA/nccl v2.28.9-1 src/transport/net_socket.cc).
	// Zero TCPCoreBeta leaves the CPU out of the TCP path's ceiling.
	TCPCoreBeta float64 `unit:"B/s"`
	TCPCores    int
	// TCPCoreSource says where TCPCoreBeta comes from.
	TCPCoreSource string
}

// DefaultTCPCoreBeta is the default TCPCoreBeta: an upper bound, the rate
// at which one core of the H200 machines copied host memory in the
// recorded run copies-h200x1 (CUDA's pageable device-to-host copy of
// 1 GiB, which the driver stages through a pinned buffer with the CPU:
// 12.0 GB/s). A socket adds protocol work to the copy on each side; a
// single core cannot process 100 Gb/s (Cai et al., "Understanding Host
// Network Stack Overheads", SIGCOMM 2021, abstract).
const (
	DefaultTCPCoreBeta   = 12.0e9
	defaultTCPCoreSource = "upper bound: one core's copy rate on the H200 host, CUDA's pageable device-to-host copy of 1 GiB " +
		"(recorded run copies-h200x1, 12.0 GB/s); the kernel's protocol work comes on top (Cai et al., SIGCOMM 2021)"
)

// DefaultTransferNode is an HGX H200 node: 8 GPUs on PCIe Gen5 x16, each
// with its NIC under a PCIe switch whose Gen5 x16 uplink goes to the CPU,
// eight 400 Gb/s NDR ports, two sockets of eight DDR5-4800 channels, TCP
// at DefaultTCPCoreBeta on one core.
func DefaultTransferNode() TransferNode {
	must := func(name string) Link {
		l, err := LinkByName(name)
		if err != nil {
			panic(err) // a preset name below is wrong: TestTransfers catches it
		}
		return l
	}
	return TransferNode{GPUs: 8, GPULink: must("pcie5x16"), NIC: must("ib-ndr"), NICs: 8,
		HostMemory: must("ddr5-4800-8ch"), Sockets: 2, Uplink: must("pcie5x16"), GPUsPerSwitch: 1,
		TCPCoreBeta: DefaultTCPCoreBeta, TCPCores: 1, TCPCoreSource: defaultTCPCoreSource}
}

// Hop is one movement of the payload on the way: who moves it, over what,
// at which rate (one way, bytes per second), and how many PCIe links it
// crosses and whether it goes through the CPU's root complex.
type Hop struct {
	What string
	Over string
	Beta float64 `unit:"B/s"`
	// PCIeLinks is how many PCIe links the hop crosses: GPU to host memory
	// through a switch crosses the GPU's link and the switch's uplink (2),
	// GPU to NIC peer to peer through the switch the GPU's link and the
	// NIC's (2).
	PCIeLinks   int
	RootComplex bool
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
	// PCIeCrossings counts the PCIe links each byte crosses, both ends
	// together (the sum of the hops' PCIeLinks); RootComplexCrossings how
	// many times it passes through a CPU's root complex.
	PCIeCrossings        int
	RootComplexCrossings int
	// HostMemoryPerByte is the host-memory traffic (reads plus writes) per
	// payload byte at one end.
	HostMemoryPerByte float64
	// UplinkLoad is how many bytes cross the switch's uplink in each
	// direction per byte a GPU sends while it receives as much (as in a
	// ring): 2 for the paths through host memory (up to memory and down
	// to the NIC, for the bytes sent and for the bytes received) per GPU
	// on the switch, 0 for GPUDirect RDMA.
	UplinkLoad float64
	// Ceiling is the rate one GPU's transfer reaches alone, sending and
	// receiving at once (bytes per second each way): its slowest hop, the
	// shared uplink, or the CPU; Bottleneck names it.
	Ceiling    float64 `unit:"B/s"`
	Bottleneck string
	// NodeCeiling is the rate per GPU when all the node's GPUs send and
	// receive at once: the ceiling, the GPU's share of the NICs, or the
	// host memory shared by all, whichever is lower. HostMemoryNeeded is
	// the host-memory traffic the whole node needs for every GPU to run
	// at its NICs' share in both directions.
	NodeCeiling      float64 `unit:"B/s"`
	HostMemoryNeeded float64 `unit:"B/s"`
}

// Transfers models the three paths of chapter 3 on node n: TCP sockets
// (copied to host memory, into the kernel by a CPU core, onto the wire,
// and back), RDMA staged through host memory (one copy to a pinned buffer
// the NIC reads: NCCL's path without GPUDirect RDMA), and GPUDirect RDMA
// (the NIC reads and writes GPU memory peer to peer through the switch it
// shares with the GPU, or through the root complex when it shares none).
// Rates are the links' datasheet rates, the core's rate TCPCoreBeta.
func Transfers(n TransferNode) ([]Transfer, error) {
	if n.GPUs < 1 || n.NICs < 1 || n.Sockets < 1 || !(n.GPULink.Beta() > 0) || !(n.NIC.Beta() > 0) || !(n.HostMemory.Beta() > 0) {
		return nil, fmt.Errorf("%w: transfer node needs GPUs, NICs, sockets and positive link rates", ErrParams)
	}
	if n.TCPCoreBeta < 0 || math.IsInf(n.TCPCoreBeta, 0) || math.IsNaN(n.TCPCoreBeta) || n.TCPCores < 0 || n.GPUsPerSwitch < 0 {
		return nil, fmt.Errorf("%w: TCP core rate, cores and GPUs per switch must not be negative", ErrParams)
	}
	pcie, wire := n.GPULink.Beta(), n.NIC.Beta()
	uplink := n.Uplink.Beta()
	switched := uplink > 0
	perSwitch := float64(max(n.GPUsPerSwitch, 1))
	// Host memory is quoted as reads and writes together; one end's share
	// when every GPU on its socket streams at once.
	memory := n.HostMemory.Beta()
	cores := float64(max(n.TCPCores, 1))
	core := n.TCPCoreBeta * cores

	toHost, toHostLinks := "the GPU's PCIe link to the root complex", 1
	nicFromHost, nicLinks := "the root complex to the NIC's PCIe link", 1
	peer, peerRC := "the GPU's and the NIC's PCIe links, through the root complex", true
	hostBeta := pcie
	if switched {
		toHost, toHostLinks = "the GPU's PCIe link and the switch's uplink", 2
		nicFromHost, nicLinks = "the switch's uplink and the NIC's PCIe link", 2
		peer, peerRC = "the GPU's and the NIC's PCIe links, turning at their shared switch", false
		hostBeta = math.Min(pcie, uplink)
	}
	network := n.NIC.Description
	host := n.HostMemory.Description
	coreOver := "one CPU core"
	if cores > 1 {
		coreOver = fmt.Sprintf("%g CPU cores", cores)
	}
	coreBeta := core
	if core <= 0 {
		coreOver, coreBeta = host, memory/2
	}
	paths := []Transfer{
		{Name: "TCP sockets", Copies: 4, CPUCopies: 2, HostMemoryPerByte: 4, Hops: []Hop{
			{"cudaMemcpy device to host (copy engine)", toHost, hostBeta, toHostLinks, true},
			{"send(): a CPU core copies the user buffer into the kernel's socket buffer", coreOver, coreBeta, 0, false},
			{"NIC DMA reads the socket buffer", nicFromHost, hostBeta, nicLinks, true},
			{"the wire", network, wire, 0, false},
			{"NIC DMA writes the socket buffer", nicFromHost, hostBeta, nicLinks, true},
			{"recv(): a CPU core copies the kernel's buffer to the user buffer", coreOver, coreBeta, 0, false},
			{"cudaMemcpy host to device", toHost, hostBeta, toHostLinks, true},
		}},
		{Name: "RDMA through host memory", Copies: 2, HostMemoryPerByte: 2, Hops: []Hop{
			{"GPU copies into a pinned host buffer", toHost, hostBeta, toHostLinks, true},
			{"NIC reads the host buffer (RDMA WRITE)", nicFromHost, hostBeta, nicLinks, true},
			{"the wire", network, wire, 0, false},
			{"NIC writes the remote host buffer", nicFromHost, hostBeta, nicLinks, true},
			{"GPU copies out of the pinned buffer", toHost, hostBeta, toHostLinks, true},
		}},
		{Name: "GPUDirect RDMA", Hops: []Hop{
			{"NIC reads GPU memory peer to peer (RDMA WRITE)", peer, pcie, 2, peerRC},
			{"the wire", network, wire, 0, false},
			{"NIC writes the remote GPU's memory", peer, pcie, 2, peerRC},
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
			p.PCIeCrossings += h.PCIeLinks
			if h.RootComplex {
				p.RootComplexCrossings++
			}
			if h.Beta < p.Ceiling {
				p.Ceiling, p.Bottleneck = h.Beta, h.What+" ("+h.Over+")"
			}
		}
		if switched && p.HostMemoryPerByte > 0 {
			// Up the uplink go the bytes sent (GPU to memory) and the bytes
			// received (NIC to memory); down it the same again.
			p.UplinkLoad = 2 * perSwitch
			if limit := uplink / p.UplinkLoad; limit < p.Ceiling {
				p.Ceiling = limit
				p.Bottleneck = fmt.Sprintf("the switch's uplink (%s), crossed by %g bytes each way per byte sent while as much is received", n.Uplink.Description, p.UplinkLoad)
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
