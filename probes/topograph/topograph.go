package topograph

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

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

// WriteSVG renders the topology and writes it to path atomically: to a
// temporary file in the same directory, then renamed over path.
func WriteSVG(ctx context.Context, t *probes.Topology, path string) error {
	svg, err := SVG(ctx, t)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("topograph: %w", err)
	}
	name := tmp.Name()
	if _, err := tmp.Write(svg); err != nil {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("topograph: write %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("topograph: %w", err)
	}
	// CreateTemp makes the file private; a drawing is for everyone to read.
	if err := os.Chmod(name, 0o644); err != nil {
		os.Remove(name)
		return fmt.Errorf("topograph: %w", err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
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
