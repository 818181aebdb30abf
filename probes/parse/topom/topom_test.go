package topom

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden is what a golden file holds for one input: the topology and the
// error text, so partial results of bad inputs are pinned too.
type golden struct {
	Topology *probes.Topology `json:"topology"`
	Error    string           `json:"error,omitempty"`
}

func TestParseTopoGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			topo, perr := ParseString(string(data))
			g := golden{Topology: topo}
			if perr != nil {
				g.Error = perr.Error()
			}
			got, err := json.MarshalIndent(g, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := strings.TrimSuffix(in, ".txt") + ".golden"
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if string(got) != string(want) {
				t.Errorf("%s differs from golden; run go test -update and review the diff", in)
			}
		})
	}
}

func mustParse(t *testing.T, name string) *probes.Topology {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	topo, err := ParseString(string(data))
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return topo
}

func TestParseTopoFacts(t *testing.T) {
	tests := []struct {
		file      string
		gpus      int
		nics      int
		numa      int
		switches  int
		nvswitch  bool
		a, b      string
		path      string
		firstNIC  string
		noteMatch string
	}{
		{"hgx-h20-8gpu-8nic.txt", 8, 8, 2, 8, true, "GPU0", "NIC0", "PIX", "mlx5_1", "inferred"},
		{"synthetic-spaces-h20.txt", 8, 8, 2, 8, true, "GPU5", "NIC5", "PIX", "mlx5_1", "inferred"},
		{"synthetic-escapes-h20.txt", 8, 8, 2, 8, true, "GPU3", "NIC4", "SYS", "mlx5_1", "inferred"},
		{"pcie-8gpu-pix-pairs.txt", 8, 0, 0, 4, false, "GPU2", "GPU3", "PIX", "", "NUMA nodes unknown"},
		{"p40-8gpu-soc-mlx5.txt", 8, 1, 0, 3, false, "GPU0", "NIC0", "SYS", "mlx5_0", "SOC"},
		{"a100-4gpu-nv3-mlx5.txt", 4, 4, 2, 2, false, "GPU0", "GPU1", "NV3", "mlx5_0", "named after the device"},
		{"h200-1gpu-vm-escapes.txt", 1, 0, 1, 0, false, "GPU0", "GPU0", "X", "", "inferred"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			topo := mustParse(t, tc.file)
			if len(topo.GPUs) != tc.gpus || len(topo.NICs) != tc.nics || len(topo.NUMANodes) != tc.numa || len(topo.Switches) != tc.switches {
				t.Errorf("gpus %d nics %d numa %d switches %d, want %d %d %d %d",
					len(topo.GPUs), len(topo.NICs), len(topo.NUMANodes), len(topo.Switches), tc.gpus, tc.nics, tc.numa, tc.switches)
			}
			p, ok := topo.PathBetween(tc.a, tc.b)
			if !ok || p.String() != tc.path {
				t.Errorf("path %s-%s = %v (%v), want %s", tc.a, tc.b, p, ok, tc.path)
			}
			if tc.firstNIC != "" && topo.NICs[0].Name != tc.firstNIC {
				t.Errorf("NIC0 is %q, want %q", topo.NICs[0].Name, tc.firstNIC)
			}
			hasNVS := strings.Contains(topo.DOT(), probes.NVSwitchID)
			if hasNVS != tc.nvswitch {
				t.Errorf("NVSwitch in drawing: %v, want %v", hasNVS, tc.nvswitch)
			}
			if !strings.Contains(strings.Join(topo.Notes, "\n"), tc.noteMatch) {
				t.Errorf("notes %q lack %q", topo.Notes, tc.noteMatch)
			}
		})
	}
}

func TestParseTopoAffinity(t *testing.T) {
	topo := mustParse(t, "hgx-h20-8gpu-8nic.txt")
	g := topo.GPUs[5]
	if g.CPUAffinity != "48-95,144-191" || g.NUMANode != 1 || g.MemoryNUMANode != -1 {
		t.Errorf("GPU5 = %+v", g)
	}
	nics, level := topo.NearestNICs("GPU6")
	if len(nics) != 1 || nics[0] != "NIC6" || level != probes.LevelPIX {
		t.Errorf("nearest NICs of GPU6 = %v at %v, want NIC6 at PIX", nics, level)
	}
	if topo.NICs[6].NUMANode != 1 {
		t.Errorf("NIC6 NUMA node = %d, want 1 (inferred from GPU6)", topo.NICs[6].NUMANode)
	}
	della := mustParse(t, "a100-4gpu-nv3-mlx5.txt")
	if della.GPUs[2].NUMANode != 8 {
		t.Errorf("della GPU2 NUMA = %d, want 8", della.GPUs[2].NUMANode)
	}
}

// The matrix renders back to what nvidia-smi printed.
func TestParseTopoMatrixRoundTrip(t *testing.T) {
	data, err := os.ReadFile("testdata/hgx-h20-8gpu-8nic.txt")
	if err != nil {
		t.Fatal(err)
	}
	topo, err := ParseString(string(data))
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

func TestParseTopoErrors(t *testing.T) {
	tests := []struct {
		file     string
		line     int
		contains string
		gpus     int
	}{
		{"synthetic-truncated-h20.txt", 7, "row GPU5 has 7 of 16 cells", 6},
		{"synthetic-badcell-h20.txt", 4, `unknown topology cell "XYZ"`, 8},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			data, _ := os.ReadFile(filepath.Join("testdata", tc.file))
			topo, err := ParseString(string(data))
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not a LineError", err)
			}
			if le.Line != tc.line || !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("error %q, want line %d containing %q", err, tc.line, tc.contains)
			}
			if len(topo.GPUs) != tc.gpus {
				t.Errorf("kept %d GPUs, want %d", len(topo.GPUs), tc.gpus)
			}
		})
	}
	_, err := ParseString("hello\nworld\n")
	if !errors.Is(err, ErrNoMatrix) {
		t.Errorf("foreign input: %v, want ErrNoMatrix", err)
	}
}

func TestStripEscapes(t *testing.T) {
	tests := map[string]string{
		"\x1b[4mGPU0\x1b[0m":  "GPU0",
		"a\x1b(Bb":            "ab",
		"plain":               "plain",
		"\x1b[1;31mred\x1b[m": "red",
		"\x1b":                "",
	}
	for in, want := range tests {
		if got := stripEscapes(in); got != want {
			t.Errorf("stripEscapes(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseTopo(f *testing.F) {
	inputs, _ := filepath.Glob("testdata/*.txt")
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err == nil {
			f.Add(string(data))
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		topo, _ := ParseString(s)
		if topo == nil {
			t.Fatal("nil topology")
		}
		_ = topo.Matrix()
		_ = topo.DOT()
	})
}
