package probes

import "context"

// Source reads a machine's topology: live (NVML, sysfs), recorded (a parsed
// `nvidia-smi topo -m`) or built from published outputs (probes/published).
type Source interface {
	// Topology returns what the source knows. When the source cannot read
	// anything it returns an error wrapping ErrUnavailable; when it read
	// part, it returns the part together with the error.
	Topology(ctx context.Context) (*Topology, error)
}
