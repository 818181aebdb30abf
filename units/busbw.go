package units

import (
	"fmt"
	"strings"
)

// BusBWFactor returns nccl-tests' busbw/algbw factor for a collective on n
// ranks, as the GetBw functions of NVIDIA/nccl-tests compute it
// (src/*.cu; doc/PERFORMANCE.md):
//
//	all_reduce                                       2(n-1)/n
//	all_gather, reduce_scatter, alltoall, gather, scatter  (n-1)/n
//	broadcast, reduce, sendrecv, hypercube           1
//
// (hypercube's algbw already counts the n-1 pieces each rank receives.)
// Names are nccl-tests' with case, "_", "-" and spaces ignored, so
// "all_reduce", "AllReduce" and "all-to-all" all work. n must be positive.
func BusBWFactor(collective string, n int) (float64, error) {
	if n <= 0 {
		return 0, fmt.Errorf("units: bus bandwidth factor needs a positive rank count, got %d", n)
	}
	// The names as nccl-tests and costmodel spell them match without
	// building a key: Predict calls this once per size of a sweep.
	if f, ok := busBWFactor(collective, float64(n)); ok {
		return f, nil
	}
	if f, ok := busBWFactor(strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(collective)), float64(n)); ok {
		return f, nil
	}
	return 0, fmt.Errorf("%w %q", ErrCollective, collective)
}

func busBWFactor(name string, n float64) (float64, bool) {
	switch name {
	case "all_reduce", "allreduce":
		return 2 * (n - 1) / n, true
	case "all_gather", "reduce_scatter", "alltoall", "all_to_all", "gather", "scatter",
		"allgather", "reducescatter":
		return (n - 1) / n, true
	case "broadcast", "reduce", "sendrecv", "hypercube":
		return 1, true
	}
	return 0, false
}
