package doctor

// This file reads NIC port counters (parse/netcounters) into findings:
// one reading is counts since the counters were last cleared, two
// readings of a port (in one file) are what happened between them.

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/commlab/commlab/parse/netcounters"
)

// CounterInput is one file of port counters.
type CounterInput struct {
	Name     string                `json:"name"`
	Snapshot *netcounters.Snapshot `json:"-"`
}

// counterRule is what a counter above its threshold means.
type counterRule struct {
	name      string
	threshold uint64 // a count above it is a finding
	meaning   string
	source    string
	// failInWindow: rising between two readings fails (the link is
	// failing now), where a count since the last clear only warns.
	failInWindow bool
}

// counterRules are the error counters the doctor reads. ibqueryerrors
// reports any counter above its threshold, 0 unless an error_thresholds
// file says otherwise, and its man page's example sets
// SymbolErrorCounter=10 and LinkErrorRecoveryCounter=10 (rdma-core
// infiniband-diags/man/ibqueryerrors.8.in.rst); the meanings are the
// InfiniBand spec's PortCounters and a maintainer's reading of them
// (guilbaults/infiniband-exporter#12: SymbolErrorCounter and
// PortRcvRemotePhysicalErrors a cable, PortXmitDiscards congestion where
// lossless flow control failed, LinkDownedCounter a cable that flaps).
var counterRules = []counterRule{
	{netcounters.LinkDowned, 0, "the link went down and came back (the link error recovery failed)", "InfiniBand spec PortCounters LinkDownedCounter; guilbaults/infiniband-exporter#12 (a bad cable that flaps)", true},
	{netcounters.SymbolErrors, 10, "symbol errors on the wire: a marginal cable, transceiver or port", "ibqueryerrors(8) example threshold SymbolErrorCounter=10; guilbaults/infiniband-exporter#12", true},
	{netcounters.LinkErrorRecovery, 10, "the link retrained to recover from errors", "ibqueryerrors(8) example threshold LinkErrorRecoveryCounter=10", true},
	{netcounters.RcvErrors, 0, "packets received with errors", "ibqueryerrors(8): any count above 0 without a threshold file", false},
	{netcounters.RcvRemotePhysErrors, 0, "packets marked bad upstream (a cable elsewhere on the path)", "guilbaults/infiniband-exporter#12", false},
	{netcounters.LocalLinkIntegrity, 0, "local link integrity errors", "ibqueryerrors(8): any count above 0", false},
	{netcounters.BufferOverrun, 0, "receive buffer overruns (flow control not holding)", "ibqueryerrors(8): any count above 0", false},
	{netcounters.CRCErrors, 0, "frames with bad CRC: a cable, transceiver or port", "the Ethernet drivers' rx_crc_errors(_phy)", true},
	{netcounters.XmitDiscards, 0, "packets dropped at send: congestion where lossless flow control did not hold", "guilbaults/infiniband-exporter#12", false},
	{netcounters.RcvDiscards, 0, "packets dropped at receive (no buffer): on RoCE, lossy where it should be lossless (PFC)", "mlx5 ethtool rx_discards_phy / rx_out_of_buffer", false},
	{netcounters.AckTimeouts, 0, "queue pairs timed out waiting for an acknowledgement: what NCCL reports as completion error 12 (IBV_WC_RETRY_EXC_ERR) once the retries run out", "mlx5 hw_counters local_ack_timeout_err; NVIDIA/nccl#426", false},
}

// congestionCounters are read as signals, not faults: PFC pause, ECN
// marks and CNPs are congestion control at work.
var congestionPrefixes = []string{netcounters.PausePrefix, "pause_", netcounters.ECNMarked, netcounters.CNPSent, netcounters.CNPHandled, netcounters.XmitWait}

func readCounters(ev *Evidence, p string, _ Files) error {
	return eachInput(p, func(name string, data []byte) {
		s, err := netcounters.Parse(bytes.NewReader(data))
		if err != nil {
			ev.AddProblem("port counters", name, err.Error())
			if s == nil || len(s.Ports) == 0 {
				return
			}
		}
		ev.Counters = append(ev.Counters, CounterInput{Name: strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)), Snapshot: s})
		ev.AddInput("port counters", name, fmt.Sprintf("%d port reading(s)", len(s.Ports)))
	})
}

