package probes

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ParseCPUList reads a Linux cpulist ("0-47,96-143", as sysfs and
// nvidia-smi topo -m print CPU affinity) into the sorted CPU numbers.
func ParseCPUList(list string) ([]int, error) {
	seen := map[int]bool{}
	for _, part := range strings.Split(strings.TrimSpace(list), ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, errA := strconv.Atoi(strings.TrimSpace(lo))
		b := a
		var errB error
		if isRange {
			b, errB = strconv.Atoi(strings.TrimSpace(hi))
		}
		if errA != nil || errB != nil || b < a {
			return nil, fmt.Errorf("probes: cpulist %q: bad part %q", list, part)
		}
		for c := a; c <= b; c++ {
			seen[c] = true
		}
	}
	cpus := make([]int, 0, len(seen))
	for c := range seen {
		cpus = append(cpus, c)
	}
	sort.Ints(cpus)
	return cpus, nil
}

// FormatCPUList writes CPU numbers back as a cpulist, runs joined with a
// dash; "" for none.
func FormatCPUList(cpus []int) string {
	sorted := append([]int(nil), cpus...)
	sort.Ints(sorted)
	var parts []string
	for i := 0; i < len(sorted); {
		j := i
		for j+1 < len(sorted) && sorted[j+1] <= sorted[j]+1 {
			j++
		}
		if sorted[j] == sorted[i] {
			parts = append(parts, strconv.Itoa(sorted[i]))
		} else {
			parts = append(parts, strconv.Itoa(sorted[i])+"-"+strconv.Itoa(sorted[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// NCCLAffinityLine is the line NCCL logs when it binds the threads of one
// GPU (ncclTopoGetCpuAffinity, src/graph/topo.cc, NVIDIA/nccl v2.28.9-1):
// the CPUs of the GPU's socket intersected with the process's own mask,
// or the GPU's CPUs alone when NCCL_IGNORE_CPU_AFFINITY=1; "empty,
// ignoring" when the intersection is empty (NCCL then leaves the threads
// where they are). gpuCPUs and processMask are cpulists.
func NCCLAffinityLine(gpu int, gpuCPUs, processMask string, ignoreProcessMask bool) (string, error) {
	gpuSet, err := ParseCPUList(gpuCPUs)
	if err != nil {
		return "", err
	}
	process, err := ParseCPUList(processMask)
	if err != nil {
		return "", err
	}
	inProcess := map[int]bool{}
	for _, c := range process {
		inProcess[c] = true
	}
	var final []int
	for _, c := range gpuSet {
		if ignoreProcessMask || inProcess[c] {
			final = append(final, c)
		}
	}
	result := FormatCPUList(final)
	if result == "" {
		result = "empty, ignoring"
	}
	line := fmt.Sprintf("Affinity for GPU %d is %s. (GPU affinity = %s", gpu, result, FormatCPUList(gpuSet))
	if !ignoreProcessMask {
		line += " ; CPU affinity = " + FormatCPUList(process)
	}
	return line + ").", nil
}
