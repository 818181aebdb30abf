// Package flightrec reads PyTorch Flight Recorder dumps and says why a
// distributed job hangs.
//
// Flight Recorder (torch/csrc/distributed/c10d/FlightRecorder*.hpp) keeps a
// ring buffer of the last TORCH_FR_BUFFER_SIZE collectives and
// point-to-point operations of each rank (TORCH_NCCL_TRACE_BUFFER_SIZE
// before; torch 2.11 warns it is deprecated) and, on a timeout with
// TORCH_NCCL_DUMP_ON_TIMEOUT=1, writes it to TORCH_NCCL_DEBUG_INFO_TEMP_FILE
// followed by the rank: a pickle of a dict with version, comm_lib_version,
// pg_config (group name -> name, desc, ranks), pg_status (pg id -> last
// enqueued, started and completed collective) and entries (record_id, pg_id,
// process_group, collective_seq_id, p2p_seq_id, op_id, profiling_name such as
// "nccl:all_reduce", time_created_ns, input/output sizes and dtypes, state
// scheduled/started/completed, discovery times, retired, timeout_ms, is_p2p,
// frames). The JSON form (dump_json) has the same keys, without frames,
// with 0 for unknown times and pg_status values as strings. ParseDump and
// LoadDumps read both.
//
// Analyze does the cross-rank reading that torch's fr_trace analyzer does
// (torch/distributed/flight_recorder/components/builder.py), reduced to what
// a hang needs: per rank and process group the last collective enqueued,
// started and completed, the collective the group is stuck in, the ranks
// that never called it, ranks that disagree on operation, sizes or dtypes
// under one sequence id, unpaired sends and receives, and two groups whose
// ranks wait on each other, with a readable verdict ("rank 3 never called
// all_reduce #3001 of pg 0; ranks 0-2,4-7 are waiting in all_reduce
// #3001"). A rank of the group that left no dump comes first ("did it
// crash or get killed?"); every rank inside one collective with none done
// is its own finding (all-stuck): nobody is behind, the collective itself
// cannot finish.
//
// ParseWatchdogLog reads the same numbers from ProcessGroupNCCL's watchdog
// log lines ("Watchdog caught collective operation timeout: WorkNCCL(...)",
// "last enqueued NCCL work: E, last completed NCCL work: C"), which is what
// most reports of a hang carry instead of a dump.
//
// It reads only what a dump can know. pg_status and the entries are read
// at different moments (the watchdog updates pg_status as it polls; the
// dump refreshes each entry's state as it writes it), so where they
// disagree the larger counter, the later evidence, wins and Notes say so.
// "started" exists only when the ranks recorded start events
// (TORCH_NCCL_ENABLE_TIMING=1): Timing reads that from the dump (or takes
// it from the caller, AnalyzeWith), and without it no verdict says a GPU
// never started a collective. It fits the backend it reads: a CPU backend
// (gloo) records no start or end events, so its entries stay "scheduled"
// and its pg_status counts a failed collective as completed; there only
// the enqueued sequence ids count. A pg_config entry named "" (torch
// 2.11's gloo dumps name the default group so, while their entries say
// "0") is the default group, not a second one.
//
// LoadSet reads a folder as it is found: files that are not dumps are
// skipped with the reason, a rank dumped twice (pickle and JSON) keeps the
// dump that saw the job further.
//
// Pickles are decoded by this package's own reader (pickle.go), standard
// library only. nlpodyssey/gopickle reads these files too; it is not used
// for them because a dump cut short must still yield the entries
// before the cut, errors must name the byte offset, and a corrupt length
// field must not make the reader allocate more than the file holds, none of
// which gopickle's Unpickler exposes. The reader accepts only plain data
// (dicts, lists, tuples, strings, numbers, None) and torch's list builders;
// it never imports or calls anything named in the pickle.
//
// The package owns reading and analysing dumps. It does not run PyTorch,
// record dumps, or know the probes domain types.
//
// The files: dump.go and pickle.go read one dump; set.go reads a folder of
// them; findings.go is what an analysis reports; analyze.go groups the
// dumps by process group and finds deadlocks across groups; group.go
// lines up one group's ranks; rules.go the culprit rules (a mismatched
// call, a stuck collective, an unpaired send or receive); verdict.go says
// it in words; text.go writes it for a terminal or a notebook.
package flightrec
