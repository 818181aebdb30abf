// Package lspci reads `lspci -vvv` output (pciutils) into the PCI facts the
// doctor checks: each function's class, its PCIe link capability and
// status, its Access Control Services capability and control
// ("ACSCap:"/"ACSCtl:" lines of the ACS extended capability), its IOMMU
// group and driver, and for bridges the secondary bus, from which the
// hierarchy (each device's chain of bridges) is rebuilt.
//
// ParseTree reads the tree `lspci -t` draws (`lspci -tv` adds names):
// every function with its root bus and its chain of bridges, from which
// Tree.Level gives the path type nvidia-smi's topology matrix prints
// between two devices (PIX, PXB, PHB, NODE, SYS), and Tree.Topology the
// whole GPU and NIC matrix, ready to draw. Across root buses the level
// depends on the NUMA nodes, which ParseNUMA reads from lspci -v's "NUMA
// node:" lines or from a /sys/bus/pci/devices/*/numa_node listing.
//
// Without root, lspci prints "Capabilities: <access denied>" instead of
// the capability list; the report says so (AccessDenied), since a missing
// ACSCtl line then means "not known", not "ACS off". Output of lspci -v or
// plain lspci (a "Flags:" line, or no detail) counts as brief: ACS is then
// not read either. Launcher prefixes come off each line first. The package reads
// text only; live machines read the same registers through probes/sysfs.
package lspci
