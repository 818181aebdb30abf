package units

import (
	"errors"
	"fmt"
	"strings"
)

// ErrCollective is wrapped when BusBWFactor does not know a collective.
var ErrCollective = errors.New("units: unknown collective")

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
	nf := float64(n)
	switch strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(collective)) {
	case "allreduce":
		return 2 * (nf - 1) / nf, nil
	case "allgather", "reducescatter", "alltoall", "gather", "scatter":
		return (nf - 1) / nf, nil
	case "broadcast", "reduce", "sendrecv", "hypercube":
		return 1, nil
	}
	return 0, fmt.Errorf("%w %q", ErrCollective, collective)
}
