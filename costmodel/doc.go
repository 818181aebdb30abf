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
//   - the shapes behind those terms: the ring all_reduce step by step
//     (RingAllReduceSchedule) and the binary and double binary trees as
//     NCCL builds them (NCCLBinaryTree, NCCLDoubleTree, from trees.cc);
//   - protocols (Simple, LL, LL128) and channels;
//   - algbw and busbw exactly as nccl-tests defines them (BusBWFactor);
//   - an NCCL-like tuner that evaluates NCCL's own latency and bandwidth
//     tables (src/graph/tuning.cc) for a topology (Tune), per NCCL version
//     family (DefaultNCCL, NCCLFamily; tuner.go says what each family
//     changes, why the NVLS figures of 8 H100s differ between them, and
//     which tuner_*.go file holds which part: tables, input, bandwidth,
//     latency, pick, print, search);
//   - the calibrated model (Machine.Estimate, `commlab model --algo auto`)
//     and the published measurements it is held to (PublishedMeasurements,
//     Calibration; testdata/published.tsv);
//   - a collective question as a person asks it (CollectiveQuery: sizes,
//     rates and a preset as typed, resolved to Params or a Machine), whose
//     errors name the input at fault (OptionError) so that a command can
//     name its own flag;
//   - the paths of a transfer from a GPU to a GPU on another node (TCP,
//     RDMA through host memory, GPUDirect RDMA): copies, PCIe links
//     crossed, host-memory traffic, the PCIe switch uplink a GPU shares
//     with its NIC, the CPU cores TCP needs, and ceilings (Transfers);
//     NCCL's rates of the link between CPU sockets (NCCLSocketLinks) and
//     published memory-registration times (RegistrationMeasurements);
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
//
// # Calibration
//
// Machine.Estimate predicts what nccl-tests measures. NCCL's tuner picks
// the algorithm and protocol (or takes them as NCCL_ALGO and NCCL_PROTO
// force them) and gives the latency (tuning.cc, plus a network plugin's
// own latency); the bandwidth is the data each algorithm moves over the
// links as NCCL rates them (Link.NCCLBandwidth: 20.6 GB/s per NVLink on
// Hopper, 20 on Ampere, 40.1 on Blackwell, PCIe width x NCCL's per-lane
// rate; a NIC's port rate); NVLS uses NCCL 2.28's own efficiency (0.85
// Hopper, 0.74 Blackwell); a host floor covers operations issued faster
// than one host thread launches them. peakBusBW in estimate.go writes out
// each algorithm's formula.
//
// Nine constants are not in NCCL and are fitted by FitCalibration on the
// non-hold-out rows of testdata/published.tsv (each to the value that
// minimises the largest relative error on its rows; estimate.go holds the
// results and TestFittedConstantsMatchTheTable keeps them equal):
//
//	constant              rows fitted on                                   value
//	FitRingEfficiency     8xA100 Azure and p4dn, 4xGB200 Azure, 2xH200 lab,
//	                      2xA100 NVLink-bridged pair                      0.916
//	FitNetEfficiency      2x8 H100 GCP A3 Mega, 2x8 H800 over 100G NICs     0.887
//	FitGatherEfficiency   2xH200 lab all_gather 8 GiB                      0.878
//	FitLLEfficiency       2xH200 lab all_reduce 8 GiB, NCCL_PROTO=LL       0.864
//	FitSHMEfficiency      4x RTX 5090 (no peer-to-peer)                    0.796
//	FitIssueUs            8K/8B of Azure A100, H100, GB200; 8x RTX 4090    4.27 us
//	FitLabIssueUs         2xH200 lab all_reduce and all_gather at 8 B      12.1 us
//	FitEFALatency         2x p5 all_reduce at 8 B                          22.8 us
//	FitTCPXOLatency       2x A3 Mega all_reduce at 8 B                     49.1 us
//
// Hold-out rows, fitted on by nothing, check the result (TestCalibration
// reports them apart): Azure ND H200 v5 at 8 GiB and 8 KiB, 8xH800 (NVLS),
// 8xH100 with NVLS off, 2 and 4 nodes of 8 H100, and the lab's 2xH200
// all_reduce with Simple and LL128 forced, reduce_scatter, all_gather with
// LL forced and four further small-message runs. With these constants every
// row of the table is within its limit (plateau bus bandwidth 10%,
// small-message time 30%); `commlab model calibrate` prints them all.
//
// Known limits, from rows the table leaves out (testdata/SOURCES.md says
// which and why): PCIe boxes whose ring crosses two CPU sockets (8 RTX
// 5090 at 28 GB/s against 35 on 4), NVLS across the 72 GPUs of a GB200
// NVL72, two-node jobs where NCCL ran rings rather than the tree this
// tuner picks, and an H100 PCIe pair whose bridged NVLink measures half of
// what NCCL rates it. The host floor depends on the host: the lab's
// virtual machines issue about three times slower than the published
// hosts, so chapters modelling the recorded runs pass LabHarness.
package costmodel
