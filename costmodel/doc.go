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
// than one host thread launches them: nccl-tests issues its iterations
// back to back and waits once (BenchTime, src/common.cu), so the host
// issues the next while the GPUs run this one and the time is the larger
// of the floor and the GPUs' time, not their sum. peakBusBW in
// estimate.go writes out each algorithm's formula.
//
// Eleven constants are not in NCCL and are fitted by FitCalibration on the
// rows of testdata/published.tsv that are not hold-out and are expected
// within their limit (each to the least sum of squared log errors over
// its rows; estimate.go holds the results and
// TestFittedConstantsMatchTheTable keeps them equal): FitRingEfficiency
// (one-node ring and tree over NVLink, 0.95; over PCIe the ring takes
// NCCL's rating whole, which already sits below what a PCIe ring carries:
// ringShare), FitNetEfficiency (NICs across nodes, 0.891),
// FitGatherLocalStep (0.244, below), FitLLEfficiency (0.863), FitSHMEfficiency
// (PCIe through host memory, 0.73), FitIssueUs (host
// issue time per GPU of published hosts, 4.89 us), FitLabIssueUs (the
// lab's H200 VMs, 12.1 us), FitEFALatency (22.1 us), FitTCPXOLatency
// (54.5 us), FitRingFillLoops (0.444, below) and FitNVLSFillLoops
// (3.31). A link takes its network latency
// from a fit only where its NetLatencyFit field says so, times its
// NetLatencyScale: on EFA the latency aws-ofi-nccl reports for the
// platform over the one it reports for p5, where FitEFALatency is fitted
// (35 us on p5en and p6 against 75 us on p4d and p5, platform-aws.cpp).
// That the hop's latency steps down as the plugin's figure does is an
// assumption: it takes the 2x p6-b200 rows from 21 to 37% above to 9 to
// 20% below (the run's own step is about two thirds, the plugin's under
// half), the EFA median under cross-validation from 19.8% to 16%.
//
// all_gather and reduce_scatter over a ring: each loop of the kernel runs
// n steps on n GPUs and n-1 of them cross a link (src/device/all_gather.h,
// reduce_scatter.h of v2.28.9-1: the last step receives or reduces into
// the output), while tuning.cc rates the ring by the n-1 link steps
// alone. The model takes NCCL's rating whole and charges the local step
// FitGatherLocalStep link steps: B (n-1)/(n-1+FitGatherLocalStep), 0.80
// of the rating on 2 GPUs and 0.97 on 8 (across nodes it bounds the
// in-node leg only). It replaces one fitted share for every GPU count
// (0.927 of the ring), which missed 2 H200 by +8
// to +10% and 8 H100 by -8 to -11%, and by 15 to 19% under
// cross-validation; now every one-node Hopper row is within 6% under
// cross-validation (fitted on 2 H200 and 8 H100, checked on 8 H100 of
// NVIDIA/nccl#1047), and all_gather with LL on 2 H200 is within too.
//
// sendrecv and all_to_all run as NCCL's point-to-point operations, which
// its tuner does not cover; p2p.go models them from NCCL's source (the
// channels per peer, the LL threshold and chunk sizes, the round-by-round
// schedule of peers): NCCL's Ring/LL base latency plus one LL hop per
// peer in the node (and one network hop when a peer is remote), and each
// GPU's share of its links at the ring's share (FitRingEfficiency) or
// the network's (FitNetEfficiency). No constant is fitted for it; rows
// of 4 H100 (all_to_all at 500 MiB), 8 H20 and 2 RTX 4090 (all_to_all
// at 8 B to 4 KiB) check it; no row checks the network half.
//
// broadcast runs the ring alone (tuning.cc rates no other algorithm for
// it), one way through n-1 hops. Eleven hold-out rows from three sources
// check it, none fitted on: 4 nodes of 8 H100 over InfiniBand (8 B to 8
// GiB), 8 H100 under -g 8 and 2 RTX 2080 Ti through host memory. Small
// sizes are within (15 to 23% below); the bandwidth rows are misses but
// for 2 RTX 2080 Ti at 8 MiB (listed below).
//
// NVLS's pipeline fill: NCCL shrinks the NVLS and NVLSTree chunk from 128
// KiB to 16 or 32 KiB as operations get smaller (calcCollChunking,
// src/enqueue.cc of v2.28.9-1; nvlsLoopBytes), so a loop over its 16
// channels of one head per GPU covers 2 MiB to 16 MiB on 8 Hopper GPUs;
// the first FitNVLSFillLoops loops fill the pipeline, a latency the host
// issue floor can hide. It is what NVLS all_reduce at 32 MiB and 256 MiB
// missed before (+25% and +11%), and it holds on rows it was not fitted
// on: two p5 over EFA (NVLSTree) at 32 and 256 MiB.
//
// The ring's pipeline fill inside one node: a ring channel moves its
// share in chunks (4 MiB of buffer over NCCL_STEPS 8 steps, 4 steps a
// chunk for all_reduce, all_gather and reduce_scatter with Simple, one for
// broadcast; smaller for LL and LL128: ringChunkBytes, from
// src/init.cc and src/include/collectives.h of v2.28.9-1), and the first
// chunks go through the ring before every link is busy. The model
// charges FitRingFillLoops of one round of chunks over the channels
// NCCL gives the operation (TunerTable.channels) at the ring's rate,
// growing with the size up to that round and constant above it. It is
// what the recorded 2x H200 curve shows: all_reduce reaches 230 GB/s at
// 32 MiB and 345 only at 8 GiB, its time above the bandwidth term
// growing from about 25 us at 1 MiB to about 200 us from 1 GiB on. It
// takes 8x A100 at 4 and 32 MiB from known misses (+35%, +40%) to within
// (+13%, +3%); fitted on the one-node ring rows that are not hold-out (30
// rows, 7 sources), checked on 10 hold-out rows of others (median 5.1%).
// Across nodes it is not applied: there it made 3 nodes of A100 over
// HDR 28% slow at 32 MiB and cross-validated worse (several nodes 9.7%
// against 7.3% without it).
//
// Every measurement considered is a row with an expected verdict: within
// its limit (large sizes, at least 256 MiB, busbw within 10%; middle
// sizes busbw within 20%; small, at most 64 KiB, time within 30%) or a
// known miss with its cause, and TestCalibration holds both, so fixing a
// miss shows as a test change. Middle sizes are taken by one rule: from
// every source whose printed curve has them, 1 MiB and 32 MiB (or the
// printed sizes nearest) of the runs already in the table. Of the 184
// rows (37 sources), 130 are within their limit; the 54 known misses
// are: 8x H100 at 8 KiB under -g 8 (host issue time differs by host CPU,
// one FitIssueUs for all); two to four p4dn over EFA at 1 GiB (the 2022
// plugin reached about 60% of the ports); GB200 NVL72 over 72 GPUs at
// 512 MiB and 8 GiB (NVLS across trays); 8 RTX 5090 (ring across two CPU
// sockets); 2 RTX 2080 Ti through host memory, all_reduce and all_gather
// at 1, 8 and 32 MiB and 1 GiB (traffic both ways at once runs at a third
// of the one-way rate on that host) and broadcast at 1, 8 and 32 MiB and
// 1 GiB (one way it runs above FitSHMEfficiency); 2x8 H100 over TCPX at 1
// and 32 MiB (about 1.7 ms per operation up to 8 MiB, a plugin cost not
// modelled) and over TCPXO at 1, 32 and 256 MiB (about 50 us per MiB
// from 1 to 16 MiB, a choice of the plugin or of Google's tuner plugin
// the model does not reproduce); 2x8 H100 over RoCE at 1 and 8 GiB and
// after the first of two fixes (platform faults the thread found: PCIe
// ACS with a translating IOMMU, then NCCL_IB_SPLIT_DATA_ON_QPS=1; fixed,
// its 456 GB/s is within); 2 to 6 nodes of A100 over 8x 100G RoCE (busbw
// falls with each node added); 2x8 H100 NVLSTree at 8 GiB (the network
// half of NVLSTree); 2x8 H100 ring over NDR at 512 MiB and 8 GiB (the
// per-NIC rate by network: one FitNetEfficiency); 4 to 32 p5 over EFA at
// 32 MiB and 4 nodes of 8 H100 over InfiniBand at 1 and 32 MiB (the
// model's Tree/LL128 across nodes at middle sizes gives 1.3x to 1.9x the
// measured busbw where the same runs at 8 GiB are within 8%; the sources
// do not print what ran); 8x A100 sendrecv at 128 MiB (the run's first
// size, about 600 us above what 256 MiB implies) and 1 GiB (0.81 of
// NCCL's NVLink rating, below the ring's share the p2p model takes);
// broadcast on 4 nodes of 8 H100 at 1 MiB to 8 GiB (the ring's pipeline
// fill through 31 hops, and a rate 0.85 of the model's where the same
// run's all_reduce is within 5%) and on 8 H100 under -g 8 at 1, 32 and
// 128 MiB and 1 GiB (a run whose busbw jumps between sizes); all_gather
// with LL forced on 2 H200 at 1 MiB (40 us where the same run's other
// protocols take 16 to 26 us; not explained); and all_gather on 2 B200 at
// 256 MiB, 1 and 8 GiB (the ring's local step costs about 0.5 link steps
// there, FitGatherLocalStep is fitted on Hopper; not modelled by
// generation). `commlab model calibrate` prints them all.
//
// ValidateConstants says which rows fitted each constant and which
// hold-out rows of other sources check it: a constant is validated when
// fitted on at least 3 rows and checked on at least 2. FitRingEfficiency,
// FitNetEfficiency, FitGatherLocalStep, FitIssueUs, FitEFALatency
// (checked on 2x p6-b200, 9 to 20% below them), FitRingFillLoops and
// FitNVLSFillLoops are; the other four are named unvalidated in the output
// (FitLabIssueUs can never be: only the lab's own runs inform it).
// CrossValidate refits the constants once per source
// without it and reports the errors per size regime, one node or several
// and network family; a row resting on a constant only its own source informs
// is named and left out of the medians. A source (SourceKey) is one issue
// thread, one repository or the lab's recordings: the four Azure VM
// types of one benchmarking guide share a harness (one host thread for
// eight GPUs), so they leave together. Under it, with known misses
// excepted, the median error is 16.5% for small sizes (by time), 8.0%
// for middle sizes and 2.1% for large ones, and 4.2% (NVLink/NVSwitch),
// 11.1% (PCIe/SHM), 7.0% (InfiniBand), 1.3% (RoCE), 14.9% (EFA) and 4.2%
// (TCPX/TCPXO) by network family. Before the ring's fill was modelled,
// the middle median was 16.6% on the 26 middle rows the table then had.
//
// The host floor depends on the host: the lab's virtual machines issue
// about three times slower than the published hosts, so chapters
// modelling the recorded runs pass LabHarness.
package costmodel
