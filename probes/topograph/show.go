package topograph

import (
	"context"
	"encoding/json"
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
