package nccltests

import (
	"fmt"
	"strings"
)

// BusBWFactor returns busbw/algbw for a collective on n ranks, as the
// GetBw functions of nccl-tests compute it (src/all_reduce.cu,
// src/all_gather.cu, ... in NVIDIA/nccl-tests): all_reduce 2(n-1)/n;
// all_gather, reduce_scatter, alltoall, gather, scatter (n-1)/n;
// broadcast, reduce, sendrecv 1. Names are accepted with or without the
// _perf suffix and in NCCL's CamelCase ("AllReduce").
func BusBWFactor(collective string, n int) (float64, error) {
	if n <= 0 {
		return 0, fmt.Errorf("nccltests: bus bandwidth factor needs a positive rank count, got %d", n)
	}
	nf := float64(n)
	switch normalizeCollective(collective) {
	case "allreduce":
		return 2 * (nf - 1) / nf, nil
	case "allgather", "reducescatter", "alltoall", "gather", "scatter":
		return (nf - 1) / nf, nil
	case "broadcast", "reduce", "sendrecv":
		return 1, nil
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownCollective, collective)
}

func normalizeCollective(name string) string {
	name = collectiveFromProgram(name)
	name = strings.ToLower(strings.ReplaceAll(name, "_", ""))
	return name
}
