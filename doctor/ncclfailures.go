package doctor

// This file is the table of NCCL's failure messages: each WARN form NCCL,
// its net plugins and the verbs layer print, what it means, its usual
// causes and the check that tells them apart, with where the form is
// printed and the public answers the causes rest on. checkNCCLWarnings
// reads WARN lines through it; chapter 6 can show it as it is
// (NCCLFailures).

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// NCCLFailure is one form of NCCL failure message.
type NCCLFailure struct {
	// ID names the form ("ibv-create-cq").
	ID string `json:"id"`
	// Form is the message as NCCL prints it, with %-verbs where it fills
	// values in.
	Form string `json:"form"`
	// Printed is where NCCL prints it (NVIDIA/nccl path at a tag).
	Printed string `json:"printed"`
	// Meaning says what failed; Causes are the usual reasons, most
	// common first; Check is what tells them apart.
	Meaning string   `json:"meaning"`
	Causes  []string `json:"causes"`
	Check   string   `json:"check"`
	// Fatal: NCCL fails the call (init, connect or the collective).
	// Consequence: the message follows an earlier failure (here or on a
	// peer), which is the one to read.
	Fatal       bool `json:"fatal"`
	Consequence bool `json:"consequence,omitempty"`
	// Sources are the public answers and code the causes rest on.
	Sources []string `json:"sources"`
	match   *regexp.Regexp
}

const memlockCheck = "`ulimit -l` inside the job (srun ... bash -c 'ulimit -l', or in the container) must say unlimited: Docker needs --ulimit memlock=-1 (and --cap-add=IPC_LOCK without --privileged), Kubernetes the runtime's memlock limit, Slurm a slurmd with LimitMEMLOCK=infinity and PropagateResourceLimits that carry it"

