// Package c10dlab runs and reads chapter 5's c10d experiments
// (probes/launch's c10d_lab.py): the calls a backend makes on the
// rendezvous store (TCPStore) while a group is created, small all_reduces
// issued one by one against the coalesced forms, a collective timeout under
// each TORCH_NCCL_ASYNC_ERROR_HANDLING value with what each leaves behind,
// and a functional collective under torch.compile with wait_tensor's place
// in the generated code.
//
// The script writes one summary.json; Load reads it from any fs.FS (a
// recorded run's folder in probes/recorded, or a live run's). Measure is the
// chapter's live-or-recorded call: gloo parts run live where python3 has
// PyTorch, NCCL parts where PyTorch also sees a GPU. The package starts
// processes only through probes/launch and stores no runs.
//
// c10dlab and probes/overlap look alike (a chapter 5 script, a summary.json,
// a live-or-recorded Measure) and stay two packages: what they read is
// two vocabularies, the c10d layer's store calls, coalescing, timeouts and
// compiled collectives here, and profiler traces of compute under
// communication there, each with its own chapter cells. What their runs
// share lives once below them: the scripts and their launching in
// probes/launch (Script, OutputDir), the live-or-recorded flow in
// probes/measure (LiveOrRecorded), the stored provenance in probes/recorded
// (Adopt).
package c10dlab
