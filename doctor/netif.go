package doctor

// This file checks the interfaces and addresses NCCL talks through across
// nodes: the socket interface its bootstrap and NET/Socket use (told by
// NCCL_SOCKET_IFNAME or picked by NCCL) against the job's node count
// (socket-interface), and on RoCE the GID NCCL uses per port and the MTU
// along the path (roce-gid), from show_gids, ibv_devinfo -v, ibstat or
// rdma link output (parse/rdmatools) given per node.

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse/rdmatools"
)

// ncclIfPickSource is how NCCL picks a socket interface when not told:
// "ib" first, then anything but docker, lo and virbr, then docker, then lo,
// then virbr; told, it uses what NCCL_SOCKET_IFNAME selects or fails
// (NVIDIA/nccl v2.28.9-1 src/misc/socket.cc ncclFindInterfaces; virbr was
// added to the exclusions in 2.2x, before it "^docker,lo").
const ncclIfPickSource = "NVIDIA/nccl v2.28.9-1 src/misc/socket.cc ncclFindInterfaces"

// RDMAOutput is one node's RDMA tool output (show_gids, ibv_devinfo -v,
// ibstat, rdma link), read by parse/rdmatools.
type RDMAOutput struct {
	Name   string            `json:"name"`
	Host   string            `json:"host,omitempty"`
	Report *rdmatools.Report `json:"-"`
}

// ifaceKind says what kind of interface a name is, by the prefixes NCCL
// and the kernel use: "loopback", "bridge" (container and VM bridges,
// whose addresses are private to each host) or "".
func ifaceKind(name string) string {
	switch {
	case name == "lo" || strings.HasPrefix(name, "lo:"):
		return "loopback"
	case strings.HasPrefix(name, "docker"), strings.HasPrefix(name, "virbr"), strings.HasPrefix(name, "veth"),
		strings.HasPrefix(name, "br-"), strings.HasPrefix(name, "cni"), strings.HasPrefix(name, "flannel"):
		return "bridge"
	}
	return ""
}

// socketUse is one interface NCCL's log says it used: "eth0:10.0.0.1<0>".
type socketUse struct{ name, addr, from string }

func parseSocketUse(s, from string) socketUse {
	name, rest, _ := strings.Cut(s, ":")
	addr := rest
	if i := strings.IndexByte(addr, '<'); i >= 0 {
		addr = addr[:i]
	}
	addr = strings.Trim(addr, "[]")
	return socketUse{name: strings.TrimSpace(name), addr: addr, from: from}
}

// addrKind says what is wrong with an address for traffic between nodes.
func addrKind(a string) string {
	ip, err := netip.ParseAddr(a)
	if err != nil {
		return ""
	}
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	}
	if ip.Is4() && ip.As4()[0] == 172 && ip.As4()[1] == 17 {
		return "docker-default"
	}
	return ""
}

