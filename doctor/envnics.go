package doctor

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ncclIfSpec is NCCL's interface list syntax for NCCL_IB_HCA and
// NCCL_SOCKET_IFNAME (NVIDIA/nccl v2.28.9-1: src/transport/net_ib.cc and
// src/misc/socket.cc read a leading '^' to exclude, then a leading '=' for
// exact names; src/misc/utils.cc parseStringList splits on ',' with
// ':port', matchIf compares a prefix unless exact, matchPort lets -1 match
// any port, and an empty list matches everything).
type ncclIfSpec struct {
	exclude, exact bool
	items          []ncclIfItem
}

type ncclIfItem struct {
	name string
	port int // -1: any
}

func parseNCCLIfSpec(s string) ncclIfSpec {
	var sp ncclIfSpec
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "^") {
		sp.exclude, s = true, s[1:]
	}
	if strings.HasPrefix(s, "=") {
		sp.exact, s = true, s[1:]
	}
	for _, part := range strings.Split(s, ",") {
		name, port, hasPort := strings.Cut(part, ":")
		if name == "" {
			continue
		}
		it := ncclIfItem{name: name, port: -1}
		if hasPort {
			it.port, _ = strconv.Atoi(port) // atoi, as NCCL: junk is 0
		}
		sp.items = append(sp.items, it)
	}
	return sp
}

// selects says whether NCCL would use the device's port under the spec.
func (sp ncclIfSpec) selects(name string, port int) bool {
	match := len(sp.items) == 0
	for _, it := range sp.items {
		named := strings.HasPrefix(name, it.name)
		if sp.exact {
			named = name == it.name
		}
		if named && (it.port == -1 || port == -1 || it.port == port) {
			match = true
		}
	}
	return match != sp.exclude
}

// nicPort is one RDMA port the evidence knows of.
type nicPort struct {
	name string
	port int
}

func (p nicPort) String() string {
	if p.port < 0 {
		return p.name
	}
	return fmt.Sprintf("%s:%d", p.name, p.port)
}

// rdmaPorts are the node's RDMA ports: the topology's NICs, else the
// devices NCCL's log says it found.
func rdmaPorts(ev *Evidence) ([]nicPort, string) {
	var out []nicPort
	if ev.Topology != nil {
		for _, n := range RDMANICs(ev.Topology) {
			if len(n.Ports) == 0 {
				out = append(out, nicPort{n.Name, -1})
			}
			for _, p := range n.Ports {
				out = append(out, nicPort{n.Name, p.Port})
			}
		}
		if len(out) > 0 {
			return out, "the topology"
		}
	}
	return out, ""
}

