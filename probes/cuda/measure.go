package cuda

import (
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/probes"
)

// How the numbers of a run were taken, recorded in its Settings. These
// texts are the provenance of every copy and latency run, live or recorded,
// so they are written here once.
const (
	// bandwidthTiming says how Bandwidth times a copy and counts its bytes.
	bandwidthTiming = "CUDA events around iters back-to-back copies; median over reps; bytes counted once per copy (a device-local copy reads and writes them)"
	// pageableHostMemory says how the pageable host buffers are allocated.
	pageableHostMemory = "posix_memalign 64 bytes, every page touched before timing (as PyTorch's CPU allocator)"
	// pinnedOnNodeMemory says how pinned buffers are placed on a NUMA node
	// (BandwidthConfig.HostNodes).
	pinnedOnNodeMemory = "mmap, mbind(MPOL_BIND) to the node before first touch, every page touched, then cudaHostRegister"
	// latencyKernel says which kernel Latency launches.
	latencyKernel = "empty PTX kernel (1 block, 1 thread) JIT-compiled by the driver through cuModuleLoadData, launched with cuLaunchKernel"
)

// MeasureBandwidth opens CUDA and times copies as Bandwidth does, and
// returns them as a run of kind "bandwidth" with its provenance: the
// machine (Info.Describe) and every setting the copies used, defaults
// resolved (sizes, ops, devices, warmup, iters, reps, the runtime library,
// how copies are timed and how pageable memory is allocated). Command is
// left for the caller. When CUDA cannot be opened the run is nil and the
// error wraps probes.ErrUnavailable where CUDA is absent; when the copies
// fail part way, the run holds the samples taken before, its Error says
// why, and the error is returned too.
func MeasureBandwidth(cfg BandwidthConfig) (*probes.Run, error) {
	return measureRun(func(info *Info) *probes.Run { return bandwidthProvenance(info, &cfg) },
		func() ([]probes.Sample, error) { return Bandwidth(cfg) })
}

// MeasureLatency opens CUDA and times launches as Latency does, and
// returns them as a run of kind "latency" with its provenance: the machine
// and every setting used, defaults resolved (device, warmup, iters, reps,
// graph_kernels, the kernel launched, the runtime library). Errors are
// returned as MeasureBandwidth returns them.
func MeasureLatency(cfg LatencyConfig) (*probes.Run, error) {
	return measureRun(func(info *Info) *probes.Run { return latencyProvenance(info, &cfg) },
		func() ([]probes.Sample, error) { return Latency(cfg) })
}

// measureRun opens CUDA, records the run's provenance (which resolves the
// config's defaults before measure reads it) and measures into it.
func measureRun(provenance func(*Info) *probes.Run, measure func() ([]probes.Sample, error)) (*probes.Run, error) {
	info, err := Open()
	if err != nil {
		return nil, err
	}
	run := provenance(info)
	run.Samples, err = measure()
	if err != nil {
		run.Error = err.Error()
	}
	return run, err
}

// bandwidthProvenance resolves cfg's defaults (nil Devices: every device info
// lists) and returns the run, without samples, that records them.
func bandwidthProvenance(info *Info, cfg *BandwidthConfig) *probes.Run {
	cfg.defaults()
	if cfg.Devices == nil {
		for d := range info.Devices {
			cfg.Devices = append(cfg.Devices, d)
		}
	}
	settings := map[string]string{
		"sizes": joinInts(cfg.Sizes), "ops": strings.Join(cfg.Ops, ","), "devices": joinInts(cfg.Devices),
		"warmup": strconv.Itoa(cfg.Warmup), "iters": strconv.Itoa(cfg.Iters), "reps": strconv.Itoa(cfg.Reps),
		"timing": bandwidthTiming, "pageable_host_memory": pageableHostMemory,
	}
	if len(cfg.HostNodes) > 0 {
		settings["host_nodes"], settings["pinned_host_memory"] = joinInts(cfg.HostNodes), pinnedOnNodeMemory
	}
	return describedRun("bandwidth", info, settings)
}

// latencyProvenance resolves cfg's defaults and returns the run, without
// samples, that records them.
func latencyProvenance(info *Info, cfg *LatencyConfig) *probes.Run {
	cfg.defaults()
	return describedRun("latency", info, map[string]string{
		"device": strconv.Itoa(cfg.Device), "warmup": strconv.Itoa(cfg.Warmup), "iters": strconv.Itoa(cfg.Iters),
		"reps": strconv.Itoa(cfg.Reps), "graph_kernels": strconv.Itoa(cfg.GraphKernels), "kernel": latencyKernel,
	})
}

// describedRun is a run of kind dated now, with settings, the runtime
// library and the machine info describes.
func describedRun(kind string, info *Info, settings map[string]string) *probes.Run {
	settings["library"] = info.Library
	run := &probes.Run{Kind: kind, Date: time.Now().UTC(), Settings: settings}
	info.Describe(run)
	return run
}

// joinInts writes integers comma-separated, as Settings hold lists.
func joinInts[T int | int64](v []T) string {
	f := make([]string, len(v))
	for i, n := range v {
		f[i] = strconv.FormatInt(int64(n), 10)
	}
	return strings.Join(f, ",")
}
