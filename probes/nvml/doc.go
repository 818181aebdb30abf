// Package nvml reads the GPUs of this machine through NVIDIA's management
// library (NVML), using NVIDIA/go-nvml, which loads libnvidia-ml.so.1 at run
// time: names, UUIDs, bus ids, memory, compute capability, PCIe generation
// and width (current and max), CPU and NUMA affinity, NVLink state, version
// and remote end, P2P status between GPU pairs, the common PCIe ancestor of
// each pair, and PCIe throughput counters where the driver supports them.
// Over a base source (probes/sysfs on a live machine) it merges NVML's GPU
// facts into what the base reads (NICs, PCIe switches, NUMA nodes), so one
// call gives the whole machine; the caller composes the two, keeping this
// package free of sysfs.
//
// On a machine without the driver, Topology returns an error wrapping
// probes.ErrUnavailable with the reason; no call into the library can
// crash the caller (panics inside go-nvml or a mock are recovered and
// reported as notes). It owns nothing of the CUDA runtime (probes/cuda).
package nvml
