// Package topograph lays a probes.Topology out as a picture: it hands the
// topology's DOT text (GPUs, PCIe switches, NICs, NUMA nodes and CPUs, the
// NVSwitch fabric) to Graphviz's dot layout, compiled to WebAssembly and
// run in pure Go by goccy/go-graphviz, and returns SVG. No graphviz binary
// or cgo is needed.
//
// It owns the layout and rendering only; what the graph holds is decided
// by probes.Topology.DOT.
package topograph
