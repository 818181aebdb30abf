package probes

import (
	"fmt"
	"strconv"
	"strings"
)

// Level is how far apart two devices are, in the terms of `nvidia-smi topo
// -m`. Smaller is closer; the order is the one nvidia-smi's legend implies.
type Level int

// The levels, closest first. LevelNVLink is a bonded set of NVLinks (the
// count is in Path.NVLinks); the PCIe levels follow nvidia-smi's legend:
// PIX at most one PCIe bridge, PXB several bridges without the host bridge,
// PHB through a PCIe host bridge (the CPU), NODE across host bridges of one
// NUMA node, SYS across the SMP interconnect between NUMA nodes (old
// nvidia-smi called it SOC).
const (
	LevelUnknown Level = iota
	LevelSelf
	LevelNVLink
	LevelPIX
	LevelPXB
	LevelPHB
	LevelNODE
	LevelSYS
)

var levelNames = [...]string{"?", "X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS"}

// String gives the legend's abbreviation ("X", "NV", "PIX", ...).
func (l Level) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return "?"
	}
	return levelNames[l]
}

// Describe gives the legend's sentence for the level, as nvidia-smi prints it.
func (l Level) Describe() string {
	switch l {
	case LevelSelf:
		return "Self"
	case LevelSYS:
		return "Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)"
	case LevelNODE:
		return "Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node"
	case LevelPHB:
		return "Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)"
	case LevelPXB:
		return "Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)"
	case LevelPIX:
		return "Connection traversing at most a single PCIe bridge"
	case LevelNVLink:
		return "Connection traversing a bonded set of # NVLinks"
	}
	return "Unknown"
}

// Path is one cell of the topology matrix: the level between two devices
// and, for NVLink, how many links are bonded.
type Path struct {
	Level   Level
	NVLinks int
}

// String renders the cell as nvidia-smi does: "X", "NV18", "PIX", ...
func (p Path) String() string {
	if p.Level == LevelNVLink {
		return "NV" + strconv.Itoa(p.NVLinks)
	}
	return p.Level.String()
}

// Describe is the legend's line for the cell, with an NVLink cell's count
// in place of the legend's "#": "Connection traversing a bonded set of 18
// NVLinks".
func (p Path) Describe() string {
	if p.Level == LevelNVLink && p.NVLinks > 0 {
		return strings.Replace(p.Level.Describe(), "#", strconv.Itoa(p.NVLinks), 1)
	}
	return p.Level.Describe()
}

// MarshalText writes the cell as String does, so JSON carries "NV18".
func (p Path) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a cell written by MarshalText or by nvidia-smi.
func (p *Path) UnmarshalText(b []byte) error {
	q, err := ParsePath(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// ParsePath reads one matrix cell: "X", "NV#", "PIX", "PXB", "PHB", "NODE",
// "SYS" and the old "SOC" (a synonym of SYS from before NODE existed).
// Surrounding spaces are ignored.
func ParsePath(s string) (Path, error) {
	t := strings.TrimSpace(s)
	switch t {
	case "X":
		return Path{Level: LevelSelf}, nil
	case "PIX":
		return Path{Level: LevelPIX}, nil
	case "PXB":
		return Path{Level: LevelPXB}, nil
	case "PHB":
		return Path{Level: LevelPHB}, nil
	case "NODE":
		return Path{Level: LevelNODE}, nil
	case "SYS", "SOC":
		return Path{Level: LevelSYS}, nil
	case "?":
		return Path{}, nil
	}
	if rest, ok := strings.CutPrefix(t, "NV"); ok {
		n, err := strconv.Atoi(rest)
		if err == nil && n > 0 && n < 1000 {
			return Path{Level: LevelNVLink, NVLinks: n}, nil
		}
	}
	return Path{}, fmt.Errorf("probes: unknown topology cell %q", t)
}
