// Package rdma owns commlab's own RDMA WRITE program, rdma_write.c: a
// minimal libibverbs client and server (device, PD, MR, CQ, RC QP, the
// INIT -> RTR -> RTS state machine, an out-of-band exchange over TCP, timed
// RDMA WRITEs of a size sweep) that chapter 3 reads as "a verbs program of
// our own", and that cannot rot because CI compiles it and runs its
// out-of-band exchange on loopback.
//
// The package builds the program from its embedded source with the C
// compiler on PATH (cc, -libverbs -ldl) into a cache directory keyed by the
// source's hash, runs the server and the client (both here, one side here,
// or the client through the user's launcher), and parses the program's
// result lines into probes.Samples of a probes.Run with provenance.
//
// libibverbs is linked, not loaded through probes/dynlib: it is a C
// program's dependency, not a library commlab itself calls, so the binary
// commlab stays free of it. With --gpu the program looks up the CUDA driver
// API in libcuda.so.1 at run time (no CUDA headers to build it). Processes
// are started through probes/launch. Without an RDMA device (or a C
// compiler, or the libibverbs headers) Build and Measure return an error
// wrapping probes.ErrUnavailable with the reason in one line.
//
// Listing quotes the program by function or type name (with the comment
// above it), SourceLines counts its lines: chapter 3 shows the verbs core
// through them, so the listing is always the code that is built.
//
// The package also runs perftest's ib_write_bw, ib_read_bw, ib_send_bw and
// ib_write_lat (Perftest): the tool is found on PATH (missing: an error
// wrapping probes.ErrUnavailable that names the perftest package), the
// device is checked with rdma_write's server (CheckDevice; the same
// one-line reason as Measure, or /sys/class/infiniband where rdma_write
// cannot be built), then server and client are started as for rdma_write
// and the client's report is parsed by parse/perftest into samples.
// perftest's client tries its connection once and the server's "Waiting
// for client" line stays in its pipe's buffer, so the client is started
// again while it cannot connect and the server still runs.
package rdma
