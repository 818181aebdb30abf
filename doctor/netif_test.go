package doctor

import (
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/parse/rdmatools"
)

// Lines quoted from public logs: NVIDIA/nccl-tests#217 (NCCL 2.21.5,
// NCCL_SOCKET_IFNAME=lo, one node), vllm-project/vllm#8447 (the
// "nNodes 2" line), NVIDIA/nccl#857 (eth0 on NCCL 2.10.3).
const (
	logLoopback = `NAME :70918:70918 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>
NCCL version 2.21.5+cuda12.4
NAME :70918:70928 [0] NCCL INFO NET/IB : No device found.
NAME :70918:70928 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>
NAME :70918:70928 [0] NCCL INFO Using network Socket
`
	lineTwoNodes = "VM-160-69-tencentos:561:561 [0] NCCL INFO comm 0x1476dca0 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n"
	logEth0      = `ai:480850:480850 [0] NCCL INFO Bootstrap : Using eth0:162.30.2.40<0>
ai:480850:480850 [0] NCCL INFO NET/Socket : Using [0]eth0:162.30.2.40<0>
ai:480850:480850 [0] NCCL INFO Using network Socket
NCCL version 2.10.3+cuda11.3
`
)

func mustLog(t *testing.T, s string) *nccllog.Log {
	t.Helper()
	lg, err := nccllog.ParseBytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return lg
}

func TestSocketInterface(t *testing.T) {
	cases := []struct {
		name string
		log  string
		env  map[string]string
		want Status
		says string
	}{
		{"loopback used, two nodes", logLoopback + lineTwoNodes, nil, Fail, "loopback interface lo on a job of 2 nodes"},
		{"loopback used, one node", logLoopback, nil, OK, ""},
		{"eth0 used", logEth0 + lineTwoNodes, nil, OK, "NCCL's sockets use eth0 162.30.2.40"},
		{"told lo, two nodes, no socket lines", lineTwoNodes, map[string]string{"NCCL_SOCKET_IFNAME": "lo"}, Fail, "NCCL_SOCKET_IFNAME=lo selects only the loopback interface on a job of 2 nodes"},
		{"told =lo, one node", "", map[string]string{"NCCL_SOCKET_IFNAME": "=lo"}, OK, ""},
		{"told docker0, two nodes", lineTwoNodes, map[string]string{"NCCL_SOCKET_IFNAME": "docker0"}, Warn, "only container or VM bridges"},
		{"docker address used", strings.ReplaceAll(logEth0, "eth0:162.30.2.40", "docker0:172.17.0.1") + lineTwoNodes, nil, Warn, "a container or VM bridge"},
		{"link-local used", strings.ReplaceAll(logEth0, "eth0:162.30.2.40", "eth1:169.254.3.1") + lineTwoNodes, nil, Warn, "link-local address 169.254.3.1"},
		{"nothing", "", nil, Skipped, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := &Evidence{}
			if c.log != "" {
				ev.NCCLLog = mustLog(t, c.log)
			}
			env := c.env
			if env == nil {
				env = map[string]string{}
			}
			v := checkSocketInterface(ev, env)
			if v.Status != c.want || !strings.Contains(v.Summary, c.says) {
				t.Errorf("%v %q; want %v saying %q", v.Status, v.Summary, c.want, c.says)
			}
		})
	}
}

// show_gids of NVIDIA/nccl#1131 (H100 hosts, RoCE; rows as pasted, in
// parse/rdmatools/testdata).
const showGIDs1131 = `DEV     PORT    INDEX   GID                                     IPv4            VER     DEV
---     ----    -----   ---                                     ------------    ---     ---
mlx5_0  1       0       fe80:0000:0000:0000:a288:c2ff:fe5b:03ec                 v1      ens3np0
mlx5_0  1       1       fe80:0000:0000:0000:a288:c2ff:fe5b:03ec                 v2      ens3np0
mlx5_0  1       2       0000:0000:0000:0000:0000:ffff:0b00:0048 11.0.0.72       v1      ens3np0
mlx5_0  1       3       0000:0000:0000:0000:0000:ffff:0b00:0048 11.0.0.72       v2      ens3np0
mlx5_1  1       0       fe80:0000:0000:0000:a288:c2ff:fe5b:0374                 v1      ens2np0
mlx5_1  1       1       fe80:0000:0000:0000:a288:c2ff:fe5b:0374                 v2      ens2np0
mlx5_1  1       2       0000:0000:0000:0000:0000:ffff:0b00:0049 11.0.0.73       v1      ens2np0
mlx5_1  1       3       0000:0000:0000:0000:0000:ffff:0b00:0049 11.0.0.73       v2      ens2np0
`

func TestRoCEGID(t *testing.T) {
	r, err := rdmatools.Parse(strings.NewReader(showGIDs1131))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		env     map[string]string
		version string
		want    Status
		says    string
	}{
		{"auto pick 2.21+", nil, "2.28.9", OK, "2 RoCE port(s)"},
		{"auto pick, version unknown", nil, "", OK, ""},
		{"index 3", map[string]string{"NCCL_IB_GID_INDEX": "3"}, "2.28.9", OK, ""},
		{"index 2 is v1", map[string]string{"NCCL_IB_GID_INDEX": "2"}, "2.28.9", Warn, "RoCE v1"},
		{"index 1 is link-local", map[string]string{"NCCL_IB_GID_INDEX": "1"}, "2.28.9", Warn, "link-local fe80"},
		{"index 7 absent", map[string]string{"NCCL_IB_GID_INDEX": "7"}, "2.28.9", Fail, "no GID at index 7"},
		{"old default 0", nil, "2.18.6", Warn, "index 0, NCCL 2.18.6's default"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := &Evidence{RDMA: []RDMAOutput{{Name: "node1", Report: r}}}
			if c.version != "" {
				ev.NCCLLog = mustLog(t, "NCCL version "+c.version+"+cuda12.4\n")
			}
			env := c.env
			if env == nil {
				env = map[string]string{}
			}
			v := CheckRoCE(ev, env)
			if v.Status != c.want || !strings.Contains(v.Summary, c.says) {
				t.Errorf("%v %q; want %v saying %q", v.Status, v.Summary, c.want, c.says)
			}
		})
	}
	if v := CheckRoCE(&Evidence{}, nil); v.Status != Skipped {
		t.Errorf("no RDMA output: %v", v.Status)
	}
}
