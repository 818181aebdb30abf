package doctor

// This file reads the live machine's RDMA ports from sysfs
// (probes/sysfs RDMAPortDetails) into the same evidence the files feed:
// each port's GID table, link layer, state and MTU as an RDMAOutput for
// the roce-gid check, and its counters as a CounterInput for the
// port-counters check. Counters are read once when the doctor starts and
// again after its measurements, so the check sees what changed during
// them.

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/commlab/commlab/parse/netcounters"
	"github.com/commlab/commlab/parse/rdmatools"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/sysfs"
)

// liveRDMASource names the live reading among the evidence's inputs.
const liveRDMASource = "probed: sysfs (/sys/class/infiniband/*/ports/*)"

// addLiveRDMA reads src's RDMA ports into ev where no file gave them:
// the GIDs for roce-gid, the counters for port-counters (a first
// reading). No RDMA device is recorded in ev.NoRDMA, so both checks skip
// saying so. It returns the ports read, for a second counter reading.
func addLiveRDMA(ev *Evidence, src *sysfs.Source, host string) []sysfs.PortDetail {
	ports, err := src.RDMAPortDetails()
	if err != nil {
		if errors.Is(err, probes.ErrUnavailable) {
			ev.NoRDMA = strings.TrimPrefix(strings.TrimPrefix(err.Error(), "sysfs: "), probes.ErrUnavailable.Error()+": ")
		} else {
			ev.AddProblem("rdma ports", liveRDMASource, err.Error())
		}
		return nil
	}
	if len(ev.RDMA) == 0 {
		r := rdmaReportFromSysfs(ports)
		ev.RDMA = append(ev.RDMA, RDMAOutput{Name: "sysfs", Host: host, Report: r})
		ev.AddInput("rdma ports", liveRDMASource, fmt.Sprintf("%d port(s), %d GID(s)", len(ports), len(r.AllGIDs())))
	}
	if len(ev.Counters) == 0 {
		if s := countersFromSysfs(host, ports); s != nil {
			ev.Counters = append(ev.Counters, CounterInput{Name: "sysfs", Snapshot: s})
			ev.AddInput("port counters", liveRDMASource+"/counters, hw_counters", fmt.Sprintf("%d port reading(s)", len(s.Ports)))
		}
	}
	return ports
}

// rereadLiveCounters reads the ports' counters again after the
// measurements and makes the live counter input a window: both readings
// in one snapshot, which port-counters reads as what happened between.
func rereadLiveCounters(ev *Evidence, src *sysfs.Source, host string, before []sysfs.PortDetail) {
	if len(before) == 0 {
		return
	}
	for i, in := range ev.Counters {
		if in.Name != "sysfs" {
			continue
		}
		after, err := src.RDMAPortDetails()
		if err != nil {
			return
		}
		if s := countersFromSysfs(host, append(append([]sysfs.PortDetail(nil), before...), after...)); s != nil {
			ev.Counters[i].Snapshot = s
			ev.AddInput("port counters", liveRDMASource+"/counters, hw_counters", "read again after the measurements: the check reads the change between the two readings")
		}
		return
	}
}

// rdmaReportFromSysfs puts sysfs's ports in the shape the RDMA tools'
// parser gives (parse/rdmatools), so roce-gid reads both alike.
func rdmaReportFromSysfs(ports []sysfs.PortDetail) *rdmatools.Report {
	r := &rdmatools.Report{Tool: "sysfs", GIDsFound: -1}
	byDev := map[string]int{}
	for _, p := range ports {
		i, ok := byDev[p.Device]
		if !ok {
			r.Devices = append(r.Devices, rdmatools.Device{Name: p.Device})
			i = len(r.Devices) - 1
			byDev[p.Device] = i
		}
		rp := rdmatools.Port{Device: p.Device, Number: p.Port, State: strings.ToUpper(p.State), StateText: p.State,
			PhysStateText: p.PhysState, Rate: p.Rate, LinkLayer: p.LinkLayer, ActiveMTU: p.ActiveMTU, Netdev: p.Netdev}
		for _, g := range p.GIDs {
			rp.GIDs = append(rp.GIDs, rdmatools.GID{Device: p.Device, Port: p.Port, Index: g.Index, GID: g.GID,
				IPv4: rdmatools.GIDIPv4(g.GID), Type: sysfsGIDType(g.Type, p.LinkLayer), TypeText: g.Type, Netdev: g.Netdev})
		}
		r.Devices[i].Ports = append(r.Devices[i].Ports, rp)
		r.Devices[i].NumPorts = len(r.Devices[i].Ports)
	}
	return r
}

// sysfsGIDType reads gid_attrs/types/N: the kernel prints "IB/RoCE v1"
// for both an InfiniBand GID and a RoCE v1 one (the link layer tells
// them apart) and "RoCE v2" (drivers/infiniband/core/cache.c gid_type_str).
func sysfsGIDType(text, linkLayer string) string {
	switch {
	case text == "RoCE v2":
		return rdmatools.GIDTypeRoCEv2
	case text == "":
		return ""
	case strings.EqualFold(linkLayer, rdmatools.Ethernet):
		return rdmatools.GIDTypeRoCEv1
	}
	return rdmatools.GIDTypeIB
}

// countersFromSysfs renders the ports' counters as `grep -H` prints the
// files, the sysfs form parse/netcounters reads, so live and pasted
// counters get the same names; nil when no port has counters.
func countersFromSysfs(host string, ports []sysfs.PortDetail) *netcounters.Snapshot {
	var b strings.Builder
	for _, p := range ports {
		for _, name := range slices.Sorted(maps.Keys(p.Counters)) {
			if host != "" {
				b.WriteString(host + ": ")
			}
			fmt.Fprintf(&b, "/sys/class/infiniband/%s/ports/%d/counters/%s:%d\n", p.Device, p.Port, name, p.Counters[name])
		}
	}
	if b.Len() == 0 {
		return nil
	}
	s, err := netcounters.Parse(strings.NewReader(b.String()))
	if err != nil {
		return nil
	}
	return s
}
