// Package overlap runs and reads chapter 5's overlap micro-benchmark
// (probes/launch's bench_overlap.py): GEMMs on the compute stream under a
// collective on ProcessGroupNCCL's stream, the variants that break the
// overlap (.item(), a synchronize, a wait() in the wrong place, an
// allocation that makes the caching allocator free), and the core
// question's cases (when the async call returns, when wait() returns, what
// a modification of the input before wait() does).
//
// A run of the benchmark is a folder: summary.json (settings, versions,
// step times) and one gzipped torch.profiler trace per variant or case.
// Load reads such a folder from any fs.FS, the recorded ones
// (probes/recorded's Files) as well as a live run's; each trace goes
// through parse/torchtrace, so the overlap fraction and the
// timestamps come from the traces, not from the script's own arithmetic.
// Measure is the chapter's live-or-recorded call: live when python3 imports
// torch and sees a GPU, the recording otherwise, with measure's banner.
//
// The package starts processes only through probes/launch and stores no
// runs. Why it is a package apart from probes/c10dlab, which runs and reads
// chapter 5's other script, is said there.
package overlap
