package cells

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/kernel/display"
	"github.com/commlab/commlab/parse/flightrec"
	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/parse/nccltests"
	"github.com/commlab/commlab/parse/nvbandwidth"
	"github.com/commlab/commlab/parse/nvidiasmi"
	"github.com/commlab/commlab/parse/perftest"
	"github.com/commlab/commlab/probes/measure"
	"github.com/commlab/commlab/probes/published"
	"github.com/commlab/commlab/probes/recorded"
)

// rawFloat is what a value printed with %v leaks: 7.000000000000001e-05,
// 1.4271442842871412e+10, 81.29999999.
var rawFloat = regexp.MustCompile(`\d\.\d{7,}|\de[+-]\d\d`)

// unitWord is any unit the renderings print.
var unitWord = regexp.MustCompile(`\d (ns|us|ms|s|B|KB|MB|GB|KiB|MiB|GiB|GB/s|MB/s|B/s)\b|\d+(\.\d+)?%|NV\d+|GB/s|\bus\b`)

func open(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("..", path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// domainValues are one value of every domain type issue 12 lists, built
// from presets, fakes and the parsers' fixtures.
func domainValues(t *testing.T) map[string]any {
	node, err := costmodel.NodeByName("hgx-h200")
	if err != nil {
		t.Fatal(err)
	}
	p := node.Params(costmodel.AllReduce, costmodel.Ring, 1, 1e9)
	cost, err := costmodel.Predict(p)
	if err != nil {
		t.Fatal(err)
	}
	sweep, err := costmodel.SweepSizes(p, []float64{1 << 10, 1 << 20, 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	table, err := costmodel.Tune(costmodel.NCCLTopology(node, 1, ""))
	if err != nil {
		t.Fatal(err)
	}
	choice, err := table.Pick(costmodel.AllReduce, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	topo, err := published.HGXH200().Topology(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	run, err := recorded.Load(recorded.List()[0])
	if err != nil {
		t.Fatal(err)
	}
	tests, err := nccltests.Parse(open(t, "parse/nccltests/testdata/allreduce_h200_1gpu_2.17.6.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lg, err := nccllog.Parse(open(t, "parse/nccllog/testdata/nccl1412_2node_h100_rings_trees_excerpt.log"))
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join("..", "parse/nvidiasmi/testdata/topo/a100-4gpu-nv3-mlx5.txt"))
	if err != nil {
		t.Fatal(err)
	}
	matrix, err := nvidiasmi.ParseTopoMatrixString(string(text))
	if err != nil {
		t.Fatal(err)
	}
	nvb, err := nvbandwidth.Parse(open(t, "parse/nvbandwidth/testdata/text_v0.8_h200_1gpu.txt"))
	if err != nil {
		t.Fatal(err)
	}
	perf, err := perftest.Parse(open(t, "parse/perftest/testdata/atomic_bw_mb_pib_issue4.txt"))
	if err != nil {
		t.Fatal(err)
	}
	measured, err := measure.Recorded("nccl-h200x2-proto-auto")
	if err != nil {
		t.Fatal(err)
	}
	dump, err := flightrec.LoadDump(filepath.Join("..", "parse/flightrec/testdata/h200/flight-recorder-rank0.pickle"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{
		"costmodel.Cost":          cost,
		"costmodel.Row":           costmodel.RowOf(cost),
		"costmodel sweep []Row":   sweep,
		"costmodel.TunerChoice":   choice,
		"costmodel.TunerTable":    table,
		"costmodel.Link":          node.Intra,
		"costmodel.Node":          node,
		"probes.Topology":         topo,
		"probes.NICPathTable":     topo.NICPaths(0),
		"probes.Run":              run,
		"probes.Sample":           run.Samples[0],
		"measure.Measurement":     measured,
		"nccltests.Result":        tests,
		"nccltests.Run":           tests.Runs[0],
		"nccltests rows []Row":    tests.Runs[0].Rows,
		"nccllog.Log":             lg,
		"nccllog rings []Ring":    lg.Rings,
		"nccllog trees []Tree":    lg.Trees,
		"nvidiasmi.TopoMatrix":    matrix,
		"nvbandwidth.Report":      nvb,
		"perftest.Report":         perf,
		"flightrec.Analysis":      flightrec.Analyze([]*flightrec.Dump{dump}),
		"from matrix to drawing":  matrix.Topology(),
		"from run to chart input": tests.Runs[0],
	}
}

// unitless are the values with no quantity to print: ranks, channels,
// sequence numbers, and the tuning table in NCCL's own layout.
var unitless = map[string]bool{"nccllog.Log": true, "nccllog rings []Ring": true, "nccllog trees []Tree": true,
	"flightrec.Analysis": true, "costmodel.TunerTable": true}

// TestEveryDomainTypeRenders holds the package's rule: each domain value
// shows richly (an HTML table or summary, or a drawing) with a text/plain
// form, both with units and none with raw float64s or "[N items]".
func TestEveryDomainTypeRenders(t *testing.T) {
	for name, v := range domainValues(t) {
		b := display.BundleOf(v)
		h, _ := b.Data[display.MIMEHTML].(string)
		svg, _ := b.Data[display.MIMESVG].(string)
		plain, _ := b.Data[display.MIMEPlain].(string)
		if h == "" && svg == "" {
			t.Errorf("%s: no text/html nor drawing: keys %v", name, keys(b.Data))
		}
		if plain == "" || strings.HasPrefix(plain, "{") || strings.HasPrefix(plain, "&{") {
			t.Errorf("%s: text/plain is a bare struct: %.200s", name, plain)
		}
		for mime, s := range map[string]string{"text/html": h, "text/plain": plain} {
			if m := rawFloat.FindString(s); m != "" {
				t.Errorf("%s: %s shows a raw float %q: %.300s", name, mime, m, s)
			}
			if strings.Contains(s, " items]") {
				t.Errorf("%s: %s counts items instead of showing them: %.300s", name, mime, s)
			}
		}
		if !unitless[name] && !unitWord.MatchString(plain) {
			t.Errorf("%s: text/plain has no unit: %.300s", name, plain)
		}
	}
}

// TestDomainGoldens keeps a few representative renderings as a person sees
// them (go test -update rewrites them).
func TestDomainGoldens(t *testing.T) {
	values := domainValues(t)
	for _, name := range []string{"costmodel.Cost", "costmodel.TunerChoice", "costmodel sweep []Row", "nvidiasmi.TopoMatrix", "nccllog rings []Ring", "probes.Sample", "probes.NICPathTable"} {
		b := display.BundleOf(values[name])
		var got bytes.Buffer
		got.WriteString("== text/plain\n" + b.Data[display.MIMEPlain].(string) + "\n== text/html\n")
		got.WriteString(strings.ReplaceAll(b.Data[display.MIMEHTML].(string), "<tr>", "\n<tr>") + "\n")
		golden.Check(t, filepath.Join("testdata", strings.NewReplacer(" ", "_", "[]", "", ".", "_").Replace(name)+".golden"), got.Bytes())
	}
}
