package sysfs

import (
	"errors"
	"reflect"
	"testing"
	"testing/fstest"

	"github.com/commlab/commlab/probes"
)

// roceNode is a fake sysfs tree of one ConnectX port on RoCE, in the names
// of Documentation/ABI/stable/sysfs-class-infiniband: the GID table as
// the kernel fills it for an interface with an IPv4 address (index 0 and
// 1 the link-local GID as v1 and v2, 2 and 3 the IPv4-mapped GID as v1
// and v2), zeroed unused slots, counters/ and hw_counters/ files, and the
// netdev's MTU under sys/class/net. The numbers are made up.
func roceNode(mtu string) fstest.MapFS {
	f := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s + "\n")} }
	pb := "sys/class/infiniband/mlx5_0/ports/1/"
	m := fstest.MapFS{
		pb + "state":                                f("4: ACTIVE"),
		pb + "phys_state":                           f("5: LinkUp"),
		pb + "link_layer":                           f("Ethernet"),
		pb + "rate":                                 f("400 Gb/sec (4X NDR)"),
		pb + "gids/0":                               f("fe80:0000:0000:0000:ba3f:d2ff:fe12:3456"),
		pb + "gids/1":                               f("fe80:0000:0000:0000:ba3f:d2ff:fe12:3456"),
		pb + "gids/2":                               f("0000:0000:0000:0000:0000:ffff:0a00:0001"),
		pb + "gids/3":                               f("0000:0000:0000:0000:0000:ffff:0a00:0001"),
		pb + "gids/4":                               f("0000:0000:0000:0000:0000:0000:0000:0000"),
		pb + "gid_attrs/types/0":                    f("IB/RoCE v1"),
		pb + "gid_attrs/types/1":                    f("RoCE v2"),
		pb + "gid_attrs/types/2":                    f("IB/RoCE v1"),
		pb + "gid_attrs/types/3":                    f("RoCE v2"),
		pb + "gid_attrs/ndevs/0":                    f("enp152s0f1np1"),
		pb + "gid_attrs/ndevs/1":                    f("enp152s0f1np1"),
		pb + "gid_attrs/ndevs/2":                    f("enp152s0f1np1"),
		pb + "gid_attrs/ndevs/3":                    f("enp152s0f1np1"),
		pb + "counters/symbol_error":                f("0"),
		pb + "counters/link_downed":                 f("2"),
		pb + "counters/port_rcv_errors":             f("7"),
		pb + "hw_counters/np_cnp_sent":              f("1234"),
		pb + "hw_counters/out_of_sequence":          f("3"),
		pb + "hw_counters/lifespan":                 f("10"),
		pb + "hw_counters/not_a_number":             f("N/A"),
		"sys/class/infiniband/mlx5_0/device/uevent": f("PCI_SLOT_NAME=0000:98:00.1"),
	}
	if mtu != "" {
		m["sys/class/net/enp152s0f1np1/mtu"] = f(mtu)
	}
	return m
}

func TestRDMAPortDetails(t *testing.T) {
	ibNode := fstest.MapFS{
		"sys/class/infiniband/mlx5_1/ports/1/state":             {Data: []byte("1: DOWN\n")},
		"sys/class/infiniband/mlx5_1/ports/1/link_layer":        {Data: []byte("InfiniBand\n")},
		"sys/class/infiniband/mlx5_1/ports/1/gids/0":            {Data: []byte("fe80:0000:0000:0000:a088:c203:0042:1234\n")},
		"sys/class/infiniband/mlx5_1/ports/1/gid_attrs/types/0": {Data: []byte("IB/RoCE v1\n")},
	}
	cases := []struct {
		name   string
		fsys   fstest.MapFS
		want   []PortDetail
		noRDMA bool
	}{
		{"roce port, jumbo frames", roceNode("9000"), []PortDetail{{
			Device: "mlx5_0", Port: 1, State: "ACTIVE", PhysState: "LinkUp", LinkLayer: "Ethernet", Rate: "400 Gb/sec (4X NDR)",
			Netdev: "enp152s0f1np1", NetdevMTU: 9000, ActiveMTU: 4096,
			GIDs: []PortGID{
				{0, "fe80:0000:0000:0000:ba3f:d2ff:fe12:3456", "IB/RoCE v1", "enp152s0f1np1"},
				{1, "fe80:0000:0000:0000:ba3f:d2ff:fe12:3456", "RoCE v2", "enp152s0f1np1"},
				{2, "0000:0000:0000:0000:0000:ffff:0a00:0001", "IB/RoCE v1", "enp152s0f1np1"},
				{3, "0000:0000:0000:0000:0000:ffff:0a00:0001", "RoCE v2", "enp152s0f1np1"},
			},
			Counters: map[string]uint64{"symbol_error": 0, "link_downed": 2, "port_rcv_errors": 7, "np_cnp_sent": 1234, "out_of_sequence": 3, "lifespan": 10},
		}}, false},
		{"roce port, netdev at 1500", roceNode("1500"), nil, false},
		{"infiniband port", ibNode, []PortDetail{{
			Device: "mlx5_1", Port: 1, State: "DOWN", LinkLayer: "InfiniBand",
			GIDs: []PortGID{{Index: 0, GID: "fe80:0000:0000:0000:a088:c203:0042:1234", Type: "IB/RoCE v1"}},
		}}, false},
		{"no rdma device", fstest.MapFS{"sys/class/net/eth0/mtu": {Data: []byte("1500\n")}}, nil, true},
		{"rdma folder empty", fstest.MapFS{"sys/class/infiniband": {Mode: 0o755 | 1<<31}}, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := New(c.fsys).RDMAPortDetails()
			if c.noRDMA {
				if !errors.Is(err, probes.ErrUnavailable) {
					t.Fatalf("err = %v, want ErrUnavailable", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.want == nil { // only the MTU differs from the first case
				if len(got) != 1 || got[0].NetdevMTU != 1500 || got[0].ActiveMTU != 1024 {
					t.Fatalf("got %+v, want netdev MTU 1500 and active MTU 1024", got)
				}
				return
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestRoCEMTU(t *testing.T) {
	for _, c := range []struct{ netdev, want int }{{9000, 4096}, {4200, 4096}, {4191, 2048}, {1500, 1024}, {1120, 1024}, {1119, 512}, {1000, 512}, {300, 0}, {0, 0}} {
		if got := RoCEMTU(c.netdev); got != c.want {
			t.Errorf("RoCEMTU(%d) = %d, want %d", c.netdev, got, c.want)
		}
	}
}
