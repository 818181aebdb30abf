package doctor

// This file records each node's socket interfaces (name, addresses with
// prefix lengths) in its report, and in the follow-up across nodes
// compares the one NCCL will use on each: on different subnets, or
// present on some nodes only, the bootstrap and NET/Socket connections
// between them need a router or fail (socket-subnets).

import (
	"fmt"
	"maps"
	"net"
	"net/netip"
	"slices"
	"strings"
)

// NetInterface is one network interface of a node with its addresses
// ("10.0.0.5/24", "fd00::5/64"), IPv4 first as getifaddrs lists them.
type NetInterface struct {
	Name  string   `json:"name"`
	Addrs []string `json:"addrs,omitempty"`
	Up    bool     `json:"up"`
}

// NodeNetwork is what a node's report carries of its socket side: its
// interfaces and the NCCL_SOCKET_IFNAME it ran with ("" when unset).
type NodeNetwork struct {
	Interfaces   []NetInterface `json:"interfaces,omitempty"`
	SocketIfname string         `json:"socket_ifname,omitempty"`
}

// InterfaceLister lists the machine's interfaces; LiveInterfaces is the
// live one, tests inject their own.
type InterfaceLister func() ([]NetInterface, error)

// LiveInterfaces lists this machine's interfaces through the net package.
func LiveInterfaces() ([]NetInterface, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("doctor: interfaces: %w", err)
	}
	var out []NetInterface
	for _, i := range ifs {
		n := NetInterface{Name: i.Name, Up: i.Flags&net.FlagUp != 0}
		addrs, _ := i.Addrs()
		var v4, v6 []string
		for _, a := range addrs {
			p, err := netip.ParsePrefix(a.String())
			if err != nil {
				continue
			}
			if p.Addr().Is4() {
				v4 = append(v4, p.String())
			} else {
				v6 = append(v6, p.String())
			}
		}
		n.Addrs = append(v4, v6...)
		out = append(out, n)
	}
	return out, nil
}

// socketCandidate is one interface address NCCL may bind.
type socketCandidate struct {
	name string
	addr netip.Prefix
}

// ncclSocketPick is the interface and address NCCL's bootstrap uses on a
// node with these interfaces: NCCL_SOCKET_IFNAME's selection when told,
// else "ib" interfaces first, then any but docker, lo and virbr, then
// docker, lo, virbr in turn; within a pass, addresses in getifaddrs's
// order (IPv4 of every interface before IPv6), IPv6 loopback skipped
// (NVIDIA/nccl v2.28.9-1 src/misc/socket.cc findInterfaces and
// ncclFindInterfaces). ok is false when nothing matches: NCCL then fails
// with "no socket interface found".
func ncclSocketPick(ifs []NetInterface, ifname string) (socketCandidate, bool) {
	var cands []socketCandidate
	for _, v6 := range []bool{false, true} {
		for _, i := range ifs {
			for _, a := range i.Addrs {
				p, err := netip.ParsePrefix(a)
				if err != nil || p.Addr().Is6() != v6 || p.Addr().Is6() && p.Addr().IsLoopback() {
					continue
				}
				cands = append(cands, socketCandidate{i.Name, p})
			}
		}
	}
	first := func(spec string) (socketCandidate, bool) {
		sp := parseNCCLIfSpec(spec)
		for _, c := range cands {
			if sp.selects(c.name, -1) {
				return c, true
			}
		}
		return socketCandidate{}, false
	}
	if ifname != "" {
		return first(ifname)
	}
	for _, spec := range []string{"ib", "^docker,lo,virbr", "docker", "lo", "virbr"} {
		if c, ok := first(spec); ok {
			return c, true
		}
	}
	return socketCandidate{}, false
}

