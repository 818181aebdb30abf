package topograph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/commlab/commlab/probes"
)

// Show is how commlab probe topo prints a topology: as JSON, as Graphviz
// DOT, else as text; with SVG set, also drawn into that file first.
type Show struct {
	JSON, DOT bool
	SVG       string
}

// Write draws t into s.SVG when set, then prints t on w; of the prints,
// only JSON's reports a failed write, as the command always has.
func (s Show) Write(ctx context.Context, t *probes.Topology, w io.Writer) error {
	if s.SVG != "" {
		if err := WriteSVG(ctx, t, s.SVG); err != nil {
			return err
		}
	}
	switch {
	case s.JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(t)
	case s.DOT:
		fmt.Fprint(w, DOT(t))
	default:
		fmt.Fprint(w, Text(t))
	}
	return nil
}

// ErrNothingRead says the machine has no NVIDIA driver or GPU and sysfs
// gave nothing either.
var ErrNothingRead = errors.New("topograph: sysfs gave nothing either; nothing to show")

// Read reads src's topology as commlab probe topo shows it: on a machine
// without an NVIDIA driver or GPU (probes.ErrUnavailable) it says so on
// warn and keeps what sysfs gave, failing with ErrNothingRead only when
// that is nothing.
func Read(ctx context.Context, src probes.Source, warn io.Writer) (*probes.Topology, error) {
	topo, err := src.Topology(ctx)
	if err == nil || !errors.Is(err, probes.ErrUnavailable) {
		return topo, err
	}
	// A laptop or a CPU-only server: say so, and show what sysfs gave.
	fmt.Fprintf(warn, "no NVIDIA driver/GPU on this machine: %v\n", err)
	if topo == nil || (len(topo.GPUs) == 0 && len(topo.NICs) == 0 && len(topo.NUMANodes) == 0) {
		return nil, ErrNothingRead
	}
	fmt.Fprintln(warn, "showing what sysfs gave.")
	return topo, nil
}
