package nccllog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/internal/golden"
)

// Each fixture's network section as the summary prints it.
func TestNetworkSummaryGolden(t *testing.T) {
	golden.Each(t, fixtures(t), func(in string) string {
		return strings.TrimSuffix(in, ".log") + ".network.golden"
	}, func(t *testing.T, data []byte) []byte {
		l, _ := ParseBytes(data)
		var b strings.Builder
		if l.Network == nil {
			b.WriteString("no network section\n")
		} else {
			l.Network.writeSummary(&b)
		}
		return []byte(b.String())
	})
}

// The fixtures cover the network cases: IB with GDR on every NIC and
// connection, RoCE with GDR off on every HCA, GDR off for a GPU/NIC pair
// by distance, an external plugin, no plugin, no IB device (Socket).
func TestNetworkFixtures(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, n *Network)
		why   []string
	}{
		{
			file: "ncclt350_2node_a100_roce_gdr_excerpt.log",
			check: func(t *testing.T, n *Network) {
				if n.Using != "IB" || n.PluginFound || !n.PluginSearched || len(n.IBDevices) != 2 || n.IBDevices[1] != "mlx5_2:1/IB" || n.OOB != "ibp209s0f0:10.128.3.13<0>" {
					t.Errorf("network = %+v", n)
				}
				if n.GDRLevel != "SYS" || len(n.GDR) != 2 || !n.GDR[0].Enabled || n.GDR[1] != (GDRNIC{Net: "IB", Index: 1, Device: "mlx5_2", Enabled: true}) {
					t.Errorf("gdr level %q, nics %+v", n.GDRLevel, n.GDR)
				}
				want := GDRPath{GPU: "81000", NIC: 1, Distance: 6, Limit: 7, Enabled: true, Read: 0, Count: 6}
				if len(n.GDRPaths) != 3 || n.GDRPaths[0] != want || n.GDRPaths[2].Read != 1 {
					t.Errorf("gdr paths = %+v", n.GDRPaths)
				}
				if len(n.NICs) != 1 || n.NICs[0] != (NICUse{Net: "IB", Dev: 1, Connections: 6, GDR: 6}) {
					t.Errorf("nics = %+v", n.NICs)
				}
				if n.Transports["NET/IB/GDRDMA"] != 4 || n.Transports["NET/IB/GDRDMA/Shared"] != 2 {
					t.Errorf("transports = %v", n.Transports)
				}
			},
			why: []string{"built-in IB transport over 2 RDMA port(s)", "NCCL_NET_GDR_LEVEL=SYS", "All 6 network connection(s) use GDRDMA"},
		},
		{
			file: "nccl1537_roce_gdr_disabled_excerpt.log",
			check: func(t *testing.T, n *Network) {
				if n.Using != "IB" || len(n.IBDevices) != 2 || len(n.GDR) != 2 || n.GDR[0].Enabled || n.GDR[1].Device != "mlx5_1" {
					t.Errorf("network = %+v", n)
				}
			},
			why: []string{"GPUDirect RDMA is unavailable on mlx5_0, mlx5_1", "staged through host memory"},
		},
		{
			file: "nccl1657_gdr_distance_disabled_excerpt.log",
			check: func(t *testing.T, n *Network) {
				want := GDRPath{GPU: "42000", NIC: 0, Distance: 6, Limit: 4, Read: -1, Count: 1}
				if len(n.GDRPaths) != 1 || n.GDRPaths[0] != want {
					t.Errorf("gdr paths = %+v", n.GDRPaths)
				}
			},
			why: []string{"turned GPUDirect RDMA off for GPU 42000 / HCA 0 (distance 6 > 4)", "PXB by default"},
		},
		{
			file: "nccl988_ibext_sharp_plugin_excerpt.log",
			check: func(t *testing.T, n *Network) {
				if !n.PluginFound || n.Plugin != "IBext (/opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so)" || n.Using != "IBext" || len(n.IBDevices) != 8 || n.IBDevices[0] != "mlx5_0:1/IB/SHARP" {
					t.Errorf("network = %+v", n)
				}
			},
			why: []string{"IBext transport of its net plugin", "loaded the external net plugin IBext"},
		},
		{
			file: "ncclt185_h100_roce_plugin_load_excerpt.log",
			check: func(t *testing.T, n *Network) {
				if n.PluginFound || !n.PluginSearched || len(n.PluginNotes) != 3 || len(n.IBDevices) != 2 || n.Using != "IB" {
					t.Errorf("network = %+v", n)
				}
			},
			why: []string{"No external net plugin (libnccl-net.so) was found"},
		},
		{
			file: "h200_torch_allreduce_2.28.9.log",
			check: func(t *testing.T, n *Network) {
				if n.Using != "Socket" || !n.NoIBDevice || len(n.IBDevices) != 0 || len(n.SocketDevices) != 1 || n.SocketDevices[0] != "eth0:192.0.2.2<0>" ||
					len(n.Failed) != 1 || n.Failed[0] != "IB" || len(n.Initialized) != 1 || n.Initialized[0] != "Socket" {
					t.Errorf("network = %+v", n)
				}
			},
			why: []string{"found no InfiniBand or RoCE device", "Socket transport over eth0", "kernel's TCP stack"},
		},
		{
			file: "h200_subsys_all_2.28.9.log",
			check: func(t *testing.T, n *Network) {
				if len(n.GDR) != 1 || n.GDR[0] != (GDRNIC{Net: "Socket", Index: 0, Device: "eth0"}) {
					t.Errorf("gdr = %+v", n.GDR)
				}
			},
			why: []string{"Socket transport over eth0"},
		},
		{
			file: "nccl398_2node_p2p_ipc_socket_excerpt.log",
			check: func(t *testing.T, n *Network) {
				if n.Using != "" || n.Transports["P2P/IPC"] != 15 || n.Transports["NET/Socket"] != 2 || len(n.NICs) != 1 || n.NICs[0].GDR != 0 {
					t.Errorf("network = %+v", n)
				}
			},
			why: []string{"The connections use the Socket transport"},
		},
		{
			file: "ncclt82_warn_version_excerpt.log",
			check: func(t *testing.T, n *Network) {
				if len(n.Warnings) != 1 || n.Warnings[0] != "Failed to open libibverbs.so[.1]" {
					t.Errorf("warnings = %q", n.Warnings)
				}
			},
			why: []string{"could not open libibverbs"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			l, _ := ParseBytes(data)
			if l.Network == nil {
				t.Fatal("no network section")
			}
			tc.check(t, l.Network)
			for _, w := range tc.why {
				if !strings.Contains(l.Network.Why, w) {
					t.Errorf("why lacks %q:\n%s", w, l.Network.Why)
				}
			}
			var b strings.Builder
			if err := l.WriteSummary(&b, tc.file); err != nil || !strings.Contains(b.String(), "  why: "+l.Network.Why) {
				t.Errorf("summary lacks the why (err %v):\n%s", err, b.String())
			}
		})
	}
}

