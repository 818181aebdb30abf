package doctor

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/commlab/commlab/probes/sysfs"
)

// sysfsPort adds one RDMA port to a fake sysfs tree, in the names of the
// kernel's Documentation/ABI/stable/sysfs-class-infiniband: gids/N with
// gid_attrs/types/N and gid_attrs/ndevs/N, counters/ and hw_counters/,
// and the netdev's MTU under sys/class/net. gids are "type gid" pairs by
// index; the addresses and counts are made up.
func sysfsPort(m fstest.MapFS, dev, linkLayer, netdev, mtu string, gids map[int][2]string, counters map[string]string) fstest.MapFS {
	f := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s + "\n")} }
	pb := "sys/class/infiniband/" + dev + "/ports/1/"
	m[pb+"state"] = f("4: ACTIVE")
	m[pb+"phys_state"] = f("5: LinkUp")
	m[pb+"link_layer"] = f(linkLayer)
	m[pb+"rate"] = f("400 Gb/sec (4X NDR)")
	for i, g := range gids {
		n := string(rune('0' + i))
		m[pb+"gids/"+n] = f(g[1])
		m[pb+"gid_attrs/types/"+n] = f(g[0])
		if netdev != "" {
			m[pb+"gid_attrs/ndevs/"+n] = f(netdev)
		}
	}
	for k, v := range counters {
		m[pb+k] = f(v)
	}
	if netdev != "" {
		m["sys/class/net/"+netdev+"/mtu"] = f(mtu)
	}
	return m
}

const (
	gidLinkLocal = "fe80:0000:0000:0000:ba3f:d2ff:fe12:3456"
	gidIPv4      = "0000:0000:0000:0000:0000:ffff:0a00:0001"
)

// roceGIDs is the table the kernel fills for a RoCE netdev with one IPv4
// address: link-local as v1 and v2, then the IPv4-mapped GID as v1 and v2.
var roceGIDs = map[int][2]string{0: {"IB/RoCE v1", gidLinkLocal}, 1: {"RoCE v2", gidLinkLocal}, 2: {"IB/RoCE v1", gidIPv4}, 3: {"RoCE v2", gidIPv4}}

func TestLiveRDMAFeedsChecks(t *testing.T) {
	cases := []struct {
		name             string
		fsys             fstest.MapFS
		env              map[string]string
		wantGID, wantCnt Status
		gidSays, cntSays string
	}{
		{"roce v2 ipv4 present, clean counters",
			sysfsPort(fstest.MapFS{}, "mlx5_0", "Ethernet", "enp152s0f1np1", "9000", roceGIDs, map[string]string{"counters/symbol_error": "0", "counters/link_downed": "0", "hw_counters/np_cnp_sent": "12"}),
			nil, OK, OK, "RoCE v2 with an IPv4 address", "no error counter above"},
		{"only v1 and link-local: NCCL keeps index 0; link downed since clear",
			sysfsPort(fstest.MapFS{}, "mlx5_0", "Ethernet", "enp152s0f1np1", "9000", map[int][2]string{0: {"IB/RoCE v1", gidLinkLocal}, 1: {"RoCE v2", gidLinkLocal}}, map[string]string{"counters/link_downed": "3"}),
			nil, Warn, Warn, "no RoCE v2 GID with an IPv4 address", "link_downed 3"},
		{"told a GID index the port lacks",
			sysfsPort(fstest.MapFS{}, "mlx5_0", "Ethernet", "enp152s0f1np1", "9000", roceGIDs, nil),
			map[string]string{"NCCL_IB_GID_INDEX": "7"}, Fail, Skipped, "no GID at index 7", "no port counters"},
		{"told v1 index",
			sysfsPort(fstest.MapFS{}, "mlx5_0", "Ethernet", "enp152s0f1np1", "9000", roceGIDs, nil),
			map[string]string{"NCCL_IB_GID_INDEX": "2"}, Warn, Skipped, "RoCE v1", ""},
		{"mtu differs across ports",
			sysfsPort(sysfsPort(fstest.MapFS{}, "mlx5_0", "Ethernet", "eth0", "9000", roceGIDs, nil), "mlx5_1", "Ethernet", "eth1", "1500", roceGIDs, nil),
			nil, Warn, Skipped, "1024 on node1 mlx5_1/1; 4096 on node1 mlx5_0/1", ""},
		{"infiniband port: no GID choice",
			sysfsPort(fstest.MapFS{}, "mlx5_0", "InfiniBand", "", "", map[int][2]string{0: {"IB/RoCE v1", "fe80:0000:0000:0000:a088:c203:0042:1234"}}, map[string]string{"counters/symbol_error": "0"}),
			nil, Skipped, OK, "no RoCE port", ""},
		{"no rdma device: skipped with why, never ok",
			fstest.MapFS{"sys/class/net/eth0/mtu": {Data: []byte("1500\n")}},
			nil, Skipped, Skipped, "no RDMA device on this machine: /sys/class/infiniband is absent", "no RDMA device on this machine: /sys/class/infiniband is absent"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := &Evidence{}
			addLiveRDMA(ev, sysfs.New(c.fsys), "node1")
			g, n := CheckRoCE(ev, c.env), CheckCounters(ev)
			if g.Status != c.wantGID || !strings.Contains(g.Summary, c.gidSays) {
				t.Errorf("roce-gid = %s, want %s containing %q", g, c.wantGID, c.gidSays)
			}
			if n.Status != c.wantCnt || !strings.Contains(n.Summary, c.cntSays) {
				t.Errorf("port-counters = %s, want %s containing %q", n, c.wantCnt, c.cntSays)
			}
		})
	}
}

