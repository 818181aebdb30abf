// Package costmodel computes how long GPU collectives take on paper.
//
// It owns:
//   - typed units a person types and reads: sizes (Bytes, ParseSize), times
//     (Seconds, ParseDuration) and bandwidths (Bandwidth, ParseBandwidth),
//     keeping GB (1e9 bytes) apart from GiB (2^30 bytes) and Gb (1e9 bits);
//     their grammar and formatting live in package units, shared with the
//     probes and the command;
//   - links and node presets with the public source of every number (links.go);
//   - the Hockney alpha-beta model (AlphaBeta) and, built on it, the latency
//     and bandwidth terms of every primitive under ring, tree, double binary
//     tree, recursive halving-doubling, two-level hierarchical, NVLS and
//     CollNet (Predict), and the size where the two terms cross (Crossover);
//   - protocols (Simple, LL, LL128) and channels;
//   - algbw and busbw exactly as nccl-tests defines them (BusBWFactor);
//   - an NCCL-like tuner that evaluates NCCL's own latency and bandwidth
//     tables (src/graph/tuning.cc) for a topology (Tune);
//   - the paths of a transfer from a GPU to a GPU on another node (TCP,
//     RDMA through host memory, GPUDirect RDMA): copies, PCIe crossings,
//     host-memory traffic and ceilings (Transfers);
//   - sweeps that turn any of the above into plain rows for tables and charts.
//
// It does not measure anything, parse tool output or know about probes:
// measured numbers come in as plain float64 values, and fitting alpha and
// beta to measurements lives in costmodel/fit. It uses only the standard
// library, and it exports no generic functions or types, so the yaegi
// interpreter that runs notebook cells can call all of it.
//
// Units in the API: sizes in bytes, times in seconds and bandwidths in
// bytes per second, all float64, unless a name says otherwise (the tuner
// speaks NCCL's microseconds and GB/s, and says so in its field names).
package costmodel
