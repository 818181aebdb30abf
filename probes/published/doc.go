// Package published serves other people's machines as they published them:
// the outputs of nvidia-smi topo -m, lspci, numactl, CUDA samples,
// perftest and the rdma tools, quoted verbatim under recorded/ with where
// each was posted and when (recorded/SOURCES.md), so the chapters can read
// machines they do not have with the same parsers as a live one.
//
// From two of those matrices it also builds machines that implement
// probes.Source without hardware, for tests and for the chapters run on a
// CPU-only machine: an 8-GPU HGX H200 node (NVSwitch, one 400 Gb/s NIC per
// GPU; its matrix was recorded on an HGX H20 node) and an 8-GPU PCIe server
// with two GPUs per PCIe switch. Their per-GPU facts come from published
// sources named beside each constant.
//
// It never reads the host it runs on; probes/nvml and probes/sysfs do that.
package published