func TestLiveCountersWindow(t *testing.T) {
	before := sysfsPort(fstest.MapFS{}, "mlx5_0", "Ethernet", "eth0", "9000", roceGIDs, map[string]string{"counters/symbol_error": "100", "counters/link_downed": "1"})
	after := sysfsPort(fstest.MapFS{}, "mlx5_0", "Ethernet", "eth0", "9000", roceGIDs, map[string]string{"counters/symbol_error": "180", "counters/link_downed": "1"})
	same := sysfsPort(fstest.MapFS{}, "mlx5_0", "Ethernet", "eth0", "9000", roceGIDs, map[string]string{"counters/symbol_error": "100", "counters/link_downed": "1"})
	for _, c := range []struct {
		name  string
		after fstest.MapFS
		want  Status
		says  string
	}{
		{"symbol errors rise during the measurements", after, Fail, "symbol_errors +80"},
		{"old counts, nothing during the measurements", same, OK, "between the two readings"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev := &Evidence{}
			ports := addLiveRDMA(ev, sysfs.New(before), "node1")
			if v := CheckCounters(ev); v.Status != Warn {
				t.Fatalf("first reading alone: %s, want warn (counts since the last clear)", v)
			}
			rereadLiveCounters(ev, sysfs.New(c.after), "node1", ports)
			if v := CheckCounters(ev); v.Status != c.want || !strings.Contains(v.Summary, c.says) {
				t.Errorf("got %s, want %s containing %q", v, c.want, c.says)
			}
		})
	}
}

func TestLiveRDMAKeepsFiles(t *testing.T) {
	ev := &Evidence{RDMA: []RDMAOutput{{Name: "show_gids-node1"}}, Counters: []CounterInput{{Name: "perfquery-node1"}}}
	addLiveRDMA(ev, sysfs.New(sysfsPort(fstest.MapFS{}, "mlx5_0", "Ethernet", "eth0", "9000", roceGIDs, map[string]string{"counters/symbol_error": "1"})), "node1")
	if len(ev.RDMA) != 1 || ev.RDMA[0].Name != "show_gids-node1" || len(ev.Counters) != 1 || ev.Counters[0].Name != "perfquery-node1" {
		t.Fatalf("live reading replaced or joined the files: %+v %+v", ev.RDMA, ev.Counters)
	}
}
