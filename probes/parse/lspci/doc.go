// Package lspci reads `lspci -vvv` output (pciutils) into the PCI facts the
// doctor checks: each function's class, its PCIe link capability and
// status, its Access Control Services capability and control
// ("ACSCap:"/"ACSCtl:" lines of the ACS extended capability), its IOMMU
// group and driver, and for bridges the secondary bus, from which the
// hierarchy (each device's chain of bridges) is rebuilt.
//
// Without root, lspci prints "Capabilities: <access denied>" instead of
// the capability list; the report says so (AccessDenied), since a missing
// ACSCtl line then means "not known", not "ACS off". Output of lspci -v or
// plain lspci (a "Flags:" line, or no detail) counts as brief: ACS is then
// not read either. Launcher prefixes come off each line first. The package reads
// text only; live machines read the same registers through probes/sysfs.
package lspci
