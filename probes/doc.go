// Package probes holds the domain types of the Observe step: what a machine
// is made of (GPUs, NICs, PCIe switches, NUMA nodes and the links between
// them) as a Topology, the Source interface every live or recorded reader
// implements, and the ErrUnavailable sentinel a Source returns when the
// hardware or driver it reads is absent.
//
// A Topology prints itself as the `nvidia-smi topo -m` matrix (Matrix) and
// infers its graph of links from that matrix (InferGraph); drawing it, as
// SVG or as Graphviz DOT text, is probes/topograph's. NICPaths models from
// the same matrix which NIC NCCL gives each GPU and whether GPUDirect RDMA
// applies; Run.L2Bytes reads the GPUs' L2 size a measuring run recorded.
//
// probes uses the standard library only. It does not read hardware itself:
// probes/nvml, probes/sysfs and probes/published build Topologies; the parsers
// under parse read tool outputs into their own plain types, and
// nvidiasmi.TopoMatrix.Topology turns a parsed `nvidia-smi topo -m` into a
// Topology. Run records and samples with their provenance are in run.go;
// Compare sets a run beside a reference run (PyTorch's, or an earlier one)
// and Judge holds the criteria each matched sample must meet. pci.go holds
// the PCIe facts beyond the topology (ACS flags, the IOMMU state, bridge
// chains) that probes/sysfs and parse/lspci read and doctor
// checks.
package probes
