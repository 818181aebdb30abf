// Package sysfs reads a Linux machine's PCI tree, NUMA nodes, RDMA devices
// and GPUDirect hints from sysfs and procfs through an injected fs.FS
// (os.DirFS("/") live, a fstest.MapFS or a recorded manifest in tests), and
// builds a probes.Topology from them: GPUs and NICs with their PCIe link
// speed and width, NUMA node and CPU list, PCIe switches, the path matrix
// levels PIX/PXB/PHB/NODE/SYS, InfiniBand/RoCE ports with rate, link layer
// and GIDs, and whether nvidia_peermem is loaded.
//
// Paths read (relative to the FS root): sys/devices/pci*/... (the PCI
// hierarchy as nested device directories), sys/devices/system/node/node*/
// cpulist, sys/class/infiniband/*/{device/uevent,ports/*/...},
// sys/module/{nvidia,nvidia_peermem}/version, proc/sys/kernel/osrelease and
// proc/driver/nvidia/version. It knows nothing of NVLink; probes/nvml does.
//
// PCIFacts (pci.go) adds what the doctor's topology checks read: each
// function's ACS capability and control from its config space
// (sys/bus/pci/devices/*/config; beyond the first 256 bytes only root sees
// it), the bridges above every device, and the IOMMU mode from
// sys/kernel/iommu_groups/*/type and proc/cmdline.
//
// RDMAPortDetails (rdmaports.go) reads each RDMA port's whole GID table
// with the GIDs' types and netdevs, its counters and hw_counters, and the
// RoCE MTU from its netdev (sys/class/net/*/mtu), for the doctor's
// roce-gid and port-counters checks.
package sysfs
