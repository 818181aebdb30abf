package doctor

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// A node as `ip -br addr` shows a typical GPU node: loopback, docker's
// bridge, the management Ethernet and an IPoIB interface.
func node(host, ifname string, ifs ...NetInterface) *Report {
	return &Report{Host: host, Network: &NodeNetwork{Interfaces: ifs, SocketIfname: ifname}}
}

func itf(name string, addrs ...string) NetInterface {
	return NetInterface{Name: name, Addrs: addrs, Up: true}
}

var (
	lo      = itf("lo", "127.0.0.1/8", "::1/128")
	docker0 = itf("docker0", "172.17.0.1/16")
)

func TestNCCLSocketPick(t *testing.T) {
	cases := []struct {
		name, ifname string
		ifs          []NetInterface
		want         string // "name addr", "" for none
	}{
		{"ib first", "", []NetInterface{lo, docker0, itf("eth0", "10.1.0.5/24"), itf("ib0", "192.168.10.5/24")}, "ib0 192.168.10.5/24"},
		{"skips lo and docker", "", []NetInterface{lo, docker0, itf("eth0", "10.1.0.5/24")}, "eth0 10.1.0.5/24"},
		{"virbr skipped too", "", []NetInterface{lo, itf("virbr0", "192.168.122.1/24"), itf("enp1s0", "10.1.0.5/24")}, "enp1s0 10.1.0.5/24"},
		{"IPv4 of every interface before IPv6", "", []NetInterface{lo, itf("eth0", "fd00::5/64"), itf("eth1", "10.2.0.5/16")}, "eth1 10.2.0.5/16"},
		{"only docker left", "", []NetInterface{lo, docker0}, "docker0 172.17.0.1/16"},
		{"only loopback left, IPv6 loopback skipped", "", []NetInterface{lo}, "lo 127.0.0.1/8"},
		{"told by prefix", "eth", []NetInterface{lo, itf("ib0", "192.168.10.5/24"), itf("eth1", "10.1.0.5/24")}, "eth1 10.1.0.5/24"},
		{"told exact name absent", "=eth0", []NetInterface{lo, itf("eth01", "10.1.0.5/24")}, ""},
		{"told exclusion", "^ib,lo", []NetInterface{lo, itf("ib0", "192.168.10.5/24"), itf("bond0", "10.3.0.5/24")}, "bond0 10.3.0.5/24"},
		{"interface without address", "eth2", []NetInterface{lo, itf("eth2")}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ncclSocketPick(c.ifs, c.ifname)
			s := ""
			if ok {
				s = got.name + " " + got.addr.String()
			}
			if s != c.want {
				t.Errorf("pick = %q, want %q", s, c.want)
			}
		})
	}
}

func TestCheckSocketSubnets(t *testing.T) {
	cases := []struct {
		name    string
		reports []*Report
		env     map[string]string
		want    Status
		says    []string
	}{
		{"same subnet on every node",
			[]*Report{node("gpu1", "", lo, docker0, itf("eth0", "10.1.0.5/24")), node("gpu2", "", lo, docker0, itf("eth0", "10.1.0.6/24"))},
			nil, OK, []string{"10.1.0.0/24 on all 2 nodes"}},
		{"different subnets, nodes named",
			[]*Report{node("gpu1", "", lo, itf("eth0", "10.1.0.5/24")), node("gpu2", "", lo, itf("eth0", "10.1.1.6/24")), node("gpu3", "", lo, itf("eth0", "10.1.0.7/24"))},
			nil, Warn, []string{"different subnets", "10.1.0.0/24 on gpu1, gpu3", "10.1.1.0/24 on gpu2"}},
		{"prefix lengths differ",
			[]*Report{node("gpu1", "", lo, itf("eth0", "10.1.0.5/24")), node("gpu2", "", lo, itf("eth0", "10.1.0.6/16"))},
			nil, Warn, []string{"10.1.0.0/24 on gpu1", "10.1.0.0/16 on gpu2"}},
		{"interface present on some nodes only",
			[]*Report{node("gpu1", "", lo, itf("ib0", "192.168.10.5/24"), itf("eth0", "10.1.0.5/24")), node("gpu2", "", lo, itf("eth0", "10.1.0.6/24"))},
			nil, Warn, []string{"different interfaces", "ib0 on gpu1 (absent on gpu2)", "eth0 on gpu2", "192.168.10.0/24 on gpu1", "10.1.0.0/24 on gpu2"}},
		{"told interface missing on a node fails",
			[]*Report{node("gpu1", "", lo, itf("ens5", "10.1.0.5/24")), node("gpu2", "", lo, itf("ens6", "10.1.0.6/24"))},
			map[string]string{"NCCL_SOCKET_IFNAME": "=ens5"}, Fail, []string{"gpu2 (NCCL_SOCKET_IFNAME==ens5 selects no interface"}},
		{"the node's own setting wins over the follow-up's",
			[]*Report{node("gpu1", "ens5", lo, itf("ens5", "10.1.0.5/24")), node("gpu2", "ens6", lo, itf("ens5", "10.9.0.6/24"), itf("ens6", "10.1.0.6/24"))},
			map[string]string{"NCCL_SOCKET_IFNAME": "ens5"}, Warn, []string{"ens5 on gpu1", "ens6 on gpu2"}},
		{"docker picked on both: same 172.17 subnet, not judged here",
			[]*Report{node("gpu1", "", lo, docker0), node("gpu2", "", lo, docker0)},
			nil, OK, []string{"172.17.0.0/16"}},
		{"one report with interfaces: cannot compare",
			[]*Report{node("gpu1", "", lo, itf("eth0", "10.1.0.5/24")), {Host: "gpu2"}},
			nil, Skipped, []string{"interfaces of 1 node(s)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := CheckSocketSubnets(c.reports, c.env)
			if v.Status != c.want {
				t.Fatalf("got %s, want %s", v, c.want)
			}
			for _, s := range c.says {
				if !strings.Contains(v.Summary, s) {
					t.Errorf("summary %q lacks %q", v.Summary, s)
				}
			}
		})
	}
}

// The node's report carries its interfaces through report.json, and the
// follow-up over the nodes' reports runs socket-subnets.
func TestNodeReportsCarryInterfaces(t *testing.T) {
	var reps []*Report
	for _, n := range []struct{ host, addr string }{{"gpu1", "10.1.0.5/24"}, {"gpu2", "10.1.1.6/24"}} {
		ev := &Evidence{Host: n.host, Env: map[string]string{}}
		addInterfaces(ev, func() ([]NetInterface, error) { return []NetInterface{lo, itf("eth0", n.addr)}, nil })
		var buf bytes.Buffer
		if err := Diagnose(ev).WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		rep, err := ReadReport(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Network == nil || len(rep.Network.Interfaces) != 2 {
			t.Fatalf("report.json lost the interfaces: %+v", rep.Network)
		}
		reps = append(reps, rep)
	}
	r := Diagnose(&Evidence{NodeReports: reps})
	v, ok := r.find("socket-subnets")
	if !ok || v.Status != Warn || !strings.Contains(v.Summary, "10.1.1.0/24 on gpu2") {
		t.Fatalf("follow-up: %v %v", v, ok)
	}
	ev := &Evidence{}
	addInterfaces(ev, func() ([]NetInterface, error) { return nil, errors.New("no netlink") })
	if len(ev.Problems) != 1 || ev.Interfaces != nil {
		t.Fatalf("a lister error is a problem: %+v", ev.Problems)
	}
}
