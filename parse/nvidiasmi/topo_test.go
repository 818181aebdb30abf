package nvidiasmi

import (
	"errors"
	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/parse"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// topoGolden is what a golden file holds for one input: the topology and the
// error text, so partial results of bad inputs are pinned too.
type topoGolden struct {
	Matrix *TopoMatrix `json:"matrix"`
	Error  string      `json:"error,omitempty"`
}

func TestParseTopoGolden(t *testing.T) {
	golden.Each(t, golden.Inputs(t, 1, "testdata/topo/*.txt", "testdata/topo/public/*.txt"), golden.ReplaceExt, func(t *testing.T, data []byte) []byte {
		m, perr := ParseTopoMatrixString(string(data))
		g := topoGolden{Matrix: m}
		if perr != nil {
			g.Error = perr.Error()
		}
		return golden.JSON(t, g, "  ")
	})
}

func mustParse(t *testing.T, name string) *TopoMatrix {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "topo", name))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseTopoMatrixString(string(data))
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return m
}

func TestParseTopoFacts(t *testing.T) {
	tests := []struct {
		file      string
		gpus      int
		nics      int
		a, b      string
		cell      string
		firstNIC  string
		noteMatch string
	}{
		{"hgx-h20-8gpu-8nic.txt", 8, 8, "GPU0", "NIC0", "PIX", "mlx5_1", ""},
		{"synthetic-spaces-h20.txt", 8, 8, "GPU5", "NIC5", "PIX", "mlx5_1", ""},
		{"synthetic-escapes-h20.txt", 8, 8, "GPU3", "NIC4", "SYS", "mlx5_1", ""},
		{"pcie-8gpu-pix-pairs.txt", 8, 0, "GPU2", "GPU3", "PIX", "", "NUMA nodes unknown"},
		{"p40-8gpu-soc-mlx5.txt", 8, 1, "GPU0", "NIC0", "SYS", "mlx5_0", "SOC"},
		{"a100-4gpu-nv3-mlx5.txt", 4, 4, "GPU0", "GPU1", "NV3", "mlx5_0", "named after the device"},
		{"h200-1gpu-vm-escapes.txt", 1, 0, "GPU0", "GPU0", "X", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m := mustParse(t, tc.file)
			if len(m.GPUs) != tc.gpus || len(m.NICs) != tc.nics {
				t.Errorf("gpus %d nics %d, want %d %d", len(m.GPUs), len(m.NICs), tc.gpus, tc.nics)
			}
			c, ok := m.Cell(tc.a, tc.b)
			if !ok || c != tc.cell {
				t.Errorf("cell %s-%s = %q (%v), want %s", tc.a, tc.b, c, ok, tc.cell)
			}
			if back, _ := m.Cell(tc.b, tc.a); back != c {
				t.Errorf("matrix not symmetric at %s-%s: %q vs %q", tc.a, tc.b, c, back)
			}
			if tc.firstNIC != "" && m.NICs[0].Name != tc.firstNIC {
				t.Errorf("NIC0 is %q, want %q", m.NICs[0].Name, tc.firstNIC)
			}
			if !strings.Contains(strings.Join(m.Notes, "\n"), tc.noteMatch) {
				t.Errorf("notes %q lack %q", m.Notes, tc.noteMatch)
			}
		})
	}
}

func TestParseTopoAffinity(t *testing.T) {
	m := mustParse(t, "hgx-h20-8gpu-8nic.txt")
	g := m.GPUs[5]
	if g.ID != "GPU5" || g.CPUAffinity != "48-95,144-191" || g.NUMAAffinity != 1 || g.GPUNUMAID != -1 {
		t.Errorf("GPU5 = %+v", g)
	}
	della := mustParse(t, "a100-4gpu-nv3-mlx5.txt")
	if della.GPUs[2].NUMAAffinity != 8 || della.Columns[4] != "mlx5_0" || della.Devices[4] != "NIC0" {
		t.Errorf("della %+v", della)
	}
	old := mustParse(t, "pcie-8gpu-pix-pairs.txt")
	if old.GPUs[0].CPUAffinity != "" || old.GPUs[0].NUMAAffinity != -1 {
		t.Errorf("no affinity columns, yet %+v", old.GPUs[0])
	}
}

func TestNormalizeCell(t *testing.T) {
	for in, want := range map[string]string{" X ": "X", "NV18": "NV18", "NV01": "NV1", "SOC": "SYS", "NODE": "NODE"} {
		if got, err := NormalizeCell(in); err != nil || got != want {
			t.Errorf("NormalizeCell(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "NV", "NV0", "NVx", "FOO", "N/A"} {
		if _, err := NormalizeCell(bad); err == nil {
			t.Errorf("NormalizeCell(%q): want an error", bad)
		}
	}
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
			data, _ := os.ReadFile(filepath.Join("testdata", "topo", tc.file))
			m, err := ParseTopoMatrixString(string(data))
			var le *parse.Error
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not a *parse.Error", err)
			}
			if le.Line != tc.line || !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("error %q, want line %d containing %q", err, tc.line, tc.contains)
			}
			if len(m.GPUs) != tc.gpus {
				t.Errorf("kept %d GPUs, want %d", len(m.GPUs), tc.gpus)
			}
		})
	}
	_, err := ParseTopoMatrixString("hello\nworld\n")
	if !errors.Is(err, parse.ErrFormat) {
		t.Errorf("foreign input: %v, want parse.ErrFormat", err)
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

func FuzzParseTopoMatrix(f *testing.F) {
	for _, in := range golden.Inputs(f, 1, "testdata/topo/*.txt", "testdata/topo/public/*.txt") {
		data, err := os.ReadFile(in)
		if err == nil {
			f.Add(string(data))
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, _ := ParseTopoMatrixString(s)
		if m == nil {
			t.Fatal("nil matrix")
		}
		if len(m.Cells) != len(m.Devices) || len(m.Columns) != len(m.Devices) {
			t.Fatalf("matrix not square: %d devices, %d rows, %d columns", len(m.Devices), len(m.Cells), len(m.Columns))
		}
		for i, row := range m.Cells {
			if len(row) != len(m.Devices) {
				t.Fatalf("row %d has %d cells", i, len(row))
			}
		}
	})
}
