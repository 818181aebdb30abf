// Package topograph draws a probes.Topology as a self-contained SVG picture
// of the machine, laid out the way the hardware is built: CPU sockets or
// NUMA nodes on the top row, the PCIe switches below their socket, GPUs and
// NICs below their switch (those of one switch side by side), and the
// NVSwitch fabric as a bar under the GPUs. Edges carry the link type where
// the topology knows it (PCIe Gen5 x16, NV18, SYS).
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
// DOT writes the same graph as Graphviz text, for those who lay it out
// with their own Graphviz (`commlab probe topo --dot`).
//
// It owns the layout and the rendering only: what the graph holds is
// decided by probes.Topology (its Links, or probes.Topology.InferGraph when
// a source gave only the path matrix).
package topograph