// lintNICs checks NCCL_IB_HCA and NCCL_SOCKET_IFNAME against the NICs in
// the evidence: a list that selects no NIC leaves NCCL without IB (it
// falls back to sockets), one that selects a few of the node's NICs makes
// the GPUs whose own NIC is left out share the others; a name without '='
// is a prefix (mlx5_1 also selects mlx5_10).
func lintNICs(ev *Evidence, env map[string]string) Verdict {
	v := Verdict{Layer: LayerNIC, Check: "env-nics", Chapter: chapterRDMA}
	hca, hcaSet := env["NCCL_IB_HCA"]
	ifname, ifSet := env["NCCL_SOCKET_IFNAME"]
	if !hcaSet && !ifSet {
		return v.judge(Skipped, "neither NCCL_IB_HCA nor NCCL_SOCKET_IFNAME is set: NCCL chooses the NICs itself", "")
	}
	status := OK
	var summary []string
	raise := func(s Status) {
		if s > status {
			status = s
		}
	}
	if hcaSet {
		sp := parseNCCLIfSpec(hca)
		ports, from := rdmaPorts(ev)
		if len(ports) == 0 {
			summary = append(summary, "NCCL_IB_HCA="+hca+" is set but the evidence lists no RDMA NIC to check it against (give --topo with the NICs)")
			raise(Skipped)
		} else {
			var sel, left []string
			devs := map[string]bool{}
			for _, p := range ports {
				devs[p.name] = true
				if sp.selects(p.name, p.port) {
					sel = append(sel, p.String())
				} else {
					left = append(left, p.String())
				}
			}
			v.Evidence = append(v.Evidence, fmt.Sprintf("NCCL_IB_HCA=%s (%s) against %d RDMA port(s) from %s: selects %s; leaves %s",
				hca, specWords(sp), len(ports), from, orNone(sel), orNone(left)))
			if !sp.exact && !sp.exclude {
				for _, it := range sp.items {
					var extra []string
					for d := range devs {
						if d != it.name && strings.HasPrefix(d, it.name) {
							extra = append(extra, d)
						}
					}
					if len(extra) > 0 {
						sort.Strings(extra)
						v.Evidence = append(v.Evidence, fmt.Sprintf("without '=' %s is a prefix: it also selects %s (=%s selects it alone)", it.name, strings.Join(extra, ", "), it.name))
					}
				}
			}
			switch {
			case len(sel) == 0:
				raise(Fail)
				summary = append(summary, fmt.Sprintf("NCCL_IB_HCA=%s selects none of the %d RDMA port(s) (%s): NCCL finds no IB device and falls back to TCP sockets", hca, len(ports), strings.Join(left, ", ")))
			case len(left) > 0 && len(devs) > 1:
				raise(Warn)
				summary = append(summary, fmt.Sprintf("NCCL_IB_HCA=%s selects %d of the node's %d RDMA port(s) (%s): the GPUs whose own NIC is left out (%s) send through the selected ones, over a longer PCIe path, and the node's network bandwidth is that of %d NIC(s)",
					hca, len(sel), len(ports), strings.Join(sel, ", "), strings.Join(left, ", "), len(sel)))
			default:
				summary = append(summary, fmt.Sprintf("NCCL_IB_HCA=%s selects all %d RDMA port(s)", hca, len(ports)))
			}
		}
	}
	if ifSet {
		sp := parseNCCLIfSpec(ifname)
		var seen []string
		if ev.NCCLLog != nil && ev.NCCLLog.Network != nil {
			for _, d := range ev.NCCLLog.Network.SocketDevices {
				seen = append(seen, d)
			}
			if oob := ev.NCCLLog.Network.OOB; oob != "" {
				seen = append(seen, oob)
			}
		}
		noIface := false
		if ev.NCCLLog != nil {
			for _, w := range ev.NCCLLog.Warnings {
				t := strings.ToLower(w.Text)
				if strings.Contains(t, "no socket interface found") || strings.Contains(t, "no usable listening interface") {
					noIface = true
				}
			}
		}
		switch {
		case noIface:
			raise(Fail)
			summary = append(summary, "NCCL_SOCKET_IFNAME="+ifname+" matches no interface NCCL could use: its log warns that no socket interface was found")
		case len(seen) > 0:
			summary = append(summary, fmt.Sprintf("NCCL_SOCKET_IFNAME=%s (%s): NCCL used %s", ifname, specWords(sp), strings.Join(seen, ", ")))
		default:
			summary = append(summary, "NCCL_SOCKET_IFNAME="+ifname+" ("+specWords(sp)+"); the evidence lists no interface to check it against (NCCL's log with INIT,NET shows the one it used)")
			raise(Skipped)
		}
	}
	next := ""
	if status == Fail || status == Warn {
		next = "list every NIC a GPU uses (or unset NCCL_IB_HCA: NCCL pairs each GPU with its nearest NIC); use '=' for exact names; check with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET which NICs it reports"
		v.Branch = BranchMultiNode
	}
	if status == Skipped && len(summary) > 1 {
		status = OK
	}
	return v.judge(status, strings.Join(summary, "; "), next)
}

func specWords(sp ncclIfSpec) string {
	var w []string
	if sp.exclude {
		w = append(w, "exclude")
	} else {
		w = append(w, "include")
	}
	if sp.exact {
		w = append(w, "exact names")
	} else {
		w = append(w, "name prefixes")
	}
	return strings.Join(w, ", ")
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}
