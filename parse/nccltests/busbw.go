package nccltests

import (
	"errors"
	"fmt"
	"strings"

	"github.com/commlab/commlab/units"
)

// BusBWFactor returns busbw/algbw for a collective on n ranks, as the
// GetBw functions of nccl-tests compute it (units.BusBWFactor):
// all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall, gather,
// scatter (n-1)/n; broadcast, reduce, sendrecv, hypercube 1. Names are
// accepted with or without the _perf suffix and in NCCL's CamelCase
// ("AllReduce").
func BusBWFactor(collective string, n int) (float64, error) {
	if n <= 0 {
		return 0, fmt.Errorf("nccltests: bus bandwidth factor needs a positive rank count, got %d", n)
	}
	f, err := units.BusBWFactor(normalizeCollective(collective), n)
	if errors.Is(err, units.ErrCollective) {
		return 0, fmt.Errorf("%w: %q", ErrUnknownCollective, collective)
	}
	return f, err
}

func normalizeCollective(name string) string {
	name = collectiveFromProgram(name)
	name = strings.ToLower(strings.ReplaceAll(name, "_", ""))
	return name
}