// checkSocketInterface judges the socket interface NCCL uses (or was
// told to) against the job's node count: loopback across nodes cannot
// work, a bridge's or link-local address only by chance.
func checkSocketInterface(ev *Evidence, env map[string]string) Verdict {
	v := Verdict{Layer: LayerNIC, Check: "socket-interface", Chapter: chapterRDMA}
	nodes := ev.Nodes()
	ifname, told := env["NCCL_SOCKET_IFNAME"]
	var used []socketUse
	if ev.NCCLLog != nil && ev.NCCLLog.Network != nil {
		for _, d := range ev.NCCLLog.Network.SocketDevices {
			used = append(used, parseSocketUse(d, "NET/Socket"))
		}
		if oob := ev.NCCLLog.Network.OOB; oob != "" {
			used = append(used, parseSocketUse(oob, "NET/IB OOB"))
		}
	}
	v.Evidence = append(v.Evidence, fmt.Sprintf("the job spans %d node(s) as far as the evidence shows", nodes), "NCCL's choice: "+ncclIfPickSource)
	var fails, warns []string
	for _, u := range used {
		v.Evidence = append(v.Evidence, fmt.Sprintf("%s uses %s (%s)", u.from, u.name, orDash(u.addr)))
		kind := ifaceKind(u.name)
		if k := addrKind(u.addr); k != "" && k != "docker-default" {
			kind = k
		} else if k == "docker-default" && kind == "" {
			kind = "bridge"
		}
		switch {
		case kind == "loopback" && nodes > 1:
			fails = append(fails, fmt.Sprintf("%s uses the loopback interface %s on a job of %d nodes: other nodes cannot reach it, so bootstrap or connection setup hangs until its timeout", u.from, u.name, nodes))
		case kind == "bridge" && nodes > 1:
			warns = append(warns, fmt.Sprintf("%s uses %s (%s), a container or VM bridge: its addresses are private to each host (docker's 172.17.0.0/16 is the same on every node), so ranks on other nodes reach their own bridge, not this one", u.from, u.name, orDash(u.addr)))
		case kind == "link-local" && nodes > 1:
			warns = append(warns, fmt.Sprintf("%s uses %s with the link-local address %s: reachable only on the same layer-2 segment and, for IPv6, only with the interface's scope", u.from, u.name, u.addr))
		}
	}
	if told && len(used) == 0 {
		sp := parseNCCLIfSpec(ifname)
		loopOnly, bridgeOnly := !sp.exclude && len(sp.items) > 0, !sp.exclude && len(sp.items) > 0
		for _, it := range sp.items {
			loopOnly = loopOnly && (it.name == "lo" || it.name == "l" && !sp.exact)
			bridgeOnly = bridgeOnly && ifaceKind(it.name) == "bridge"
		}
		switch {
		case loopOnly && nodes > 1:
			fails = append(fails, fmt.Sprintf("NCCL_SOCKET_IFNAME=%s selects only the loopback interface on a job of %d nodes: other nodes cannot reach it, so bootstrap or connection setup hangs until its timeout", ifname, nodes))
		case loopOnly:
			v.Evidence = append(v.Evidence, "NCCL_SOCKET_IFNAME="+ifname+" selects only loopback: fine on one node, fails once the job spans nodes")
		case bridgeOnly && nodes > 1:
			warns = append(warns, fmt.Sprintf("NCCL_SOCKET_IFNAME=%s selects only container or VM bridges on a job of %d nodes: their addresses are private to each host", ifname, nodes))
		}
	}
	switch {
	case len(fails) > 0:
		v.judge(Fail, strings.Join(fails, "; "), "set NCCL_SOCKET_IFNAME to the interface that carries the nodes' addresses to each other (ip -br addr on each node; =name for an exact one), or unset it and let NCCL skip lo, docker and virbr")
		v.Branch = BranchMultiNode
	case len(warns) > 0:
		v.judge(Warn, strings.Join(warns, "; "), "set NCCL_SOCKET_IFNAME to the interface that carries the nodes' routable addresses (ip -br addr on each node)")
		v.Branch = BranchMultiNode
	case len(used) > 0:
		v.judge(OK, fmt.Sprintf("NCCL's sockets use %s: neither loopback, a bridge nor link-local", usedNames(used)), "")
	case told:
		v.judge(OK, "NCCL_SOCKET_IFNAME="+ifname+" names no loopback or bridge interface (NCCL's log with NCCL_DEBUG_SUBSYS=INIT,NET shows the one it used)", "")
	default:
		v.judge(Skipped, "no interface in the evidence: NCCL's log (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,NET) shows the socket interface it used", "")
	}
	return v
}

