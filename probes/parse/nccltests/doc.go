// Package nccltests parses the output of NVIDIA's nccl-tests benchmarks
// (all_reduce_perf, all_gather_perf, ...): the text they print on stdout, in
// the layouts of old and new versions, and the JSON file newer versions write
// with -J.
//
// The text parser accepts what real logs contain: header lines (version,
// nThread/nGpus/minBytes line, one device line per rank), rows with an
// out-of-place and an in-place half, the old `error` column and layouts
// without a root or redop column, `N/A` in the #wrong column (-c 0),
// numbers shrunk to `1e+06`, NCCL_DEBUG lines interleaved anywhere (even in
// the middle of a row), launcher prefixes such as `[1,0]<stdout>:` or `[0] `,
// several runs in one file, and the footer (Out of bounds, Avg bus
// bandwidth). Truncated input returns what parsed together with an error
// that names the line.
//
// The package owns the parsed form of one benchmark output (Result, Run,
// Row) and the bus-bandwidth factors nccl-tests applies per collective. It
// does not run the benchmarks, fit models to the numbers or know about
// probes' domain types; callers convert. Standard library only.
package nccltests
