package doctor

import (
	"strings"
	"testing"
)

// TestExplainNCCLFailure holds each form to WARN lines quoted from the
// public issues NCCLFailures cites; the 2.28 completion line is written
// from the format string of NVIDIA/nccl v2.28.9-1 src/transport/net_ib.cc
// (no public log of it was at hand).
func TestExplainNCCLFailure(t *testing.T) {
	cases := []struct {
		line, id, detail string
	}{
		{"spark01:2683:2826 [0] misc/ibvwrap.cc:268 NCCL WARN Call to ibv_create_cq failed", "ibv-create-cq", ""},
		{"misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error No such device", "ibv-modify-qp-enodev", ""},
		{"dgxh100-3:225140:225355 [0] misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with error Network is unreachable", "ibv-modify-qp-enetunreach", ""},
		{"-worker-1:946:988 [0] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129", "ib-completion-error", "status 12 is IBV_WC_RETRY_EXC_ERR"},
		{"kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer 10.216.210.236<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid fd00:1148:9000:5000:4:200:3:ff22", "ib-completion-error", "status 12 is IBV_WC_RETRY_EXC_ERR"},
		{"H100-2:19989:20082 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer fe80::966d:ae03:8b:df78%ib0<53249> with error 4, opcode 32564, len 32564, vendor err 81 (Send)", "ib-completion-error", "status 4 is IBV_WC_LOC_PROT_ERR"},
		{"NET/IB: Got completion from peer 10.0.0.2<4567> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RDMA_WRITE(1) reqSize=0 vendor_err=129 req_type=Send hca mlx5_0", "ib-completion-error", "status 12 is IBV_WC_RETRY_EXC_ERR"},
		{"NAME :70918:70927 [0] misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer localhost<56086>", "socket-closed-by-peer", ""},
		{"dgxh100-3:225140:225355 [0] proxy.cc:1519 NCCL WARN [Proxy Service 1] Failed to execute operation Connect from rank 1, retcode 2", "proxy-call-failed", ""},
		{"host3: Test NCCL failure common.cu:1125 'unhandled system error'", "unhandled-system-error", ""},
		{"[0] tcpxResult_t tcpxCommProgress(tcpxComm*):1231 NCCL WARN 0xadca8062b70:0xadca805d0f0, nic 0, enp12s0, 172.16.0.11<39187><-172.16.0.95<46723> rx rx ctrl timeout cnt 7331502, nanos 10000000585", "tcpx-ctrl-timeout", ""},
		{"ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely. Last error: NET/IB : Got completion from peer 11.214.147.122<39138> with error 12, opcode 0, len 0, vendor err 129", "ib-completion-error", "IBV_WC_RETRY_EXC_ERR"},
	}
	for _, c := range cases {
		f, detail, ok := explainNCCLFailure(c.line)
		if !ok || f.ID != c.id || !strings.Contains(detail, c.detail) {
			t.Errorf("%q:\n got %q %q %v; want %q %q", c.line, f.ID, detail, ok, c.id, c.detail)
		}
	}
	if _, _, ok := explainNCCLFailure("NCCL WARN some other thing"); ok {
		t.Error("an unknown line matched")
	}
	for _, f := range NCCLFailures {
		if f.match == nil || len(f.Sources) == 0 || len(f.Causes) == 0 || f.Check == "" {
			t.Errorf("%s: pattern, sources, causes and check are all needed", f.ID)
		}
	}
}

// The root failure is named before its echoes: NVIDIA/nccl-tests#185's
// lines, in the order printed (ibv_modify_qp, then the proxy, then a
// peer's socket closing).
func TestNCCLWarningsRootFirst(t *testing.T) {
	log := `dgxh100-3:225140:225355 [0] misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with error Network is unreachable
dgxh100-3:225140:225355 [0] NCCL INFO transport/net_ib.cc:579 -> 2
dgxh100-3:225140:225355 [0] proxy.cc:1519 NCCL WARN [Proxy Service 1] Failed to execute operation Connect from rank 1, retcode 2
dgxh100-3:225140:225289 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer dgxh100-3<41109>
`
	v := checkNCCLWarnings(mustLog(t, log))
	if v.Status != Fail || !strings.Contains(v.Summary, "no route to the peer's GID address") || !strings.Contains(v.Next, "ip route get") {
		t.Errorf("%v %q next %q", v.Status, v.Summary, v.Next)
	}
	if !strings.Contains(strings.Join(v.Evidence, "\n"), "NVIDIA/nccl-tests#185") {
		t.Errorf("evidence %q", v.Evidence)
	}
}
