// Package doctor runs the series' method on one machine's evidence and says,
// layer by layer, what is fine and what is not: each check is a Verdict with
// its layer (topology, NVLink, NIC, NCCL, collective, framework, hang), a
// status (ok, warn, fail, skipped), the evidence it read, the next step, and
// the chapter that explains it.
//
// The package owns the checks and their verdicts. It reads what the probes
// and parsers produce (probes.Topology, nccllog.Log, nccltests results,
// flightrec dumps, torch traces) and what the cost model expects
// (costmodel); it does not probe hardware itself, start launchers, or
// render pages.
package doctor
