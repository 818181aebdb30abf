package cells

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/kernel/display"
	"github.com/commlab/commlab/parse/nccltests"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/published"
	"github.com/commlab/commlab/probes/recorded"
)

func TestTopologyRendersAsSVG(t *testing.T) {
	topo, err := published.HGXH200().Topology(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b := display.BundleOf(topo)
	if svg, _ := b.Data[display.MIMESVG].(string); !strings.Contains(svg, "<svg") || !strings.Contains(svg, "GPU7") {
		t.Errorf("no SVG drawing: %.200v", b.Data[display.MIMESVG])
	}
	if text, _ := b.Data[display.MIMEPlain].(string); !strings.Contains(text, "NV18") {
		t.Errorf("text/plain is not the matrix: %.200s", text)
	}
	if text, _ := b.Data[display.MIMEPlain].(string); !strings.Contains(text, "GPU -> NIC") || !strings.Contains(text, "GPU7  NIC7 mlx5_8  PIX") {
		t.Errorf("text/plain lacks the GPU -> NIC section: %s", text)
	}
}

func TestRecordedRunShowsProvenance(t *testing.T) {
	names := recorded.List()
	if len(names) == 0 {
		t.Skip("no recorded runs embedded")
	}
	run, err := recorded.Load(names[0])
	if err != nil {
		t.Fatal(err)
	}
	b := display.BundleOf(run)
	html, _ := b.Data[display.MIMEHTML].(string)
	if !strings.Contains(html, run.Provenance()[:10]) || !strings.Contains(html, "<table>") {
		t.Errorf("run rendering lacks provenance or samples: %.300s", html)
	}
	var _ *probes.Run = run
}

func TestNCCLTestsResultRendersAsChart(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "parse", "nccltests", "testdata", "*.txt"))
	if len(files) == 0 {
		t.Skip("no nccl-tests fixtures")
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := nccltests.Parse(f)
	if res == nil || len(res.Runs) == 0 {
		t.Fatalf("fixture %s did not parse: %v", files[0], err)
	}
	b := display.BundleOf(res)
	if _, ok := b.Data[display.MIMEPNG]; !ok {
		t.Errorf("no chart: keys %v", keys(b.Data))
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
