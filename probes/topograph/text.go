package topograph

// This file writes a topology as text: the drawing a terminal shows.

import (
	"fmt"
	"io"
	"strings"

	"github.com/commlab/commlab/probes"
)

// Text is the topology as a person reads it in a terminal (commlab probe
// topo): a summary, the matrix as nvidia-smi draws it, one line per GPU and
// NIC, the NIC each GPU would use, and GPUDirect RDMA's modules.
func Text(t *probes.Topology) string {
	var b strings.Builder
	writeText(&b, t)
	return b.String()
}

func writeText(w io.Writer, t *probes.Topology) {
	fmt.Fprint(w, t.Summary())
	if len(t.GPUs) > 0 && len(t.Devices) > 0 {
		fmt.Fprintln(w)
		fmt.Fprint(w, t.Matrix())
	}
	if len(t.GPUs) > 0 {
		fmt.Fprintln(w, "\nGPUs:")
	}
	for _, g := range t.GPUs {
		active := 0
		for _, l := range g.NVLinks {
			if l.Active {
				active++
			}
		}
		line := fmt.Sprintf("  %s %s", g.ID(), orDash(g.Name))
		if g.BusID != "" {
			line += " at " + g.BusID
		}
		if g.MemoryBytes > 0 {
			line += fmt.Sprintf(", %.1f GiB", float64(g.MemoryBytes)/(1<<30))
		}
		if g.ComputeCapability != "" {
			line += ", sm " + g.ComputeCapability
		}
		if g.PCIe.GenCurrent > 0 {
			line += fmt.Sprintf(", PCIe %s = %.1f GB/s", g.PCIe, g.PCIe.GBps())
		}
		if g.NUMANode >= 0 {
			line += fmt.Sprintf(", NUMA %d", g.NUMANode)
		}
		if len(g.NVLinks) > 0 {
			line += fmt.Sprintf(", NVLink %d/%d active", active, len(g.NVLinks))
		}
		if nics, level := t.NearestNICs(g.ID()); len(nics) > 0 {
			line += fmt.Sprintf(", nearest NIC %s (%s)", strings.Join(nics, ","), level)
		}
		fmt.Fprintln(w, line)
	}
	if len(t.NICs) > 0 {
		fmt.Fprintln(w, "\nNICs:")
	}
	for _, n := range t.NICs {
		line := fmt.Sprintf("  %s %s", n.ID(), n.Name)
		if n.BusID != "" {
			line += " at " + n.BusID
		}
		if n.NUMANode >= 0 {
			line += fmt.Sprintf(", NUMA %d", n.NUMANode)
		}
		for _, p := range n.Ports {
			line += fmt.Sprintf(", port %d %s %s %s", p.Port, orDash(p.State), orDash(p.LinkLayer), orDash(p.Rate))
		}
		fmt.Fprintln(w, line)
	}
	if len(t.GPUs) > 0 {
		writeNICPaths(w, t)
	}
	gd := t.GPUDirect
	if gd.DMABuf != "" || gd.PeerMem || gd.NvidiaVersion != "" {
		fmt.Fprintf(w, "\nGPUDirect RDMA: nvidia_peermem %s; DMA-BUF: %s\n", loadedState(gd.PeerMem, gd.PeerMemVersion), orDash(gd.DMABuf))
	}
}

// writeNICPaths prints the NIC each GPU would use under NCCL's defaults
// (NCCL_NET_GDR_LEVEL unset, PXN on), as probes.NICPaths models it.
func writeNICPaths(w io.Writer, t *probes.Topology) {
	paths := t.NICPaths(probes.LevelUnknown)
	if len(t.NICs) == 0 {
		fmt.Fprintf(w, "\nGPU -> NIC: %s\n", paths)
		return
	}
	fmt.Fprintln(w, "\nGPU -> NIC (modelled from the matrix as NCCL picks; NCCL_NET_GDR_LEVEL=PXB, PXN on; ceiling one way):")
	for _, l := range strings.Split(paths.String(), "\n") {
		fmt.Fprintln(w, "  "+l)
	}
}

func loadedState(ok bool, version string) string {
	if !ok {
		return "not loaded"
	}
	if version != "" {
		return "loaded (" + version + ")"
	}
	return "loaded"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
