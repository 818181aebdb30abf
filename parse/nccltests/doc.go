// Package nccltests parses the output of NVIDIA's nccl-tests benchmarks
// (all_reduce_perf, all_gather_perf, ...): the text they print on stdout, in
// the layouts of old and new versions, and the JSON file newer versions write
// with -J.
//
// The text parser accepts what real logs contain: header lines (version,
// nThread/nGpus/minBytes line, one device line per rank), rows with an
// out-of-place and an in-place half, the old `error` column and layouts
// without a root or redop column (each collective printed only its own
// columns before 2.13), a blank redop (hypercube; all_gather in 2.13),
// `N/A` in the #wrong column (-c 0), numbers shrunk to `1e+06`,
// NCCL_DEBUG lines interleaved anywhere (even in the middle of a row),
// launcher prefixes (`[1,0]<stdout>:`, srun's `0: `, torchrun's
// `[default0]:`, pdsh's `host: `, `[0] `), header lines that lost their
// `#` (a paste rendered as markdown), several runs in one file, rccl-tests
// and RCCL's version block, and the footer (Out of bounds, Avg bus
// bandwidth). Truncated input returns what parsed together with an error
// that names the line.
//
// When the output does not name the benchmark, Run.Collective comes from
// the columns (redop, root, size over count, busbw over algbw, as each
// nccl-tests collective prints them); when no device line counts the
// ranks, Run.Ranks comes from busbw/algbw or size/count. CollectiveFrom
// and RanksFrom say which inference was made, or why none could be (an
// all_gather and an alltoall print the same columns), and Notes what was
// set aside (rows of two runs mixed, device lines fewer than the ranks).
//
// The package owns the parsed form of one benchmark output (Result, Run,
// Row) and the bus-bandwidth factors nccl-tests applies per collective. It
// does not run the benchmarks, fit models to the numbers or know about
// probes' domain types; callers convert. Standard library only.
package nccltests
