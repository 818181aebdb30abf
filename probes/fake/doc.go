// Package fake provides realistic machines that implement probes.Source
// without hardware, for tests and for the chapters run on a CPU-only
// machine: an 8-GPU HGX H200 node (NVSwitch, one 400 Gb/s NIC per GPU) and
// an 8-GPU PCIe server with two GPUs per PCIe switch.
//
// Each machine is built from a recorded `nvidia-smi topo -m` (see
// recorded/SOURCES.md) parsed by parse/nvidiasmi, plus per-GPU facts
// from published sources named beside each constant. It never reads the
// host it runs on; probes/nvml and probes/sysfs do that.
package fake