// Forms with no public sample at hand, built from NCCL's format strings:
// the 2.4-2.11 per-GPU line of net_ib.cc, the 2.18+ per-pair line with
// "mode", and a NET connection without GDRDMA.
func TestNetworkLineForms(t *testing.T) {
	in := "h:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for GPU 0 / HCA mlx5_0 (no module or not supported by GPU)\n" +
		"h:1:2 [0] NCCL INFO GPU Direct RDMA Enabled for GPU 0 / HCA 0 (distance 4 <= 5), read 1 mode Default\n" +
		"h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0\n" +
		"h:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n"
	l, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	n := l.Network
	if n == nil || len(n.GDR) != 1 || n.GDR[0] != (GDRNIC{Net: "IB", Index: -1, Device: "mlx5_0", Reason: "no module or not supported by GPU"}) {
		t.Fatalf("network = %+v", n)
	}
	if len(n.GDRPaths) != 1 || n.GDRPaths[0] != (GDRPath{GPU: "0", NIC: 0, Distance: 4, Limit: 5, Enabled: true, Read: 1, Mode: "Default", Count: 1}) {
		t.Errorf("gdr paths = %+v", n.GDRPaths)
	}
	if len(n.NICs) != 1 || n.NICs[0] != (NICUse{Net: "IB", Dev: 0, Connections: 2, GDR: 1}) {
		t.Errorf("nics = %+v", n.NICs)
	}
	if !strings.Contains(n.Why, "1 of 2 network connections use GDRDMA") {
		t.Errorf("why = %s", n.Why)
	}
	for tr, want := range map[string]string{"NET/IB/1/GDRDMA/Shared": "NET/IB/GDRDMA/Shared", "NET/Socket/0": "NET/Socket", "P2P/CUMEM/read": "P2P/CUMEM/read", "P2P/direct pointer": "P2P/direct pointer", "SHM/direct/direct": "SHM/direct/direct", "NET/IBext_v8/0/GDRDMA": "NET/IBext_v8/GDRDMA"} {
		if got := TransportKind(tr); got != want {
			t.Errorf("TransportKind(%q) = %q, want %q", tr, got, want)
		}
	}
}

// The logs recorded on the lab's H200 machines (probes/recorded/data):
// one or two GPUs on one VM, no IB device, Socket over eth0, and every
// connection intra-node.
func TestNetworkRecorded(t *testing.T) {
	files, err := filepath.Glob("../../probes/recorded/data/nccl*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded runs: %v", err)
	}
	seen := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var run struct {
			GPUCount int               `json:"gpu_count"`
			Logs     map[string]string `json:"logs"`
		}
		if err := json.Unmarshal(data, &run); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		text, ok := run.Logs["nccl-debug"]
		if !ok {
			continue
		}
		seen++
		t.Run(filepath.Base(f), func(t *testing.T) {
			l, _ := Parse(strings.NewReader(text))
			n := l.Network
			if n == nil {
				t.Fatal("no network section")
			}
			if n.Using != "Socket" || !n.NoIBDevice || n.PluginFound || len(n.SocketDevices) != 1 || !strings.HasPrefix(n.SocketDevices[0], "eth0:") {
				t.Errorf("network = %+v", n)
			}
			if !strings.Contains(n.Why, "found no InfiniBand or RoCE device") {
				t.Errorf("why = %s", n.Why)
			}
			for k := range n.Transports {
				if strings.HasPrefix(k, "NET/") {
					t.Errorf("network transport %s in a one-node run", k)
				}
			}
			if run.GPUCount == 2 && len(l.Connections) > 0 && !strings.Contains(n.Why, "stay inside a node") {
				t.Errorf("two GPUs, why = %s", n.Why)
			}
		})
	}
	if seen == 0 {
		t.Fatal("no recorded run has an nccl-debug log")
	}
}
