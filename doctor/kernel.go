package doctor

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/commlab/commlab/parse/dmesg"
	"github.com/commlab/commlab/parse/flightrec"
	"github.com/commlab/commlab/prose"
)

// CheckKernel reads the nodes' kernel logs (--dmesg): a GPU that fell off
// the bus, Xid events the driver logged (with their meaning), NVSwitch
// SXids, PCIe AER errors, NIC firmware health events, NIC ports and
// interfaces left down, transceiver modules unplugged or in error, links
// that flapped, a NIC short of slot power. A lost GPU, an Xid no other
// explains, a fatal SXid or AER error, a firmware fault or a port left
// down fails (each stops the collectives it is part of); Xids that only
// follow from another (Xid 45 "caused by previous Xid N"), non-fatal
// SXids, corrected AER errors, flaps and power warnings warn. Where the
// log and a Flight Recorder dump both carry wall-clock times, each event
// is placed beside the first collective left unfinished.
func CheckKernel(ev *Evidence) Verdict {
	v := Verdict{Layer: LayerHang, Check: "kernel-log", Chapter: chapterTroubleshoot, Branch: BranchHangSame}
	if len(ev.Kernel) == 0 {
		v.judge(Skipped, "no kernel log: give --dmesg FILE (dmesg -T or journalctl -k of each node) to see Xid events and NIC ports going down", "")
		v.Branch = ""
		return v
	}
	lines, events := 0, 0
	var lost, roots, follow, down, fatal, warns []string
	stall, stallText := firstUnfinished(ev)
	describe := func(k KernelLog, e dmesg.Event) string {
		return describeEvent(ev, k, e) + beside(e, stall, stallText)
	}
	for _, k := range ev.Kernel {
		lines += k.Log.Lines
		events += len(k.Log.Events)
		for _, e := range k.Log.GPUsLost() {
			lost = append(lost, describe(k, e))
		}
		for _, e := range k.Log.Xids() {
			switch {
			case e.Xid == 79:
			case e.CausedBy > 0:
				follow = append(follow, describe(k, e))
			default:
				roots = append(roots, describe(k, e))
			}
		}
		for _, e := range k.Log.LinksDown() {
			down = append(down, describe(k, e))
		}
		for _, e := range k.Log.Of(dmesg.KindModule) {
			if e.State == "unplugged" || e.State == "error" {
				down = append(down, describe(k, e))
			}
		}
		for _, e := range k.Log.Of(dmesg.KindSXid) {
			if e.State == "fatal" {
				fatal = append(fatal, describe(k, e))
			} else {
				warns = append(warns, describe(k, e))
			}
		}
		for _, e := range k.Log.Of(dmesg.KindAER) {
			if e.State == "corrected" {
				warns = append(warns, describe(k, e)+" (corrected: the link retried; many of them mean a marginal slot, riser or cable)")
			} else {
				fatal = append(fatal, describe(k, e))
			}
		}
		for _, e := range k.Log.Of(dmesg.KindNICFirmware) {
			fatal = append(fatal, describe(k, e))
		}
		for _, e := range k.Log.Of(dmesg.KindPCIePower) {
			warns = append(warns, describe(k, e)+" (the NIC may throttle or drop its link)")
		}
		for _, e := range k.Log.Flaps() {
			warns = append(warns, "flapped: "+describe(k, e)+" (down, then up again: a collective over it in that moment fails or stalls until NCCL's retries run out)")
		}
	}
	v.Evidence = append(v.Evidence, fmt.Sprintf("%d kernel log(s), %d lines, %d GPU, NIC or PCIe events", len(ev.Kernel), lines, events))
	if stall != nil {
		v.Evidence = append(v.Evidence, "events placed beside "+stallText+" (kernel times without a zone read as UTC)")
	}
	v.Evidence = append(v.Evidence, prose.Distinct(append(append(append(append(append(lost, roots...), fatal...), down...), follow...), warns...))...)
	switch {
	case len(lost) > 0:
		v.judge(Fail, "a GPU fell off the bus: "+lost[0],
			"drain the node: the GPU is gone until it is reset (nvidia-smi -r, or a reboot); check its power, cooling and the PCIe slot; every job on it hangs or dies")
	case len(roots) > 0:
		v.judge(Fail, fmt.Sprintf("the GPU driver logged %d Xid event(s): %s", len(roots), roots[0]),
			"act on the Xid as NVIDIA's Xid catalog says (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html); a job on that GPU stops at its next collective")
	case len(fatal) > 0:
		v.judge(Fail, fmt.Sprintf("%d fatal PCIe, NVSwitch or NIC firmware event(s): %s", len(fatal), fatal[0]),
			"drain the node and read the device's error in full (lspci -vvv for AER status, nvidia-smi -q for the NVSwitch, the NIC's devlink health); the collectives through that device stop")
	case len(down) > 0:
		v.judge(Fail, "NIC ports, interfaces or modules left down: "+strings.Join(down, "; "),
			"ibstat or ip link on the node (State, Physical state), the transceiver and cable (ethtool -m), the switch port; a job across nodes stops at its next collective over that NIC")
	case len(follow) > 0:
		v.judge(Warn, fmt.Sprintf("%d Xid event(s) that follow from an earlier one not in this log: %s", len(follow), follow[0]),
			"find the earlier Xid each names (older log lines, or the node's journal): that one is the fault")
	case len(warns) > 0:
		v.judge(Warn, fmt.Sprintf("%d event(s) that did not stop a device but can stall a collective: %s", len(warns), warns[0]),
			"count them over time (a flap or a corrected error now and then is noise; a rising count is a failing link): the port counters (link downed, symbol errors) and AER status tell")
	default:
		v.judge(OK, "no Xid, no GPU off the bus, no PCIe, NVSwitch or NIC fault and no NIC port down in the kernel log", "")
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
		for _, e := range k.Log.Events {
			switch {
			case e.Kind == dmesg.KindSXid && e.State == "fatal",
				e.Kind == dmesg.KindAER && e.State != "corrected",
				e.Kind == dmesg.KindNICFirmware,
				e.Kind == dmesg.KindModule && (e.State == "unplugged" || e.State == "error"):
				out = append(out, describeEvent(ev, k, e))
			}
		}
	}
	return prose.Distinct(out)
}

