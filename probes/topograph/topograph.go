package topograph

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/goccy/go-graphviz"

	"github.com/commlab/commlab/probes"
)

// render serialises layouts: the WebAssembly Graphviz keeps global state.
var render sync.Mutex

// SVG lays the topology out with Graphviz dot and returns the SVG text.
func SVG(ctx context.Context, t *probes.Topology) ([]byte, error) {
	if t == nil {
		return nil, errors.New("topograph: nil topology")
	}
	return DOTToSVG(ctx, t.DOT())
}

// DOTToSVG lays out any DOT text with Graphviz dot and returns SVG.
func DOTToSVG(ctx context.Context, dot string) (out []byte, err error) {
	render.Lock()
	defer render.Unlock()
	// A failure inside the WebAssembly runtime must not take the caller
	// down with it.
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("topograph: graphviz failed: %v", r)
		}
	}()
	g, err := graphviz.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("topograph: start graphviz: %w", err)
	}
	defer g.Close()
	graph, err := graphviz.ParseBytes([]byte(dot))
	if err != nil {
		return nil, fmt.Errorf("topograph: parse DOT: %w", err)
	}
	defer graph.Close()
	var buf bytes.Buffer
	if err := g.Render(ctx, graph, graphviz.SVG, &buf); err != nil {
		return nil, fmt.Errorf("topograph: render SVG: %w", err)
	}
	return buf.Bytes(), nil
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
