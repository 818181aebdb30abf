// Package nvbandwidth reads the output of NVIDIA's nvbandwidth tool
// (github.com/NVIDIA/nvbandwidth): the plain text it prints by default and
// the JSON it prints with -j.
//
// A Report holds the version and device header, then one Testcase per
// "Running <name>." block (or per JSON testcase): the description line
// ("memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)"), the matrix with
// N/A cells kept as NaN, the SUM line and, from v0.10, the
// COEFFICIENT_OF_VARIATION line. Latency testcases ("memory latency ...
// (ns)") are kept with their unit. nvbandwidth's GB/s is 1e9 bytes per
// second (memcpy.cpp scales bytes/s by 1e-9), so BytesPerSecond multiplies
// by 1e9.
//
// "Bidirectional" testcases copy both ways at once but, except where a
// matrix says Total, report one direction, measured while the reverse runs:
// Testcase.Bidirectional marks them and DirectionNote says which, so a
// number is never read as a two-way total by mistake. From v0.6 a
// device-to-device bidirectional testcase prints three matrices under one
// "Running" line (each direction, then their total); each becomes its own
// Testcase named by its SUM key, with Group naming the testcase run, in
// text and in -j output alike.
//
// Launcher prefixes (srun's "0: ", mpirun's "[1,0]<stdout>:", pdsh's
// "host: ") come off each line of the text output first.
//
// The package owns parsing only. It does not run nvbandwidth, does not know
// the probes domain types, and draws nothing; callers turn a Report into
// links and charts. It imports the standard library and parse.
//
// The files: nvbandwidth.go the model (Report, Testcase, Device) and
// Parse; direction.go what a bidirectional testcase's numbers are;
// describe.go what a description line says; parse_text.go and
// parse_json.go the two output forms; matrix.go the text matrix's rows;
// summary.go and text.go what a person reads.
//
// Truncated or foreign input returns a *parse.Error naming the line, together
// with everything parsed before it.
package nvbandwidth
