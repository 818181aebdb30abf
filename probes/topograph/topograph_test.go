package topograph

import (
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes/fake"
)

func TestSVGOfFakeMachines(t *testing.T) {
	ctx := context.Background()
	for _, name := range fake.Names() {
		m, _ := fake.ByName(name)
		topo, err := m.Topology(ctx)
		if err != nil {
			t.Fatal(err)
		}
		svg, err := SVG(ctx, topo)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s := string(svg)
		if !strings.Contains(s, "<svg") || !strings.Contains(s, "GPU7") {
			t.Errorf("%s: SVG lacks the drawing:\n%.300s", name, s)
		}
		// Well-formed XML, so a browser or notebook can show it.
		dec := xml.NewDecoder(strings.NewReader(s))
		dec.Strict = false
		for {
			if _, err := dec.Token(); err != nil {
				if err.Error() != "EOF" {
					t.Errorf("%s: SVG is not XML: %v", name, err)
				}
				break
			}
		}
		if name == "hgx-h200" && (!strings.Contains(s, "NVSwitch fabric") || !strings.Contains(s, "mlx5_1")) {
			t.Errorf("HGX drawing lacks NVSwitch or NICs")
		}
	}
}

func TestWriteSVGAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "topo.svg")
	topo, _ := fake.PCIeBox().Topology(context.Background())
	if err := WriteSVG(context.Background(), topo, path); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left %d files, want only topo.svg", len(entries))
	}
	if err := WriteSVG(context.Background(), topo, filepath.Join(dir, "missing", "x.svg")); err == nil {
		t.Error("write into a missing directory: want an error")
	}
}

func TestBadDOT(t *testing.T) {
	if _, err := DOTToSVG(context.Background(), "graph {"); err == nil {
		t.Error("broken DOT: want an error")
	}
	if _, err := SVG(context.Background(), nil); err == nil {
		t.Error("nil topology: want an error")
	}
}
