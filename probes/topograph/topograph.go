package topograph

import (
	"context"
	"errors"
	"fmt"

	"github.com/commlab/commlab/atomicfile"
	"github.com/commlab/commlab/probes"
)

// errNilTopology is what SVG returns for a nil topology.
var errNilTopology = errors.New("topograph: nil topology")

// SVG lays the topology out as a layered drawing and returns the SVG text.
// The same topology always gives the same bytes.
func SVG(ctx context.Context, t *probes.Topology) ([]byte, error) {
	if t == nil {
		return nil, errNilTopology
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("topograph: %w", err)
	}
	return render(layout(graphOf(t))), nil
}

// WriteSVG renders the topology and writes it to path atomically
// (atomicfile), readable by everyone (0644).
func WriteSVG(ctx context.Context, t *probes.Topology, path string) error {
	svg, err := SVG(ctx, t)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, svg, 0o644); err != nil {
		return fmt.Errorf("topograph: %w", err)
	}
	return nil
}

// graphOf returns the topology to draw: t itself when it has links, else
// a copy with what InferGraph infers from the path matrix.
func graphOf(t *probes.Topology) *probes.Topology {
	if len(t.Links) > 0 {
		return t
	}
	c := *t
	c.NUMANodes = append([]probes.NUMANode(nil), t.NUMANodes...)
	c.Switches = append([]probes.PCISwitch(nil), t.Switches...)
	c.NICs = append([]probes.NIC(nil), t.NICs...)
	c.Links = nil
	c.InferGraph()
	return &c
}
