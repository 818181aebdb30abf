// Package topom parses the text `nvidia-smi topo -m` (and `topo -mp`)
// prints into a Matrix: the path cells between GPUs and NICs, each GPU's CPU
// affinity, NUMA affinity and GPU NUMA ID, and the NIC legend.
//
// It reads the variants seen in the wild: tab-separated or space-aligned
// (copied from a terminal), terminal escape codes for underlining, NIC
// columns named NICn with a NIC legend (drivers from about 2022) or named
// after the device (mlx5_0, older drivers), the SOC level of drivers before
// NODE existed, and outputs without the affinity columns.
//
// It returns the matrix in its own plain types and imports nothing of
// commlab (parsers sit at the lowest dependency level); probes/fake turns a
// Matrix into a probes.Topology with an inferred graph (fake.FromTopoM).
// It does not run nvidia-smi; probes/nvml reads the same facts live.
package topom