// NCCLFailures are the forms the doctor explains, in the order it tries
// them: the first that matches a WARN line is its explanation.
var NCCLFailures = []NCCLFailure{
	{ID: "ibv-create-cq", Form: "Call to ibv_create_cq failed", Printed: "src/misc/ibvwrap.cc (v2.7.8-1 to v2.28.9-1)", Fatal: true,
		Meaning: "the NIC could not create a completion queue, which pins host memory",
		Causes:  []string{"the locked-memory limit (ulimit -l) is small: 64 KiB is the default in containers and under many Slurm setups", "the CQ asked for is beyond the device's limits (ibv_devinfo -v max_cqe)"},
		Check:   memlockCheck,
		Sources: []string{"NVIDIA/nccl#380 (NCCL 2.7.8, two A100 nodes over RoCE)", "open-mpi/ompi#6468 (--ulimit memlock=-1 for IB in Docker)", "microsoft/mscclpp#335 (--cap-add=IPC_LOCK with --device /dev/infiniband)", "openucx/ucx#8229 (ibv_create_cq: Cannot allocate memory with ulimit -l 64)"}},
	{ID: "ibv-create-qp", Form: "Call to ibv_create_qp failed", Printed: "src/misc/ibvwrap.cc", Fatal: true,
		Meaning: "the NIC could not create a queue pair",
		Causes:  []string{"the locked-memory limit, as for ibv_create_cq", "more QPs than the device allows (NCCL_IB_QPS_PER_CONNECTION times the connections; ibv_devinfo -v max_qp)"},
		Check:   memlockCheck + "; then ibv_devinfo -v max_qp against NCCL_IB_QPS_PER_CONNECTION",
		Sources: []string{"NVIDIA/nccl src/misc/ibvwrap.cc v2.28.9-1 (wrap_ibv_create_qp)", "open-mpi/ompi#6468"}},
	{ID: "ibv-reg-mr", Form: "Call to ibv_reg_mr failed / ibv_reg_dmabuf_mr failed", Printed: "src/misc/ibvwrap.cc", Fatal: true,
		Meaning: "the NIC could not register a buffer (host or GPU memory) for RDMA",
		Causes:  []string{"the locked-memory limit, for host buffers", "GPU memory with neither nvidia_peermem loaded nor DMA-BUF usable, for GPUDirect RDMA", "an IOMMU in translation mode that the NIC cannot map through"},
		Check:   memlockCheck + "; lsmod | grep nvidia_peermem (or the open kernel modules for DMA-BUF); the gpudirect-module check",
		Sources: []string{"NVIDIA/nccl src/misc/ibvwrap.cc v2.28.9-1", "NVIDIA/nccl src/transport/net_ib.cc v2.28.9-1 (ncclIbDmaBufSupport)"}},
	{ID: "ibv-modify-qp-enodev", Form: "Call to ibv_modify_qp failed with error No such device (errno 19)", Printed: "src/misc/ibvwrap.cc (\"failed with %d %s, %s\" from 2.2x)", Fatal: true,
		Meaning: "the QP could not be moved to ready-to-receive: the address it names (the GID) has no device behind it",
		Causes:  []string{"on RoCE, NCCL_IB_GID_INDEX names a GID entry with no netdev or address on this port (the index differs across nodes, or an SR-IOV VF has no IP)", "the port's netdev is down"},
		Check:   "show_gids on both nodes: the index NCCL uses must be RoCE v2 with the port's IPv4 address on every port (the roce-gid check reads it); ip link on the netdev",
		Sources: []string{"NVIDIA/nccl#925", "NVIDIA/nccl#799 (NCCL 2.7.8, RoCE)", "microsoft/mscclpp#431 (ibv_modify_qp errno 19 on RoCE ports)"}},
	{ID: "ibv-modify-qp-enetunreach", Form: "Call to ibv_modify_qp failed with error Network is unreachable (errno 101)", Printed: "src/misc/ibvwrap.cc", Fatal: true,
		Meaning: "the QP could not be moved to ready-to-receive: the kernel has no route to the peer's GID address",
		Causes:  []string{"RoCE v2 GIDs in subnets with no route between them", "the GID NCCL picked belongs to the wrong netdev (an IPv4 on a management interface)"},
		Check:   "ip route get <the peer's GID IPv4> on each node; show_gids to see which netdev each GID index belongs to",
		Sources: []string{"NVIDIA/nccl-tests#185 (DGX H100)"}},
	{ID: "ibv-modify-qp-einval", Form: "Call to ibv_modify_qp failed with error Invalid argument (errno 22)", Printed: "src/misc/ibvwrap.cc", Fatal: true,
		Meaning: "the NIC refused a QP attribute",
		Causes:  []string{"a setting out of its range: NCCL_IB_TIMEOUT above 31, NCCL_IB_RETRY_CNT above 7, NCCL_IB_SL or NCCL_IB_TC the fabric does not take", "a GID index beyond the port's table", "an MTU the port cannot do"},
		Check:   "the env-values check (ranges NCCL passes as they are); ibv_devinfo -v (active_mtu, gid table)",
		Sources: []string{"NVIDIA/nccl src/transport/net_ib.cc v2.28.9-1 (qpAttr.timeout = ncclParamIbTimeout(), qpAttr.retry_cnt = ncclParamIbRetryCnt())"}},
	{ID: "ib-completion-error", Form: "NET/IB : Got completion with error %d, opcode %d, len %d, vendor err %d (2.7 to 2.9); ... from peer %s with error %d, ... (2.10 to 2.20); ... from peer %s with status=%d opcode=%d ... (2.21 to 2.27); NET/IB: ... with status=IBV_WC_...(%d) opcode=... (2.28)", Printed: "src/transport/net_ib.cc at each tag (net_ib/ in 2.30), and the same form in the IB SHARP plugin (ib_plugin.c)", Fatal: true,
		Meaning: "an RDMA operation completed with an error (the IBV_WC_* status is named below)",
		Causes:  []string{"right after start: the two NICs cannot talk over RDMA at all (RoCE GID index or type, routing, VLAN or PFC on the switch; an InfiniBand port without a subnet manager)", "later in the run: a link that went down or flapped, a lossy or congested path (NCCL_IB_TIMEOUT too low for it), or a peer that died"},
		Check:   "when it fails at once: ib_write_bw between the two nodes with the same GID index and traffic class as NCCL; when it fails later: the kernel logs for a link down or flap at that time (kernel-log), the port counters (link downed, symbol errors, port rcv errors), and whether the peer named was still alive",
		Sources: []string{"NVIDIA/nccl#426 (sjeaugey: error 12 is a timeout; right away it usually means the NICs cannot talk over RoCE; NCCL_IB_GID_INDEX=3 fixed it)", "NVIDIA/nccl#902 (sjeaugey: error 12 either means two NICs cannot talk, or a very bad connection where a larger NCCL_IB_TIMEOUT helps)", "pytorch/pytorch#81628 (kwen2501: vendor err 129 is usually a timeout)", "NVIDIA/nccl#928 (error 4, vendor err 81)"}},
	{ID: "socket-closed-by-peer", Form: "socketProgress: Connection closed by remote peer %s", Printed: "src/misc/socket.cc", Fatal: true, Consequence: true,
		Meaning: "a peer closed its socket: it exited, crashed or aborted its communicator",
		Causes:  []string{"the peer failed first (its own WARN, an exception, the OOM killer, an Xid)", "the peer's job step was killed (a timeout, a scheduler preemption)"},
		Check:   "read the peer's log and its node's kernel log at that time: the first failure anywhere in the job is the cause, this line is its echo",
		Sources: []string{"NVIDIA/nccl-tests#217 (NCCL 2.21.5)", "NVIDIA/nccl-tests#185"}},
	{ID: "socket-connect", Form: "%s: connect to %s failed : %s / connect to %s returned %s, exceeded error retry count after %d attempts", Printed: "src/misc/socket.cc", Fatal: true,
		Meaning: "NCCL could not open a TCP connection to a peer (bootstrap, or the proxy's out-of-band channel)",
		Causes:  []string{"the address is on an interface the peer cannot reach (loopback, a docker bridge, another subnet: NCCL_SOCKET_IFNAME)", "a firewall between the nodes", "the peer is not listening: it has not started, or it died"},
		Check:   "the socket-interface check; from one node, nc -zv <peer address> <port> while the job waits; the peer's log",
		Sources: []string{"NVIDIA/nccl src/misc/socket.cc v2.28.9-1 (socketConnect, socketPollConnect)", "NVIDIA/nccl-tests#102 (a hang then 'unhandled system error' across two nodes)"}},
	{ID: "no-socket-interface", Form: "Bootstrap : no socket interface found / NET/Socket : No usable listening interface found", Printed: "src/bootstrap.cc, src/transport/net_socket.cc", Fatal: true,
		Meaning: "no network interface matches what NCCL may use",
		Causes:  []string{"NCCL_SOCKET_IFNAME names an interface this node does not have (names differ across nodes), or excludes every one", "the interface is down (NCCL takes only running ones)"},
		Check:   "ip -br addr on the node against NCCL_SOCKET_IFNAME (prefixes, '^' to exclude, '=' for exact names)",
		Sources: []string{"NVIDIA/nccl src/misc/socket.cc v2.28.9-1 (ncclFindInterfaces)"}},
	{ID: "oob-no-device", Form: "no device found matching %s, verify NCCL_OOB_NET_IFNAME", Printed: "src/bootstrap.cc (2.2x)", Fatal: true,
		Meaning: "NCCL_OOB_NET_IFNAME selects no network device for the out-of-band channel",
		Causes:  []string{"a name that differs across nodes, or a typo"},
		Check:   "the devices NCCL lists (NET/IB : Using ...) against NCCL_OOB_NET_IFNAME",
		Sources: []string{"NVIDIA/nccl src/bootstrap.cc v2.28.9-1"}},
	{ID: "bootstrap-root-mismatch", Form: "Bootstrap Root : mismatch in info from procs / rank %d of %d ranks has already checked in", Printed: "src/bootstrap.cc", Fatal: true,
		Meaning: "the bootstrap root heard from ranks of different jobs, or twice from one rank",
		Causes:  []string{"two jobs share one NCCL_COMM_ID (a fixed address and port)", "a rank restarted and joined again with the same unique id"},
		Check:   "whether NCCL_COMM_ID is set to a fixed value in more than one job; the launcher's restarts",
		Sources: []string{"NVIDIA/nccl src/bootstrap.cc v2.28.9-1"}},
	{ID: "message-truncated", Form: "Message truncated : received %d bytes instead of %d", Printed: "src/bootstrap.cc, src/misc/socket.cc", Fatal: true,
		Meaning: "a peer sent a message of another size than expected",
		Causes:  []string{"ranks running different NCCL builds", "ranks calling different collectives or sizes (a program bug or a desync)"},
		Check:   "the nccl-version check (one build on every rank); the Flight Recorder dumps for a size or order mismatch",
		Sources: []string{"NVIDIA/nccl src/bootstrap.cc v2.28.9-1"}},
	{ID: "proxy-call-failed", Form: "[Proxy Service %d] Failed to execute operation %s from rank %d, retcode %d / Proxy Call to rank %d failed (%s)", Printed: "src/proxy.cc", Fatal: true, Consequence: true,
		Meaning: "the proxy thread that does network setup for a rank failed",
		Causes:  []string{"the WARN before it on the same rank (an ibv_* call, a socket)"},
		Check:   "read the WARN line just before it on that rank",
		Sources: []string{"NVIDIA/nccl-tests#185 (after ibv_modify_qp failed)"}},
	{ID: "tcpx-ctrl-timeout", Form: "%p:%p, nic %d, %s, %s %s ctrl timeout cnt %lu, nanos %lu", Printed: "google/nccl-plugin-gpudirecttcpx src/net_tcpx.cc (tcpxCommProgress)", Fatal: false,
		Meaning: "a slowness report of the GPUDirect-TCPX plugin, not an error: a receive (rx) has waited past GPUDIRECTTCPX_TIMEOUT_THRESHOLD_NS for the control message the sender sends before each chunk, on the NIC and flow named (local<-peer); cnt counts the polls that found nothing",
		Causes:  []string{"the peer has not reached the matching send: a rank late to the collective (still initialising, slower, or stuck elsewhere)", "the flow itself is stalled: the peer's NIC or the Receive Data Path Manager (RxDM, google/tcpgpudmarxd) on either node"},
		Check:   "the peer address in the line names the node: are its ranks in the same collective (Flight Recorder dumps, py-spy stacks)? If every rank is there, the NIC's counters and the RxDM containers' logs on both nodes",
		Sources: []string{"google/nccl-plugin-gpudirecttcpx src/net_tcpx.cc at 4b8ea7f (the WARN in tcpxCommProgress, GPUDIRECTTCPX_TIMEOUT_THRESHOLD_NS)", "NVIDIA/nccl#1652 (GCP A3: these lines for up to an hour at first use)", "github.com/google/tcpgpudmarxd README (the RxDM on the NIC-to-GPU receive path)"}},
	{ID: "ib-open-device", Form: "NET/IB : Unable to open device %s", Printed: "src/transport/net_ib.cc", Fatal: false,
		Meaning: "an RDMA device is listed but cannot be opened",
		Causes:  []string{"a container without /dev/infiniband (or without the uverbs device of that NIC)", "a driver not loaded (mlx5_ib)"},
		Check:   "ls /dev/infiniband in the job; ibv_devinfo there",
		Sources: []string{"NVIDIA/nccl src/transport/net_ib.cc v2.28.9-1"}},
	{ID: "ib-merge-incompatible", Form: "NET/IB : Attempted to merge incompatible devices", Printed: "src/transport/net_ib.cc", Fatal: true,
		Meaning: "NCCL tried to merge ports of different link types into one virtual NIC",
		Causes:  []string{"InfiniBand and RoCE ports both selected"},
		Check:   "NCCL_IB_HCA to select ports of one link type (ibstat: Link layer)",
		Sources: []string{"NVIDIA/nccl src/transport/net_ib.cc v2.28.9-1 (the message names NCCL_IB_HCA)"}},
	{ID: "cuda-oom", Form: "Cuda failure 'out of memory' / Failed to CUDA calloc %ld bytes", Printed: "src/include/checks.h, src/include/alloc.h", Fatal: true,
		Meaning: "NCCL could not allocate GPU memory for its buffers",
		Causes:  []string{"the GPU is full: the job's own tensors, or memory held by earlier work on that GPU (a process that did not exit)", "NCCL_BUFFSIZE or channel counts set high"},
		Check:   "nvidia-smi on that node before the job: processes and memory in use",
		Sources: []string{"NVIDIA/nccl src/include/alloc.h v2.28.9-1"}},
	{ID: "unhandled-system-error", Form: "NCCL error ...: unhandled system error (ncclSystemError, 2)", Printed: "the caller (PyTorch, nccl-tests) prints ncclGetErrorString of a failed call", Fatal: true, Consequence: true,
		Meaning: "a system or verbs call failed inside NCCL; the code itself says only that",
		Causes:  []string{"the WARN line NCCL printed before it names the call: an ibv_* call (locked memory, GID), a socket (interface, firewall), /dev/shm"},
		Check:   "rerun with NCCL_DEBUG=WARN (or INFO) and read the first WARN line; the rows above for that line",
		Sources: []string{"NVIDIA/nccl#1657", "NVIDIA/nccl-tests#102"}},
	{ID: "remote-error", Form: "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely", Printed: "the caller prints ncclGetErrorString (NCCL 2.12+)", Fatal: true, Consequence: true,
		Meaning: "a peer or the network failed during a collective",
		Causes:  []string{"a completion error (the NET/IB line above names it)", "a peer that died"},
		Check:   "the 'Last error' NCCL appends, then the peer's log and kernel log",
		Sources: []string{"tatsu-lab/stanford_alpaca#207 (NCCL 2.14.3, followed by 'Got completion from peer ... with error 12')"}},
}