// kernelTimeLayouts are the wall-clock forms parse/dmesg keeps that carry
// a year: dmesg -T, OpenWrt logread, dmesg --time-format iso.
var kernelTimeLayouts = []string{"Mon Jan _2 15:04:05 2006", "Mon Jan 2 15:04:05 2006", "2006-01-02T15:04:05,999999-07:00", "2006-01-02T15:04:05.999999-07:00", "2006-01-02T15:04:05-07:00", time.RFC3339Nano}

func kernelTime(s string) (time.Time, bool) {
	for _, l := range kernelTimeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// firstUnfinished is the creation time of the earliest collective a
// Flight Recorder dump shows not completed, and how to name it.
func firstUnfinished(ev *Evidence) (*time.Time, string) {
	var best *flightrec.Entry
	var rank int
	for _, d := range ev.FlightRecorder {
		for i := range d.Entries {
			e := &d.Entries[i]
			if e.State == flightrec.StateCompleted || e.TimeCreatedNs == 0 {
				continue
			}
			if best == nil || e.TimeCreatedNs < best.TimeCreatedNs {
				best, rank = e, d.Rank
			}
		}
	}
	if best == nil {
		return nil, ""
	}
	t := time.Unix(0, best.TimeCreatedNs).UTC()
	return &t, fmt.Sprintf("the first collective left unfinished: %s seq %d on rank %d, enqueued %s (Flight Recorder)", best.ProfilingName, best.CollectiveSeqID, rank, t.Format("2006-01-02 15:04:05Z"))
}

// beside says how far an event was from the stalled collective, when both
// carry wall-clock times (a kernel log without a year, or one stamped in
// seconds since boot, cannot be placed).
func beside(e dmesg.Event, stall *time.Time, _ string) string {
	if stall == nil {
		return ""
	}
	t, ok := kernelTime(e.Time)
	if !ok {
		return ""
	}
	d := t.Sub(*stall).Round(time.Second)
	switch {
	case d < 0:
		return fmt.Sprintf(" [%s before the first unfinished collective]", -d)
	case d == 0:
		return " [the same second as the first unfinished collective]"
	}
	return fmt.Sprintf(" [%s after the first unfinished collective]", d)
}

// describeEvent names the device the way the rest of the report does:
// GPUn of the topology when the bus address matches.
func describeEvent(ev *Evidence, k KernelLog, e dmesg.Event) string {
	s := e.String()
	if m, ok := xidMeanings[e.Xid]; ok && e.Kind == dmesg.KindXid {
		s += " [Xid " + fmt.Sprint(e.Xid) + ": " + m + "]"
	}
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
		return v.judge(Skipped, "no stacks: give --stacks DIR (py-spy dump --pid of each rank, one rank_N.txt per rank) to see where each process is and which are gone", "")
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
	return v.judge(OK, fmt.Sprintf("%d rank(s) with a stack, every process alive", len(alive)), "")
}

// xidMeanings are what NVIDIA's Xid catalog says of the Xids a
// communication job meets most, in a few words and with the catalog's
// first action (NVIDIA Xid catalog for Ampere and newer,
// docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html; the
// NVLink codes 144-150 by the names leptonai/gpud#1160 and #1174 read
// from it).
var xidMeanings = map[int]string{
	13:  "graphics engine exception, usually the application (an out-of-range access); restart the app",
	31:  "GPU memory page fault, usually the application (an illegal address); restart the app",
	43:  "GPU stopped processing a channel (a user application fault); restart the app",
	45:  "preemptive cleanup of a channel: follows another Xid, or a process killed or aborted (an NCCL abort gives one)",
	48:  "double-bit ECC error: uncorrectable memory error; reset the GPU",
	61:  "internal micro-controller breakpoint or warning; reset the GPU if it repeats",
	62:  "internal micro-controller halt; reset the GPU",
	63:  "ECC page retirement or row remapping recorded; reset the GPU to apply it",
	64:  "ECC page retirement or row remapping failed; reset the GPU, then have it serviced if it repeats",
	74:  "NVLink error: a link between GPUs (or to an NVSwitch) failed; collectives over it stall or fail; reset the GPU",
	79:  "GPU has fallen off the bus: gone until reset or reboot",
	92:  "high single-bit ECC error rate",
	94:  "contained ECC error: only the applications using the bad memory are affected; restart them",
	95:  "uncontained ECC error: every application on the GPU is affected; reset the GPU",
	109: "context switch timeout",
	119: "GSP RPC timeout: the GPU's system processor stopped answering; reset the GPU",
	120: "GSP error; reset the GPU",
	137: "NVLink FLA privilege error",
	140: "unrecovered ECC error",
	144: "NVLink SAW error (NVLINK_SAW_ERROR)",
	145: "NVLink RLW error (NVLINK_RLW_ERROR)",
	146: "NVLink TLW error (NVLINK_TLW_ERROR)",
	147: "NVLink TREX error (NVLINK_TREX_ERROR)",
	148: "NVLink NVLPW control error (NVLINK_NVLPW_CTRL_ERROR)",
	149: "NVLink NETIR error (NVLINK_NETIR_ERROR)",
	150: "NVLink MSE error (NVLINK_MSE_ERROR)",
	154: "GPU recovery action changed: the driver asks for a reset or a reboot",
}
