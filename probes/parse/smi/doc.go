// Package smi parses the text `nvidia-smi -q` prints (the NVSMI LOG):
// driver and CUDA versions and, per GPU, every "Key : Value" line under its
// section path ("PCI/GPU Link Info/PCIe Generation/Max"), with the facts
// the labs use pulled out as typed fields: name, UUID, bus id, memory,
// PCIe generation and width (current and max), PCIe throughput, clocks,
// power, temperature, ECC, MIG and NVLink fabric state.
//
// It reads old and new driver outputs alike (the section names it types
// are looked up under both spellings, such as "Power Readings" before 535
// and "GPU Power Readings" after). It does not read the XML form (-q -x)
// and does not run nvidia-smi; probes/nvml reads the same facts live.
package smi