func init() {
	patterns := map[string]string{
		"ibv-create-cq":             `ibv_create_cq`,
		"ibv-create-qp":             `ibv_create_qp`,
		"ibv-reg-mr":                `ibv_reg_(?:dmabuf_)?mr`,
		"ibv-modify-qp-enodev":      `ibv_modify_qp failed.*(?:no such device|errno 19\b|\b19 no such)`,
		"ibv-modify-qp-enetunreach": `ibv_modify_qp failed.*(?:network is unreachable|errno 101\b|\b101 network)`,
		"ibv-modify-qp-einval":      `ibv_modify_qp failed.*(?:invalid argument|errno 22\b|\b22 invalid)`,
		"ib-completion-error":       `got completion (?:from peer .*)?with (?:error|status)`,
		"socket-closed-by-peer":     `connection closed by remote peer`,
		"socket-connect":            `connect to .*(?:failed|returned|exceeded)|socketpollconnect .* failed`,
		"no-socket-interface":       `no socket interface found|no usable listening interface`,
		"oob-no-device":             `verify nccl_oob_net_ifname`,
		"bootstrap-root-mismatch":   `bootstrap root : (?:mismatch|rank \d+ of \d+ ranks has already checked in)`,
		"message-truncated":         `message truncated`,
		"proxy-call-failed":         `proxy service \d+\] failed to execute|proxy call to rank \d+ failed`,
		"tcpx-ctrl-timeout":         `\b(?:rx|tx) ctrl timeout cnt \d+`,
		"ib-open-device":            `net/ib ?: unable to open device`,
		"ib-merge-incompatible":     `merge incompatible devices`,
		"cuda-oom":                  `cuda failure 'out of memory'|failed to cuda calloc`,
		"unhandled-system-error":    `unhandled system error`,
		"remote-error":              `remote process exiting prematurely|remote process exited or there was a network error`,
	}
	for i := range NCCLFailures {
		NCCLFailures[i].match = regexp.MustCompile(`(?i)` + patterns[NCCLFailures[i].ID])
	}
}

