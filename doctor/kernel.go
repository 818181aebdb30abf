package doctor

import (
	"fmt"
	"sort"
	"strings"

	"github.com/commlab/commlab/parse/dmesg"
	"github.com/commlab/commlab/parse/flightrec"
	"github.com/commlab/commlab/prose"
)

// CheckKernel reads the nodes' kernel logs (--dmesg): a GPU that fell off
// the bus, Xid events the driver logged, NIC ports left down. A lost GPU
// or an Xid that no other explains fails (a GPU fault stops every
// collective it is part of); Xids that only follow from another (Xid 45
// "caused by previous Xid N") and ports down warn.
func CheckKernel(ev *Evidence) Verdict {
	v := Verdict{Layer: LayerHang, Check: "kernel-log", Chapter: chapterTroubleshoot, Branch: BranchHangSame}
	if len(ev.Kernel) == 0 {
		v.judge(Skipped, "no kernel log: give --dmesg FILE (dmesg -T or journalctl -k of each node) to see Xid events and NIC ports going down", "")
		v.Branch = ""
		return v
	}
	lines, events := 0, 0
	var lost, roots, follow, down []string
	for _, k := range ev.Kernel {
		lines += k.Log.Lines
		events += len(k.Log.Events)
		for _, e := range k.Log.GPUsLost() {
			lost = append(lost, describeEvent(ev, k, e))
		}
		for _, e := range k.Log.Xids() {
			switch {
			case e.Xid == 79:
			case e.CausedBy > 0:
				follow = append(follow, describeEvent(ev, k, e))
			default:
				roots = append(roots, describeEvent(ev, k, e))
			}
		}
		for _, e := range k.Log.LinksDown() {
			down = append(down, describeEvent(ev, k, e))
		}
	}
	v.Evidence = append(v.Evidence, fmt.Sprintf("%d kernel log(s), %d lines, %d GPU or NIC events", len(ev.Kernel), lines, events))
	v.Evidence = append(v.Evidence, prose.Distinct(append(append(append(lost, roots...), follow...), down...))...)
	switch {
	case len(lost) > 0:
		v.judge(Fail, "a GPU fell off the bus: "+lost[0],
			"drain the node: the GPU is gone until it is reset (nvidia-smi -r, or a reboot); check its power, cooling and the PCIe slot; every job on it hangs or dies")
	case len(roots) > 0:
		v.judge(Fail, fmt.Sprintf("the GPU driver logged %d Xid event(s): %s", len(roots), roots[0]),
			"look the Xid up in NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors) for its action; a job on that GPU stops at its next collective")
	case len(follow) > 0:
		v.judge(Warn, fmt.Sprintf("%d Xid event(s) that follow from an earlier one not in this log: %s", len(follow), follow[0]),
			"find the earlier Xid each names (older log lines, or the node's journal): that one is the fault")
	case len(down) > 0:
		v.judge(Fail, "NIC ports left down: "+strings.Join(down, "; "),
			"ibstat on the node (State, Physical state), the cable and the switch port; a job across nodes stops at its next collective over that NIC")
		v.Branch = BranchHangSame
	default:
		v.judge(OK, "no Xid, no GPU off the bus and no NIC port down in the kernel log", "")
		v.Branch = ""
	}
	return v
}

// kernelCauses are the kernel events that stop a collective, one line each.
func kernelCauses(ev *Evidence) []string {
	var out []string
	for _, k := range ev.Kernel {
		for _, e := range k.Log.GPUsLost() {
			out = append(out, describeEvent(ev, k, e))
		}
		for _, e := range k.Log.RootXids() {
			if e.Xid != 79 {
				out = append(out, describeEvent(ev, k, e))
			}
		}
		for _, e := range k.Log.LinksDown() {
			out = append(out, describeEvent(ev, k, e))
		}
	}
	return prose.Distinct(out)
}

// describeEvent names the device the way the rest of the report does:
// GPUn of the topology when the bus address matches.
func describeEvent(ev *Evidence, k KernelLog, e dmesg.Event) string {
	s := e.String()
	if gpu := gpuAtBus(ev, e.PCI); gpu != "" {
		s += " = " + gpu
	}
	host := k.Host
	if host == "" {
		host = k.Name
	}
	if e.Host == "" && host != "" {
		s += " [" + host + "]"
	}
	return s
}

func gpuAtBus(ev *Evidence, pci string) string {
	if ev.Topology == nil || pci == "" {
		return ""
	}
	want := dmesg.BusKey(pci)
	for _, g := range ev.Topology.GPUs {
		if g.BusID != "" && dmesg.BusKey(g.BusID) == want {
			return g.ID()
		}
	}
	return ""
}

// CheckProcesses reads from the stacks whether every rank's process was
// alive: py-spy cannot read a process that is gone, and says so.
func CheckProcesses(ev *Evidence) Verdict {
	v := Verdict{Layer: LayerHang, Check: "processes", Chapter: chapterTroubleshoot}
	if len(ev.Stacks) == 0 {
		v.judge(Skipped, "no stacks: give --stacks DIR (py-spy dump --pid of each rank, one rank_N.txt per rank) to see where each process is and which are gone", "")
		return v
	}
	var gone, alive []int
	for _, s := range ev.Stacks {
		if s.Gone {
			gone = append(gone, s.Rank)
		} else if len(s.Threads) > 0 {
			alive = append(alive, s.Rank)
		}
	}
	sort.Ints(gone)
	v.Evidence = stackLines(ev.Stacks)
	if len(gone) > 0 {
		v.judge(Fail, fmt.Sprintf("%s had no process to read when the stacks were taken: crashed or killed", flightrec.RanksPhrase(gone)),
			"read the dead rank's stderr and its node's dmesg (the OOM killer, an Xid); the other ranks wait for it in their next collective")
		v.Branch = BranchHangSame
		return v
	}
	v.judge(OK, fmt.Sprintf("%d rank(s) with a stack, every process alive", len(alive)), "")
	return v
}