func usedNames(us []socketUse) string {
	var out []string
	seen := map[string]bool{}
	for _, u := range us {
		s := u.name
		if u.addr != "" {
			s += " " + u.addr
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return strings.Join(out, ", ")
}

// ncclAutoGIDFrom is the first release that picks a RoCE GID per port
// (NCCL_PARAM(IbGidIndex, "IB_GID_INDEX", -1) and ncclIbGetGidIndex: the
// RoCE version NCCL_IB_ROCE_VERSION_NUM, default 2, the family
// NCCL_IB_ADDR_FAMILY, default AF_INET); before it the default was index 0
// (v2.20.5-1 src/transport/net_ib.cc).
const ncclAutoGIDFrom = "2.21"

// CheckRoCE reads the nodes' RDMA tool outputs for what NCCL needs on
// RoCE: the GID it will use on each active Ethernet port (of RoCE v2 with
// an IPv4 address: v1 is not routed, a link-local fe80 GID only reaches
// the same segment) and one MTU along the path.
func CheckRoCE(ev *Evidence, env map[string]string) Verdict {
	v := Verdict{Layer: LayerNIC, Check: "roce-gid", Chapter: chapterRDMA}
	if len(ev.RDMA) == 0 && ev.NoRDMA != "" {
		return v.judge(Skipped, "no RDMA device on this machine: "+ev.NoRDMA+"; no RoCE GID to check", "")
	}
	if len(ev.RDMA) == 0 {
		return v.judge(Skipped, "no RDMA tool output: give show_gids (or ibv_devinfo -v) of each node to check the RoCE GID NCCL uses", "")
	}
	version := ev.ncclVersion()
	idxText, idxSet := env["NCCL_IB_GID_INDEX"]
	idx := -1
	if idxSet {
		idx = int(ncclReadsInt(idxText))
	}
	auto := !idxSet || idx < 0
	if !idxSet && version != "" && !sameOrLater(version, ncclAutoGIDFrom) {
		auto, idx = false, 0
	}
	type portKey struct {
		node, dev string
		port      int
	}
	gids := map[portKey][]rdmatools.GID{}
	var keys []portKey
	mtus := map[int][]string{}
	roce := map[portKey]bool{}
	for _, o := range ev.RDMA {
		node := o.Host
		if node == "" {
			node = o.Name
		}
		for _, g := range o.Report.AllGIDs() {
			k := portKey{node, g.Device, g.Port}
			if _, ok := gids[k]; !ok {
				keys = append(keys, k)
			}
			gids[k] = append(gids[k], g)
			if g.Type == rdmatools.GIDTypeRoCEv1 || g.Type == rdmatools.GIDTypeRoCEv2 {
				roce[k] = true
			}
		}
		for _, p := range o.Report.Ports() {
			k := portKey{node, p.Device, p.Number}
			if strings.EqualFold(p.LinkLayer, "Ethernet") {
				roce[k] = true
			}
			if p.ActiveMTU > 0 && p.Active() {
				mtus[p.ActiveMTU] = append(mtus[p.ActiveMTU], fmt.Sprintf("%s %s/%d", node, p.Device, p.Number))
			}
		}
	}
	var fails, warns []string
	checked := 0
	for _, k := range keys {
		if !roce[k] {
			continue
		}
		checked++
		name := fmt.Sprintf("%s %s/%d", k.node, k.dev, k.port)
		table := gids[k]
		var pick *rdmatools.GID
		why := ""
		if auto {
			for i := range table {
				if table[i].Type == rdmatools.GIDTypeRoCEv2 && table[i].IPv4 != "" {
					pick = &table[i]
					break
				}
			}
			why = "NCCL's own pick (RoCE v2, IPv4)"
			if pick == nil {
				warns = append(warns, fmt.Sprintf("%s has no RoCE v2 GID with an IPv4 address: NCCL keeps GID index 0 (%s), which is not routed between subnets", name, gidAt(table, 0)))
				continue
			}
		} else {
			for i := range table {
				if table[i].Index == idx {
					pick = &table[i]
				}
			}
			why = fmt.Sprintf("NCCL_IB_GID_INDEX=%d", idx)
			if !idxSet {
				why = "index 0, NCCL " + shortVersion(version) + "'s default (before " + ncclAutoGIDFrom + " NCCL did not pick one)"
			}
			if pick == nil {
				fails = append(fails, fmt.Sprintf("%s has no GID at index %d (%s): the queue pair cannot be brought up (\"ibv_modify_qp failed\")", name, idx, why))
				continue
			}
		}
		v.Evidence = append(v.Evidence, fmt.Sprintf("%s: %s -> %s", name, why, pick.String()))
		best := ""
		for _, g := range table {
			if g.Type == rdmatools.GIDTypeRoCEv2 && g.IPv4 != "" {
				best = strconv.Itoa(g.Index)
				break
			}
		}
		switch {
		case pick.Type == rdmatools.GIDTypeRoCEv1:
			warns = append(warns, fmt.Sprintf("%s uses GID %d, RoCE v1 (%s): v1 frames are not IP-routed, so it works inside one layer-2 domain only%s", name, pick.Index, why, suggest(best)))
		case pick.IPv4 == "" && strings.HasPrefix(strings.ToLower(pick.GID), "fe80"):
			warns = append(warns, fmt.Sprintf("%s uses GID %d, a link-local fe80 address (%s): not routed between subnets%s", name, pick.Index, why, suggest(best)))
		}
	}
	if len(mtus) > 1 {
		var parts []string
		ms := slices.Sorted(maps.Keys(mtus))
		for _, m := range ms {
			parts = append(parts, fmt.Sprintf("%d on %s", m, strings.Join(mtus[m], ", ")))
		}
		warns = append(warns, "active RDMA MTU differs across ports: "+strings.Join(parts, "; ")+" (a path runs at the smaller one; on RoCE a switch MTU below the port's drops the larger frames)")
	}
	v.Evidence = append(v.Evidence, "GID choice: NVIDIA/nccl v2.28.9-1 src/transport/net_ib.cc ncclIbGetGidIndex (RoCE v2 and IPv4 by default from 2.21; index 0 before)")
	if !idxSet && version == "" {
		v.Evidence = append(v.Evidence, "the NCCL version is not in the evidence: read as 2.21 or later, which picks a RoCE v2 IPv4 GID itself; an older NCCL uses index 0")
	}
	switch {
	case len(fails) > 0:
		v.judge(Fail, strings.Join(fails, "; "), "set NCCL_IB_GID_INDEX to the index of the RoCE v2 GID with the port's IPv4 address (show_gids on each node), or unset it on NCCL 2.21+")
	case len(warns) > 0:
		v.judge(Warn, strings.Join(warns, "; "), "use the RoCE v2 GID with an IPv4 address on every port (show_gids), the same MTU end to end (ip link, ibv_devinfo active_mtu, the switch ports)")
	case checked == 0:
		v.judge(Skipped, "no RoCE port in the RDMA tool output (InfiniBand ports need no GID choice)", "")
	default:
		v.judge(OK, fmt.Sprintf("%d RoCE port(s): the GID NCCL uses is RoCE v2 with an IPv4 address on each", checked), "")
	}
	return v
}

func gidAt(table []rdmatools.GID, idx int) string {
	for _, g := range table {
		if g.Index == idx {
			return g.String()
		}
	}
	return "absent"
}

func suggest(best string) string {
	if best == "" {
		return ""
	}
	return "; GID " + best + " is RoCE v2 with IPv4"
}