// ibvWCStatus names the verbs completion statuses (enum ibv_wc_status,
// rdma-core libibverbs/verbs.h) and what each says in NCCL's use.
var ibvWCStatus = map[int]struct{ name, says string }{
	1:  {"IBV_WC_LOC_LEN_ERR", "a local length error: a receive smaller than what was sent (ranks disagree on sizes)"},
	2:  {"IBV_WC_LOC_QP_OP_ERR", "a local QP operation error"},
	4:  {"IBV_WC_LOC_PROT_ERR", "a local protection error: the buffer's registration does not cover it (GPU memory without a working nvidia_peermem or DMA-BUF path, or an IOMMU in the way)"},
	5:  {"IBV_WC_WR_FLUSH_ERR", "flushed: the QP had already gone to error; the first completion error before it is the cause"},
	7:  {"IBV_WC_BAD_RESP_ERR", "an unexpected response from the peer"},
	8:  {"IBV_WC_LOC_ACCESS_ERR", "a local access error: the local memory key does not allow the operation"},
	9:  {"IBV_WC_REM_INV_REQ_ERR", "the peer found the request invalid"},
	10: {"IBV_WC_REM_ACCESS_ERR", "a remote access error: the peer's memory key does not allow the write (its buffer was deregistered, or it restarted)"},
	11: {"IBV_WC_REM_OP_ERR", "the peer could not complete the operation"},
	12: {"IBV_WC_RETRY_EXC_ERR", "transport retry counter exceeded: no acknowledgement from the peer within NCCL_IB_TIMEOUT x (NCCL_IB_RETRY_CNT+1)"},
	13: {"IBV_WC_RNR_RETRY_EXC_ERR", "receiver-not-ready retries exceeded: the peer posted no receive in time"},
	16: {"IBV_WC_REM_ABORT_ERR", "the peer aborted the operation"},
	19: {"IBV_WC_FATAL_ERR", "a fatal error of the local NIC"},
	20: {"IBV_WC_RESP_TIMEOUT_ERR", "a response timeout"},
	21: {"IBV_WC_GENERAL_ERR", "a general error"},
}

