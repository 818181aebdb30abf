// Package topom parses the text `nvidia-smi topo -m` (and `topo -mp`)
// prints into a probes.Topology: the path matrix between GPUs and NICs, each
// GPU's CPU affinity, NUMA affinity and GPU NUMA ID, the NIC legend, and a
// graph inferred from the matrix (PCIe switches from PIX groups, NVSwitch
// from NV# counts) so the result can be drawn.
//
// It reads the variants seen in the wild: tab-separated or space-aligned
// (copied from a terminal), terminal escape codes for underlining, NIC
// columns named NICn with a NIC legend (drivers from about 2022) or named
// after the device (mlx5_0, older drivers), the SOC level of drivers before
// NODE existed, and outputs without the affinity columns.
//
// It does not run nvidia-smi; probes/nvml reads the same facts live.
package topom
