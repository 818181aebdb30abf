// Package doctor runs the series' method on one machine's evidence and says,
// layer by layer, what is fine and what is not: each check is a Verdict with
// its layer (evidence, topology, NVLink, NIC, NCCL, collective, framework,
// hang), a status (ok, warn, fail, skipped), the evidence it read, the next
// step, the chapter that explains it and, where it has one, the leaf of
// chapter 6's decision tree it marks.
//
// The package owns reading the evidence and the checks. files.go reads
// what a user brings (Files, ReadFiles) with one reader per kind, run from
// one table: every file named is read, and what does not read becomes a
// named Problem, not a silent gap; joblog.go reads what PyTorch and
// torchrun print into a job's log, runs.go turns nccl-tests output into a
// saved run. The checks:
// topology.go (NIC placement, PCIe links, ACS, IOMMU, NUMA), nvlink.go
// (NVLink, P2P, measured copies against their link's ceiling), nic.go (RDMA
// ports, nvidia_peermem or DMA-BUF, GPUDirect RDMA where the network
// carries traffic), counters.go (NIC port counters from parse/netcounters
// against thresholds with their source), nccl.go (NCCL's log: version,
// WARN lines and their
// cause through ncclfailures.go's table of NCCL's failure forms,
// network, transports, channels, its picks beside the NCCL-like tuner's),
// env.go and envnics.go (the job's environment as the PyTorch and NCCL
// releases in use read it: renamed, masking, values as the release
// parses them (envvalues.go), unknown names with the likely intended one
// from envnames/, NCCL_IB_HCA against the NICs; netif.go: the socket
// interface against the node count, the RoCE GID and MTU; netsubnets.go:
// the socket interface NCCL uses on each node compared across the nodes'
// reports),
// defaults.go (PyTorch's defaults per version and launcher, unknown said
// so), hang.go (Flight Recorder dumps read for what they can know, slow
// ranks), kernel.go (dmesg Xid events with their meaning, lost GPUs, SXids,
// PCIe AER, NIC ports and interfaces down or flapping, modules, placed
// beside the stalled collective; the ranks' stacks), wrong.go (the
// wrong-results branch). Diagnose (report.go) runs them all and answers
// the series' closing questions in a Report,
// with the gaps ranked causes first and the decision tree marked
// (decision.go), metrics for --baseline and the exit code for a job
// prolog. The collective layer's busbw-curve verdicts (CheckCurves) come
// from the measured curve (curve.go), the model's (curve_model.go), the
// diagnosis (curve_diagnose.go; dips in curve_dips.go), the preset a curve
// is read against or its shape alone (curve_judge.go), the text
// (curve_text.go) and chapter 6's decision tree (curve_tree.go); they and
// the overlap verdict of a torch trace (TraceOverlap, overlap.go) join
// through Evidence.Collective and Evidence.Framework.
// launch.go builds the user's launcher's commands across nodes and the
// follow-up that reads what they leave, launchrun.go runs them (--run);
// recorded.go holds the lab's recorded machines (recorded/) as evidence, so
// the report can be read without a GPU. gather.go is the live evidence of
// the machine the doctor runs on (NVML and sysfs, and its measurements,
// each in a child commlab so that a hang there cannot take the report with
// it; netlive.go reads the RDMA ports' GIDs and counters from sysfs into the
// same evidence the files give); curvefile.go reads the curve doctor's one input file. Otherwise it
// reads what the probes and parsers produce and what the cost model
// expects (costmodel); it does not render pages (doctor/report does).
package doctor
