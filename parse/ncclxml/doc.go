// Package ncclxml parses the XML files NCCL writes and reads: the topology
// of NCCL_TOPO_DUMP_FILE / NCCL_TOPO_FILE (`<system>` with `<cpu>`, nested
// `<pci>`, `<gpu>` with `<nvlink>`, `<nic>` with `<net>`) and the channel
// graphs of NCCL_GRAPH_DUMP_FILE / NCCL_GRAPH_FILE (`<graphs>` with
// `<graph>` and `<channel>` lists of `<net>` and `<gpu>`).
//
// It reads with encoding/xml token by token, so a file cut short still
// yields the elements that were complete, together with an error naming the
// line. Flattened views (System.GPUs, System.NICs, System.PCIDevices) give
// notebooks plain slices.
//
// The package owns the parsed form of these files. It does not build
// probes' Topology from them (the caller maps GPUs, NICs and PCI switches
// into its own types) and does not write the files. Standard library only.
package ncclxml