// CheckSocketSubnets compares the socket interface NCCL uses on each node
// of a run across nodes, from the nodes' reports: one that NCCL_SOCKET_IFNAME
// finds on no interface of a node fails; the interface present on some
// nodes only, or addresses on different subnets, warn (the bootstrap then
// depends on routing between them), with the nodes named.
func CheckSocketSubnets(reports []*Report, env map[string]string) Verdict {
	v := Verdict{Layer: LayerNIC, Check: "socket-subnets", Chapter: chapterRDMA}
	type pick struct {
		node, ifname string
		c            socketCandidate
		ok           bool
		has          map[string]bool
	}
	var picks []pick
	for i, r := range reports {
		if r == nil || r.Network == nil || len(r.Network.Interfaces) == 0 {
			continue
		}
		node := r.Host
		if node == "" {
			node = fmt.Sprintf("node %d", i)
		}
		spec := r.Network.SocketIfname
		if spec == "" {
			spec = env["NCCL_SOCKET_IFNAME"]
		}
		p := pick{node: node, ifname: spec, has: map[string]bool{}}
		for _, itf := range r.Network.Interfaces {
			if len(itf.Addrs) > 0 {
				p.has[itf.Name] = true
			}
		}
		p.c, p.ok = ncclSocketPick(r.Network.Interfaces, spec)
		picks = append(picks, p)
	}
	if len(picks) < 2 {
		return v.judge(Skipped, fmt.Sprintf("interfaces of %d node(s) in the evidence: comparing subnets needs the reports of two or more nodes (commlab doctor on each node, then --nodes DIR)", len(picks)), "")
	}
	v.Evidence = append(v.Evidence, "NCCL's choice: "+ncclIfPickSource+" (findInterfaces: getifaddrs order, IPv4 first)")
	var fails, warns []string
	var missing []string
	subnets := map[string][]string{}
	names := map[string][]string{}
	for _, p := range picks {
		if !p.ok {
			why := "NCCL's own pick finds no interface with an address"
			if p.ifname != "" {
				why = "NCCL_SOCKET_IFNAME=" + p.ifname + " selects no interface with an address"
			}
			missing = append(missing, p.node+" ("+why+")")
			continue
		}
		told := "NCCL's own pick"
		if p.ifname != "" {
			told = "NCCL_SOCKET_IFNAME=" + p.ifname
		}
		v.Evidence = append(v.Evidence, fmt.Sprintf("%s: %s -> %s %s", p.node, told, p.c.name, p.c.addr))
		subnet := p.c.addr.Masked().String()
		subnets[subnet] = append(subnets[subnet], p.node)
		names[p.c.name] = append(names[p.c.name], p.node)
	}
	if len(missing) > 0 {
		fails = append(fails, "no socket interface NCCL can use on "+strings.Join(missing, ", ")+": NCCL fails at init there (\"no socket interface found\") and the other ranks wait at bootstrap")
	}
	if len(names) > 1 {
		var parts []string
		for _, n := range slices.Sorted(maps.Keys(names)) {
			var lacking []string
			for _, p := range picks {
				if !p.has[n] {
					lacking = append(lacking, p.node)
				}
			}
			s := fmt.Sprintf("%s on %s", n, strings.Join(names[n], ", "))
			if len(lacking) > 0 {
				s += fmt.Sprintf(" (absent on %s)", strings.Join(lacking, ", "))
			}
			parts = append(parts, s)
		}
		warns = append(warns, "NCCL uses different interfaces on different nodes: "+strings.Join(parts, "; ")+" (an interface present on some nodes only usually means they are cabled or named differently)")
	}
	if len(subnets) > 1 {
		var parts []string
		for _, s := range slices.Sorted(maps.Keys(subnets)) {
			parts = append(parts, fmt.Sprintf("%s on %s", s, strings.Join(subnets[s], ", ")))
		}
		warns = append(warns, "the nodes' socket addresses are on different subnets: "+strings.Join(parts, "; ")+" (bootstrap and NET/Socket connections then cross a router, or hang until their timeout where none routes)")
	}
	switch {
	case len(fails) > 0:
		v.judge(Fail, strings.Join(append(fails, warns...), "; "), "set NCCL_SOCKET_IFNAME to an interface every node has on the nodes' shared network (ip -br addr on each node)")
		v.Branch = BranchMultiNode
	case len(warns) > 0:
		v.judge(Warn, strings.Join(warns, "; "), "set NCCL_SOCKET_IFNAME to the interface on the subnet all nodes share (ip -br addr on each node; =name for an exact one)")
		v.Branch = BranchMultiNode
	default:
		for s := range subnets {
			v.judge(OK, fmt.Sprintf("NCCL's socket interface is on %s on all %d nodes", s, len(picks)), "")
		}
	}
	return v
}

// addInterfaces lists the node's interfaces into ev through list.
func addInterfaces(ev *Evidence, list InterfaceLister) {
	ifs, err := list()
	if err != nil {
		ev.AddProblem("interfaces", "probed: net.Interfaces", err.Error())
		return
	}
	ev.Interfaces = ifs
	n := 0
	for _, i := range ifs {
		n += len(i.Addrs)
	}
	ev.AddInput("interfaces", "probed: net.Interfaces", fmt.Sprintf("%d interface(s), %d address(es)", len(ifs), n))
}