// CheckCounters reads the ports' error counters against thresholds from
// a named source (port-counters): between two readings of a port, a
// link that went down or a rising symbol or CRC count fails; counts since
// the last clear warn; congestion counters are shown, not judged.
func CheckCounters(ev *Evidence) Verdict {
	v := Verdict{Layer: LayerNIC, Check: "port-counters", Chapter: chapterRDMA}
	if len(ev.Counters) == 0 && ev.NoRDMA != "" {
		return v.judge(Skipped, "no RDMA device on this machine: "+ev.NoRDMA+"; no RDMA port counters to read (ethtool -S output of the Ethernet NICs, given as a file, still can be)", "")
	}
	if len(ev.Counters) == 0 {
		return v.judge(Skipped, "no port counters: give perfquery -x, ethtool -S or the sysfs counters of each NIC (read twice, before and after a run, for what happened during it)", "")
	}
	var fails, warns, signals []string
	window := false
	for _, in := range ev.Counters {
		type reading struct {
			port   netcounters.Port
			counts map[string]uint64
		}
		var rs []reading
		if in.Snapshot.Repeated() {
			window = true
			for _, d := range netcounters.Deltas(in.Snapshot.First(), in.Snapshot.Last()) {
				rs = append(rs, reading{d.Port, d.Counters})
				if len(d.Reset) > 0 {
					v.Evidence = append(v.Evidence, fmt.Sprintf("%s %s: %s went down between the readings (cleared or wrapped): not counted", in.Name, d.Port, strings.Join(d.Reset, ", ")))
				}
			}
		} else {
			for _, p := range in.Snapshot.Ports {
				rs = append(rs, reading{p, p.Counters})
			}
		}
		for _, r := range rs {
			where := in.Name + " " + r.port.String()
			for _, rule := range counterRules {
				n, ok := r.counts[rule.name]
				if !ok || n <= rule.threshold {
					continue
				}
				line := fmt.Sprintf("%s: %s %d (%s; threshold %d: %s)", where, rule.name, n, rule.meaning, rule.threshold, rule.source)
				switch {
				case in.Snapshot.Repeated():
					line = strings.Replace(line, rule.name+" ", rule.name+" +", 1)
					if rule.failInWindow {
						fails = append(fails, line)
					} else {
						warns = append(warns, line)
					}
				default:
					warns = append(warns, line+", since the counters were last cleared")
				}
			}
			var sig []string
			for _, k := range slices.Sorted(maps.Keys(r.counts)) {
				for _, pre := range congestionPrefixes {
					if strings.HasPrefix(k, pre) && r.counts[k] > 0 {
						sig = append(sig, fmt.Sprintf("%s %d", k, r.counts[k]))
						break
					}
				}
			}
			if len(sig) > 0 {
				signals = append(signals, where+": "+strings.Join(sig, ", "))
			}
		}
	}
	v.Evidence = append(v.Evidence, append(append(fails, warns...), signals...)...)
	if len(signals) > 0 {
		v.Evidence = append(v.Evidence, "PFC pause, ECN marks and CNPs are congestion control at work (RoCE: the switch marks, the receiver sends CNPs, the sender slows); many of them during a collective explain a slow curve, not a failure")
	}
	span := "since the counters were last cleared"
	if window {
		span = "between the two readings"
	}
	switch {
	case len(fails) > 0:
		v.judge(Fail, "a port failing during the window: "+fails[0], "replace or reseat the cable or transceiver of that port (ethtool -m for its optics), check the switch port's counters; until then drain the node or leave that NIC out (NCCL_IB_HCA=^...)")
		v.Branch = BranchMultiNode
	case len(warns) > 0:
		v.judge(Warn, fmt.Sprintf("error counters above their thresholds %s: %s", span, warns[0]), "clear the counters (perfquery -R, or read twice) and read them again around a run: a count that rises during the run is the fault, an old one is history")
	default:
		v.judge(OK, fmt.Sprintf("no error counter above its threshold %s (%d reading(s))", span, len(ev.Counters)), "")
	}
	return v
}
