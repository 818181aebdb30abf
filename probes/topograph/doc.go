// Package topograph draws a probes.Topology as a self-contained SVG picture
// of the machine, laid out the way the hardware is built: CPU sockets or
// NUMA nodes on the top row, the PCIe switches below their socket, GPUs and
// NICs below their switch (those of one switch side by side), and the
// NVSwitch fabric as a bar under the GPUs. Edges carry the link type where
// the topology knows it (PCIe Gen5 x16, NV18, SYS); a PCIe type all of a
// switch's children share is written once, at the switch.
//
// A drawing is meant to be read in a notebook cell at its natural size, so
// it stays under maxWidth (1,000 px) where it can: when the sockets side by
// side would be wider (an 8-GPU HGX node: 2,728 px), each socket gets a
// band of its own, stacked, with the SMP link down the left side; with an
// NVSwitch fabric the bar lies between the two bands and the second is
// drawn upside down, so both sockets' GPUs face it. Labels are kept short
// for the same reason: "18:00.0" for the bus ID 0000:18:00.0, "400 Gb/s IB"
// for a port. Machines with more than two sockets and a fabric, or with
// direct GPU-GPU NVLinks, stay side by side and scale down to the cell.
//
// The layout and the SVG writer are its own, standard library only. It used
// to hand the topology's DOT text to Graphviz compiled to WebAssembly
// (goccy/go-graphviz), but that module compiles and instantiates its
// WebAssembly module in a package init, which cost 65 ms of every process
// start (GODEBUG=inittrace=1), and the commlab kernel links every package
// notebook cells can import, so it blew the kernel's cold-start budget.
// A machine's topology is a fixed hierarchy, not a general graph, so a
// layered tree layout needs no general graph layout engine.
//
// FromNCCL maps the topology NCCL itself detected (an NCCL_TOPO_DUMP_FILE
// read by parse/ncclxml) onto a probes.Topology, so NCCL's view of a
// machine is drawn the same way as the probed one.
//
// DOT writes the same graph as Graphviz text, for those who lay it out
// with their own Graphviz (`commlab probe topo --dot`).
//
// It owns the layout and the rendering only: what the graph holds is
// decided by probes.Topology (its Links, or probes.Topology.InferGraph when
// a source gave only the path matrix).
package topograph
