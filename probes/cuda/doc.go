// Package cuda measures what the CUDA runtime can show about moving bytes
// and launching work: copy bandwidth (host to device and back, pinned and
// pageable; device-local; peer to peer as a GPU x GPU matrix), kernel-launch
// latency, event round trips and CUDA-graph replay.
//
// The CUDA runtime (libcudart.so.13, .12, or libcudart.so) and the driver
// API (libcuda.so.1) are loaded at run time through probes/dynlib, as
// go-nvml loads NVML, so commlab builds and runs on machines without CUDA;
// there every measurement returns an error wrapping probes.ErrUnavailable
// that says what is missing ("cuda: CUDA runtime unavailable:
// libcudart.so.13, libcudart.so.12, libcudart.so not found"). The library
// path can be forced with COMMLAB_CUDART. The cgo preamble declares the
// functions used once (an X-macro list) and wraps the calls.
//
// Bandwidth and Latency return samples; MeasureBandwidth and MeasureLatency
// return them as a probes.Run (as nccl.Measure does) with the provenance
// written once, here: the machine and every setting used, defaults
// resolved. `commlab probe bandwidth|latency` and probes/measure both call
// them, so a chapter's live run carries the settings of the recorded run
// it stands in for.
//
// Kernel launches are timed with a real (empty) kernel: its PTX is embedded
// as text and handed to the driver's JIT with cuModuleLoadData, because no
// CUDA compiler is needed to build commlab.
//
// The package does not run collectives (probes/nccl) nor read topology
// (probes/nvml, probes/sysfs).
package cuda
