package costmodel

// The custom all-reduce model's defaults, as `commlab model tp-allreduce`
// takes them (--launch, --flag, --phase, --peer-bw), each from a named
// source. The recorded ones are rounded from the runs they name, and a
// test of this package reads those runs (probes/recorded) and holds each
// default to its recording.
const (
	// DefaultCustomLaunch: one kernel launch on the lab's H200, recorded
	// run latency-h200x1 (kernel_launch_host 3.67965 us, 2026-11-29).
	DefaultCustomLaunch = "3.68us"
	// DefaultCustomFlag: NCCL's NVLink per-hop latency for LL, 0.6 us
	// (src/graph/tuning.cc hwLat), for one flag write and its observation.
	DefaultCustomFlag = "0.6us"
	// DefaultCustomPhase: what two-shot's dependent second phase adds (a
	// system-wide fence, a barrier and a second pass), measured on
	// commlab's own kernel with one rank on the lab's H200: two-shot minus
	// one-shot at 8 B, recorded run custom-allreduce-h200x1-ws1 (7.14 us
	// against 5.062 us, 2026-12-01). No peers: a floor for NVLink's.
	DefaultCustomPhase = "2.078us"
	// DefaultCustomPeerBW: P2P read between the lab's two H200s, recorded
	// run bandwidth-h200x2 (p2p_read 256 MiB from GPU 1 into GPU 0,
	// 390.63 GB/s, 2026-11-29).
	DefaultCustomPeerBW = "390.6GB/s"
	// CustomDefaultsNote names the defaults' sources in an estimate.
	CustomDefaultsNote = "defaults: recorded runs latency-h200x1, custom-allreduce-h200x1-ws1 and bandwidth-h200x2, NCCL's NVLink LL hop"
)
