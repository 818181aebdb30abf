// Package doctor runs the series' method on one machine's evidence and says,
// layer by layer, what is fine and what is not: each check is a Verdict with
// its layer (topology, NVLink, NIC, NCCL, collective, framework, hang), a
// status (ok, warn, fail, skipped), the evidence it read, the next step, and
// the chapter that explains it.
//
// The package owns the checks and their verdicts: topology.go (NIC
// placement, PCIe links, ACS, IOMMU, NUMA), nvlink.go (NVLink, P2P,
// measured copies against their link's ceiling), nic.go (RDMA ports,
// nvidia_peermem or DMA-BUF, GPUDirect RDMA per NIC and why not), nccl.go
// (NCCL's log: version, network, transports, channels, its picks beside
// the NCCL-like tuner's), env.go (the job's environment as PyTorch and NCCL
// read it), hang.go (Flight Recorder dumps, slow ranks). Evidence
// (evidence.go) is what they read, any subset; Diagnose (report.go) runs
// them all and answers the series' closing questions in a Report, with
// metrics for --baseline and the exit code for a job prolog. The
// collective layer's busbw-curve verdicts (CheckCurves, curve*.go) and the
// overlap verdict of a torch trace (TraceOverlap, overlap.go) join through
// Evidence.Collective and Evidence.Framework. launch.go builds the user's launcher's commands
// across nodes; recorded.go holds the lab's recorded machines (recorded/)
// as evidence, so the report can be read without a GPU. It reads what the probes
// and parsers produce (probes.Topology, nccllog.Log, nccltests results,
// flightrec dumps, torch traces) and what the cost model expects
// (costmodel); it does not probe hardware itself, start launchers, or
// render pages.
package doctor
