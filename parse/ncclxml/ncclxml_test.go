package ncclxml

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/parse"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type goldenOutput struct {
	Document *Document `json:"document"`
	Error    string    `json:"error,omitempty"`
}

func fixtures(t testing.TB) []string { return golden.Inputs(t, 6, "testdata/*.xml") }

func TestParseGolden(t *testing.T) {
	golden.Each(t, fixtures(t), golden.ReplaceExt, func(t *testing.T, data []byte) []byte {
		doc, perr := Parse(bytes.NewReader(data))
		g := goldenOutput{Document: doc}
		if perr != nil {
			g.Error = perr.Error()
		}
		return golden.JSON(t, g, " ")
	})
}

func open(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestTopologyH200(t *testing.T) {
	sys, err := ParseTopology(open(t, "h200_topo_dump.xml"))
	if err != nil {
		t.Fatal(err)
	}
	gpus := sys.GPUs()
	if len(gpus) != 1 || gpus[0].BusID != "0000:00:06.0" || gpus[0].SM != 90 || gpus[0].NUMA != -1 || gpus[0].LinkSpeed != "32.0 GT/s PCIe" {
		t.Errorf("gpus = %+v", gpus)
	}
	nics := sys.NICs()
	if len(nics) != 1 || nics[0].Net.Name != "eth0" || nics[0].Net.Speed != 10000 || nics[0].BusID != "" {
		t.Errorf("nics = %+v", nics)
	}
}

func TestTopologyFileWithoutGPUElements(t *testing.T) {
	tests := []struct {
		file            string
		gpus, nics      int
		firstGPU        string
		firstGPUNUMA    int
		firstGPUPathLen int
	}{
		{"aws_p4d24xl_topo_file.xml", 8, 4, "0000:10:1c.0", 0, 1},
		{"azure_ndv5_topo_file.xml", 8, 8, "0001:00:00.0", 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			sys, err := ParseTopology(open(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			gpus, nics := sys.GPUs(), sys.NICs()
			if len(gpus) != tc.gpus || len(nics) != tc.nics {
				t.Fatalf("gpus %d nics %d", len(gpus), len(nics))
			}
			if gpus[0].BusID != tc.firstGPU || gpus[0].NUMA != tc.firstGPUNUMA || len(gpus[0].Path) != tc.firstGPUPathLen || gpus[0].Dev != -1 {
				t.Errorf("first gpu = %+v", gpus[0])
			}
		})
	}
}

func TestTruncatedKeepsCompleteElements(t *testing.T) {
	sys, err := ParseTopology(open(t, "nccl507_v100_dump_excerpt.xml"))
	var le *parse.Error
	if !errors.Is(err, ErrTruncated) || !errors.As(err, &le) {
		t.Fatalf("err = %v", err)
	}
	gpus := sys.GPUs()
	if len(gpus) != 2 || len(gpus[0].NVLinks) != 6 || len(gpus[1].NVLinks) != 4 || gpus[0].SM != 70 {
		t.Fatalf("gpus = %+v", gpus)
	}
	// Cutting the H200 graph dump anywhere keeps a prefix of its graphs.
	data, err := os.ReadFile("testdata/h200_graph_dump.xml")
	if err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut < len(data); cut += 97 {
		g, err := ParseGraphs(bytes.NewReader(data[:cut]))
		if err == nil {
			t.Fatalf("cut at %d: no error", cut)
		}
		if cut > 250 && len(g.Graphs) == 0 { // past the first <graph> tag
			t.Fatalf("cut at %d: lost the first graph", cut)
		}
	}
}

func TestBadInputs(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"excerpt starting mid-document", "<nvlink target=\"x\"/>\n</gpu>\n", parse.ErrFormat},
		{"foreign root", "<topology version=\"2.0\"><object/></topology>", parse.ErrFormat},
		{"not xml", "hello", parse.ErrFormat},
		{"empty", "", parse.ErrFormat},
		{"broken tag", "<system version=\"1\">\n<cpu numaid=\"0\"\n</system>", ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Parse(strings.NewReader(tc.in)); !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := ParseGraphs(open(t, "h200_topo_dump.xml")); !errors.Is(err, parse.ErrFormat) {
		t.Errorf("topology read as graphs: err = %v", err)
	}
}

func TestGraphsH200(t *testing.T) {
	g, err := ParseGraphs(open(t, "h200_graph_dump.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Graphs) != 5 {
		t.Fatalf("graphs = %d", len(g.Graphs))
	}
	ring := g.Graphs[0]
	if ring.PatternName != "RING" || ring.NChannels != 32 || len(ring.Channels) != 32 || ring.SpeedIntra != 60 || ring.TypeIntra != "LOC" {
		t.Errorf("ring graph = %+v", ring)
	}
	if order := ring.Channels[0].GPUOrder(); len(order) != 1 || order[0] != 0 {
		t.Errorf("channel 0 order = %v", order)
	}
	if g.Graphs[4].PatternName != "NVLS" || g.Graphs[4].NChannels != 0 {
		t.Errorf("graph id 3 = %+v", g.Graphs[4])
	}
}

func FuzzParse(f *testing.F) {
	for _, in := range fixtures(f) {
		if data, err := os.ReadFile(in); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, _ := Parse(bytes.NewReader(data))
		if doc == nil {
			t.Fatal("nil document")
		}
		if doc.System != nil {
			_ = doc.System.GPUs()
			_ = doc.System.NICs()
		}
		if _, err := json.Marshal(doc); err != nil {
			t.Fatalf("document does not encode: %v", err)
		}
	})
}

func TestEdges(t *testing.T) {
	sys, err := ParseTopology(open(t, "h200_topo_dump.xml"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Edge{
		{From: "CPU/-1", To: "GPU/0", Type: "PCI", Count: 1, Speed: "32.0 GT/s PCIe"},
		{From: "CPU/-1", To: "NET/eth0", Type: "NET", Count: 1},
	}
	got := sys.Edges()
	if len(got) != len(want) {
		t.Fatalf("edges = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("edge %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	v100, _ := ParseTopology(open(t, "nccl507_v100_dump_excerpt.xml"))
	nvl := 0
	for _, e := range v100.Edges() {
		if e.Type == "NVL" {
			nvl++
			if e.From != "GPU/0" && e.From != "GPU/1" {
				t.Errorf("nvlink edge from %s", e.From)
			}
		}
	}
	if nvl != 10 {
		t.Errorf("nvlink edges = %d, want 10", nvl)
	}
}
