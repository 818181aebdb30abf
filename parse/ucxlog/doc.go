// Package ucxlog reads what UCX prints about its own choices when asked
// (UCX_LOG_LEVEL=info, UCX_PROTO_INFO=y): the version line, the endpoint
// configurations a worker builds ("gpu intra-node cfg#2 rma_am(tcp/lo)
// am(tcp/lo cma/memory) ...", older UCX: "ep_cfg[2]: tag(rc_mlx5/mlx5_0:1)
// ..."), the protocol tables (which protocol and transport serve each
// operation, memory type and size range), the UCX_* settings line and the
// WARN/ERROR lines. NIXL, UCX-backed MPI and UCC print through UCX, so this
// says which transport a KV-cache transfer or a UCX collective really used:
// RDMA (rc_mlx5, dc_mlx5, ud), CUDA IPC or copies, shared memory, or TCP
// with emulated RMA.
//
// It does not judge whether a choice was right; the chapters and the doctor
// do, with what they know of the machine.
package ucxlog
