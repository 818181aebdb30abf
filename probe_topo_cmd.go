package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/fake"
	"github.com/commlab/commlab/probes/nvml"
	"github.com/commlab/commlab/probes/sysfs"
	"github.com/commlab/commlab/probes/topograph"
)

func init() {
	registerProbeKind(probeKind{
		name:    "topo",
		summary: "this machine's GPUs, NICs, PCIe and NVLink topology (NVML + sysfs)",
		run:     runProbeTopo,
	})
}

// topoSource is where probe topo reads from; tests replace it.
var topoSource = func(fakeName string) (probes.Source, error) {
	if fakeName != "" {
		return fake.ByName(fakeName)
	}
	return nvml.New(sysfs.New(os.DirFS("/"))), nil
}

func runProbeTopo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("probe topo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "print the topology as JSON")
	svgPath := fs.String("svg", "", "also draw the topology as SVG into `FILE`")
	dotOut := fs.Bool("dot", false, "print the topology as Graphviz DOT")
	fakeName := fs.String("fake", "", "read a fake machine instead of this one: "+strings.Join(fake.Names(), ", "))
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: commlab probe topo [--json] [--dot] [--svg FILE] [--fake NAME]")
		fs.PrintDefaults()
	}
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "commlab probe topo: unexpected argument %q\n", rest[0])
		return 2
	}
	src, err := topoSource(*fakeName)
	if err != nil {
		fmt.Fprintf(stderr, "commlab probe topo: %v\n", err)
		return 2
	}
	ctx := context.Background()
	topo, err := src.Topology(ctx)
	if err != nil {
		if !errors.Is(err, probes.ErrUnavailable) {
			fmt.Fprintf(stderr, "commlab probe topo: %v\n", err)
			return 1
		}
		// A laptop or a CPU-only server: say so, and show what sysfs gave.
		fmt.Fprintf(stderr, "no NVIDIA driver/GPU on this machine: %v\n", err)
		if topo == nil || (len(topo.GPUs) == 0 && len(topo.NICs) == 0 && len(topo.NUMANodes) == 0) {
			fmt.Fprintln(stderr, "commlab probe topo: sysfs gave nothing either; nothing to show")
			return 1
		}
		fmt.Fprintln(stderr, "showing what sysfs gave.")
	}
	if *svgPath != "" {
		if err := topograph.WriteSVG(ctx, topo, *svgPath); err != nil {
			fmt.Fprintf(stderr, "commlab probe topo: %v\n", err)
			return 1
		}
	}
	switch {
	case *jsonOut:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(topo); err != nil {
			fmt.Fprintf(stderr, "commlab probe topo: %v\n", err)
			return 1
		}
	case *dotOut:
		fmt.Fprint(stdout, topograph.DOT(topo))
	default:
		writeTopologyText(stdout, topo)
	}
	return 0
}

// writeTopologyText prints what a person reads: a summary, the matrix as
// nvidia-smi draws it, then one line per GPU and NIC.
func writeTopologyText(w io.Writer, t *probes.Topology) {
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
		line := fmt.Sprintf("  %s %s", g.ID(), topoOrDash(g.Name))
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
			line += fmt.Sprintf(", port %d %s %s %s", p.Port, topoOrDash(p.State), topoOrDash(p.LinkLayer), topoOrDash(p.Rate))
		}
		fmt.Fprintln(w, line)
	}
	gd := t.GPUDirect
	if gd.DMABuf != "" || gd.PeerMem || gd.NvidiaVersion != "" {
		fmt.Fprintf(w, "\nGPUDirect RDMA: nvidia_peermem %s; DMA-BUF: %s\n", topoLoaded(gd.PeerMem, gd.PeerMemVersion), topoOrDash(gd.DMABuf))
	}
}

func topoLoaded(ok bool, version string) string {
	if !ok {
		return "not loaded"
	}
	if version != "" {
		return "loaded (" + version + ")"
	}
	return "loaded"
}

func topoOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
