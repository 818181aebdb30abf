// Package nccllog parses NCCL_DEBUG=INFO logs: the lines NCCL prints as
// `host:pid:tid [cudaDev] NCCL INFO ...` (and WARN), from one process or
// from many ranks and hosts interleaved in one file.
//
// It recognises the version banner, communicator lines (Init START and
// COMPLETE, the 2.21+ `nRanks nNodes localRanks` line), the topology
// system dump (`=== System : ...`) and the paths after it, graph search
// results (`Pattern 4, crossNic 0, nChannels 16, bw .../...`, older
// builds say `speed`) with their channel lines, rings and trees per
// channel in their old and new spellings, transports per peer
// (`Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read`, NET/IB, SHM),
// per-operation algorithm and protocol choices (NCCL_DEBUG_SUBSYS=TUNING:
// the 2.25+ `AllReduce: 1048576 Bytes -> Algo RING proto LL128
// channel{Lo..Hi}={0..15}`, the 2.23 numeric form with a time, and older
// forms without the operation name), the tuning table NCCL prints at init
// (`Algorithm |` / `Latency/AlgBw |`), collective calls (NCCL_DEBUG_SUBSYS
// =COLL), init timings, channel counts, environment overrides and WARN
// lines. Log.Network gathers what the log says about the network between
// nodes: the net plugin found or not, IB devices or "No device found",
// "Using network IB|Socket|...", GPUDirect RDMA per NIC and per GPU/NIC
// pair, transport kinds with their counts, network WARN lines, and a
// plain-words Why. Every record keeps the host, pid, device and line it came from,
// so callers group by host:pid and rank.
//
// Logs as they reach people: launcher prefixes (mpirun's "[1,0]<stdout>:",
// srun's "0: ", torchrun's "[default0]:", pdsh's "host: ") are skipped;
// a prefix cut to "[dev] NCCL INFO" or "NCCL INFO" is read; the line forms
// of NCCL 2.3 to 2.30 (init lines with or without nvmlDev and commId,
// "Ring 00 :" rings) and of RCCL ("RCCL version : 2.21.5-HEAD:x", lines
// ending in "comm 0x.. nRanks 08 busId ..") are read; a line that holds
// another process's line, or a table row, before or inside it is split at
// the other line's prefix, and a host name with a row's number glued to
// it ("-1node7") is mended (Log.Interleaved counts such lines).
//
// The package owns the parsed form of a log (Log and its records). It does
// not run NCCL, capture logs (probes/nccl does) or model the choices it
// reads (costmodel does). Standard library only.
package nccllog
