#!/usr/bin/env bash
# Soft-RoCE: an RDMA device in software (the kernel's rdma_rxe over this
# machine's Ethernet port), then what needs one: the verbs listing, the
# RDMA WRITE program (commlab probe rdma-write: registration and write
# times per size) and the doctor's live read of the RDMA ports. Needs root,
# the rdma_rxe module, iproute2's rdma, libibverbs with its rxe provider,
# and cc with the libibverbs headers. Each step says what it lacked.
#   bash probes/gpubench/softroce.sh [COMMLAB] [OUT_DIR]
set -u
bin=${1:-./commlab}
out=${2:-${TMPDIR:-/tmp}/softroce}
mkdir -p "$out"
step() { echo "## $*"; "$@"; echo "## rc=$?"; }
step uname -r
step sh -c 'modinfo rdma_rxe 2>&1 | head -4'
step modprobe rdma_rxe
netdev=$(ip -o -4 route show to default | awk '{print $5; exit}')
echo "## default-route netdev: ${netdev:-none}"
rdma link show 2>/dev/null | grep -q rxe0 || step rdma link add rxe0 type rxe netdev "$netdev"
step rdma link show
step sh -c 'ls /usr/lib/x86_64-linux-gnu/libibverbs/ 2>&1 | head; ls /usr/include/infiniband/verbs.h'
step ibv_devinfo -v
step "$bin" probe rdma-write --json --save "$out/rdma-write.json"
step "$bin" doctor --out "$out/doctor"