var reWCStatus = regexp.MustCompile(`(?i)with (?:error|status=)\s*(?:[^(,]*\()?(\d+)`)
var reErrno = regexp.MustCompile(`(?i)(?:errno|failed with)\s+(\d+)\b`)

// explainNCCLFailure finds the form of a WARN (or error) text, and says
// what its numbers mean: the completion status, the errno.
func explainNCCLFailure(text string) (NCCLFailure, string, bool) {
	for _, f := range NCCLFailures {
		if !f.match.MatchString(text) {
			continue
		}
		detail := ""
		if f.ID == "ib-completion-error" {
			if m := reWCStatus.FindStringSubmatch(text); m != nil {
				n, _ := strconv.Atoi(m[1])
				if s, ok := ibvWCStatus[n]; ok {
					detail = fmt.Sprintf("status %d is %s: %s", n, s.name, s.says)
				} else {
					detail = fmt.Sprintf("status %d (enum ibv_wc_status, rdma-core libibverbs/verbs.h)", n)
				}
			}
		} else if m := reErrno.FindStringSubmatch(text); m != nil && strings.Contains(strings.ToLower(text), "ibv_") {
			detail = "errno " + m[1]
		}
		return f, detail, true
	}
	return NCCLFailure{}, "", false
}

// cause is the failure's text for a verdict: what it means, the status
// or errno, and its usual causes.
func (f NCCLFailure) cause(detail string) string {
	s := f.Meaning
	if detail != "" {
		s += " (" + detail + ")"
	}
	return s + "; usual causes: " + strings.Join(f.Causes, "; or ")
}
