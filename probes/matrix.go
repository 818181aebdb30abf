package probes

import (
	"strconv"
	"strings"
)

// Matrix renders the path matrix as `nvidia-smi topo -m` prints it (driver
// 525 and later): a tab-separated header, one row per GPU with the CPU
// Affinity, NUMA Affinity and GPU NUMA ID columns, one row per NIC, the
// legend, and the NIC legend mapping NICn to device names.
func (t *Topology) Matrix() string {
	var b strings.Builder
	for _, d := range t.Devices {
		b.WriteByte('\t')
		b.WriteString(d)
	}
	b.WriteString("\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n")
	for i, d := range t.Devices {
		b.WriteString(d)
		for j := range t.Devices {
			b.WriteByte('\t')
			p := Path{}
			if i < len(t.Paths) && j < len(t.Paths[i]) {
				p = t.Paths[i][j]
			}
			if p.Level == LevelSelf {
				b.WriteString(" X ")
			} else {
				b.WriteString(p.String())
			}
		}
		if g, ok := t.GPUByID(d); ok {
			aff := g.CPUAffinity
			if aff == "" {
				aff = "N/A"
			}
			b.WriteString("\t" + aff + "\t" + numaText(g.NUMANode) + "\t\t" + numaText(g.MemoryNUMANode))
		} else {
			b.WriteString("\t\t\t\t")
		}
		b.WriteByte('\n')
	}
	b.WriteString("\nLegend:\n\n")
	for _, l := range []Level{LevelSelf, LevelSYS, LevelNODE, LevelPHB, LevelPXB, LevelPIX, LevelNVLink} {
		name := l.String()
		if l == LevelNVLink {
			name = "NV#"
		}
		b.WriteString("  " + padRight(name, 4) + " = " + l.Describe() + "\n")
	}
	if len(t.NICs) > 0 {
		b.WriteString("\nNIC Legend:\n\n")
		for _, n := range t.NICs {
			b.WriteString("  " + n.ID() + ": " + n.Name + "\n")
		}
	}
	return b.String()
}

func numaText(n int) string {
	if n < 0 {
		return "N/A"
	}
	return strconv.Itoa(n)
}

func padRight(s string, n int) string {
	for len(s) < n {
		s += " "
	}
	return s
}

// PCIeLevel classifies the PCIe path between two devices from their
// positions in the PCI tree, the way nvidia-smi's legend defines the
// levels. hostA and hostB name the host bridges (sysfs "pci0000:16");
// chainA and chainB list the bridges from the root port down to the device,
// the device excluded; numaA and numaB are the devices' NUMA nodes (-1 when
// unknown). Devices under one switch (one bridge each below the common
// part) are PIX, deeper ones PXB, ones meeting only at the host bridge PHB,
// ones on different host bridges of one NUMA node NODE, else SYS.
func PCIeLevel(hostA string, chainA []string, numaA int, hostB string, chainB []string, numaB int) Level {
	if hostA != hostB {
		if numaA >= 0 && numaA == numaB {
			return LevelNODE
		}
		return LevelSYS
	}
	k := 0
	for k < len(chainA) && k < len(chainB) && chainA[k] == chainB[k] {
		k++
	}
	if k == 0 {
		return LevelPHB
	}
	if len(chainA)-k <= 1 && len(chainB)-k <= 1 {
		return LevelPIX
	}
	return LevelPXB
}
