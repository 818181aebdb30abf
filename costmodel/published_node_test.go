package costmodel_test

import (
	"testing"

	"github.com/commlab/commlab/costmodel"
)

// Every published row's node is its preset with the row's network, and
// agrees with the machine the calibration builds from it.
func TestPublishedRowNode(t *testing.T) {
	rows, err := costmodel.PublishedMeasurements()
	if err != nil {
		t.Fatal(err)
	}
	overridden := 0
	for _, r := range rows {
		node, err := r.Node()
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		preset, err := costmodel.NodeByName(r.Preset)
		if err != nil {
			t.Fatal(err)
		}
		wantNICs := preset.NICs
		if r.NICs > 0 {
			wantNICs = r.NICs
			overridden++
		}
		if node.NICs != wantNICs {
			t.Errorf("%s: %d NICs, want %d", r.ID, node.NICs, wantNICs)
		}
		if r.NIC != "" && node.NIC.Name != r.NIC {
			t.Errorf("%s: NIC %q, want %q", r.ID, node.NIC.Name, r.NIC)
		}
		if r.NIC == "" && node.NIC.Name != preset.NIC.Name {
			t.Errorf("%s: NIC %q, want the preset's %q", r.ID, node.NIC.Name, preset.NIC.Name)
		}
	}
	if overridden == 0 {
		t.Error("no published row names its own NICs: the override is untested")
	}
	if _, err := (costmodel.PublishedRow{Preset: "no-such-node"}).Node(); err == nil {
		t.Error("an unknown preset gave no error")
	}
}
