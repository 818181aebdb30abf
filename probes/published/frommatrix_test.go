package published

import (
	"context"
	"github.com/commlab/commlab/probes/topograph"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes"
)

const topomTestdata = "../../parse/nvidiasmi/testdata/topo"

func fromFile(t *testing.T, name string) (*probes.Topology, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(topomTestdata, name))
	if err != nil {
		t.Fatal(err)
	}
	m, perr := FromTopoM(name, string(data))
	if m == nil {
		return nil, perr
	}
	topo, err := m.Topology(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return topo, perr
}

// The graph inferred from each recorded matrix.
func TestFromTopoMGraph(t *testing.T) {
	tests := []struct {
		file     string
		numa     int
		switches int
		nvswitch bool
		socket   bool // CPU sockets inferred from SYS paths
	}{
		{"hgx-h20-8gpu-8nic.txt", 2, 8, true, false},
		{"synthetic-spaces-h20.txt", 2, 8, true, false},
		{"pcie-8gpu-pix-pairs.txt", 0, 4, false, true},
		{"p40-8gpu-soc-mlx5.txt", 0, 3, false, true},
		{"a100-4gpu-nv3-mlx5.txt", 2, 2, false, false},
		{"h200-1gpu-vm-escapes.txt", 1, 0, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			topo, err := fromFile(t, tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(topo.NUMANodes) != tc.numa || len(topo.Switches) != tc.switches {
				t.Errorf("numa %d switches %d, want %d %d", len(topo.NUMANodes), len(topo.Switches), tc.numa, tc.switches)
			}
			dot := topograph.DOT(topo)
			if strings.Contains(dot, probes.NVSwitchID) != tc.nvswitch || strings.Contains(dot, "SOCKET0") != tc.socket {
				t.Errorf("NVSwitch %v socket %v in:\n%s", tc.nvswitch, tc.socket, dot)
			}
		})
	}
	topo, _ := fromFile(t, "hgx-h20-8gpu-8nic.txt")
	if topo.NICs[6].NUMANode != 1 {
		t.Errorf("NIC6 NUMA %d, want 1 from GPU6", topo.NICs[6].NUMANode)
	}
	nics, level := topo.NearestNICs("GPU6")
	if len(nics) != 1 || nics[0] != "NIC6" || level != probes.LevelPIX {
		t.Errorf("GPU6 nearest %v at %v", nics, level)
	}
}

// The matrix renders back to what nvidia-smi printed.
func TestFromTopoMRoundTrip(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(topomTestdata, "hgx-h20-8gpu-8nic.txt"))
	if err != nil {
		t.Fatal(err)
	}
	topo, err := fromFile(t, "hgx-h20-8gpu-8nic.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimPrefix(string(data), "NVIDIA Topology:\n")
	if got := topo.Matrix(); normalize(got) != normalize(want) {
		t.Errorf("Matrix() differs:\n%s\nwant:\n%s", got, want)
	}
}

func normalize(s string) string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		out = append(out, strings.TrimRight(l, " \t"))
	}
	return strings.Join(out, "\n")
}

// A damaged paste still gives a machine of what parsed, with the error.
func TestFromTopoMPartial(t *testing.T) {
	topo, err := fromFile(t, "synthetic-truncated-h20.txt")
	if err == nil || !strings.Contains(err.Error(), "line 7") || topo == nil || len(topo.GPUs) != 6 {
		t.Errorf("truncated: %v, %v", err, topo)
	}
	if _, err := FromTopoM("x", "not a matrix\n"); err == nil {
		t.Error("foreign input: want an error")
	}
}

// Whatever text is pasted, building and drawing the machine never panics.
func FuzzFromTopoM(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join(topomTestdata, "*.txt"))
	for _, in := range inputs {
		if data, err := os.ReadFile(in); err == nil {
			f.Add(string(data))
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, _ := FromTopoM("fuzz", s)
		if m == nil {
			return
		}
		topo, err := m.Topology(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		_ = topo.Matrix()
		_ = topograph.DOT(topo)
		_ = topo.Summary()
	})
}
