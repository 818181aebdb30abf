// Package cudasamples reads what two of NVIDIA's CUDA samples print, the
// tools people most often paste when a machine's links look slow
// (github.com/NVIDIA/cuda-samples):
//
//   - p2pBandwidthLatencyTest (Samples/5_Domain_Specific): the devices and
//     who can access whose memory, then matrices of copy bandwidth between
//     every pair of GPUs, one way and both ways, with peer-to-peer access
//     disabled (the copy is staged through host memory) and enabled, and of
//     latency as the GPU measures it (events around the copies) and as the
//     CPU spends it issuing them. ParseP2P turns it into a P2PReport.
//   - bandwidthTest (Samples/1_Utilities, removed from the repository in
//     2025 but still widely run): host-to-device, device-to-host and
//     device-to-device copy bandwidth, pinned or pageable, one block per
//     device run. ParseBandwidthTest turns a paste of one or more runs
//     into a BandwidthReport, each run with the command line before it
//     (numactl bindings show there).
//
// Units, from the samples' source (v12.5, bandwidthTest.cu and
// p2pBandwidthLatencyTest.cu): GB/s is 10^9 bytes per second. The
// p2pBandwidthLatencyTest diagonal counts both the read and the write of a
// device-local copy ("gb *= 2"), so it is not comparable with the
// off-diagonal cells. Older bandwidthTest builds print MB/s; the package
// reads it as 10^6 bytes (their exact base, 10^6 or 2^20, was not checked
// against a source; the two differ by under 5%) and keeps the unit as
// printed.
//
// Launcher prefixes come off every line; prompt lines and text around the
// output are skipped. A block cut short keeps what it read and the error
// (*parse.Error) names the line; input with neither tool's heading wraps
// parse.ErrFormat. The package parses only; it imports the standard
// library and parse.
package cudasamples
