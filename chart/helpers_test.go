package chart

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/commlab/commlab/costmodel"
)

// sweep is the recorded nccl-tests all_reduce of testdata/SOURCES.md.
type sweep struct {
	sizes, times, busbw []float64
}

func loadSweep(t testing.TB) sweep {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "allreduce_h100_2node_a3mega.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var s sweep
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 3 {
			t.Fatalf("bad line %q", line)
		}
		var v [3]float64
		for i := range fs {
			if v[i], err = strconv.ParseFloat(fs[i], 64); err != nil {
				t.Fatal(err)
			}
		}
		s.sizes = append(s.sizes, v[0])
		s.times = append(s.times, v[1]*1e-6)
		s.busbw = append(s.busbw, v[2])
	}
	if len(s.sizes) != 31 {
		t.Fatalf("sweep has %d rows, want 31", len(s.sizes))
	}
	return s
}

// loadP2P reads the nvbandwidth matrix of testdata/SOURCES.md.
func loadP2P(t testing.TB) Matrix {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "p2p_a6000_6gpu_nvbandwidth.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	m := Matrix{Unit: "GB/s", RowTitle: "Source GPU", ColTitle: "Destination GPU"}
	for _, c := range strings.Fields(lines[1]) {
		m.Cols = append(m.Cols, "GPU"+c)
	}
	for _, l := range lines[2:] {
		fs := strings.Fields(l)
		m.Rows = append(m.Rows, "GPU"+fs[0])
		var row []float64
		for _, c := range fs[1:] {
			v := math.NaN()
			if c != "N/A" {
				if v, err = strconv.ParseFloat(c, 64); err != nil {
					t.Fatal(err)
				}
			}
			row = append(row, v)
		}
		m.Values = append(m.Values, row)
	}
	return m
}

// Model parameters for the recorded 2-node H100 sweep: alpha and beta are
// read off that sweep (the flat ~123 us floor, the ~340 GB/s busbw plateau
// at 8 GiB: beta such that the ring's 2(n-1)/n bus factor gives it); they
// are fitted by eye for drawing, not published constants.
const (
	h100Alpha = 123e-6 / 30 // ring all_reduce has 2(n-1) = 30 alpha steps
	h100Beta  = 340e9
	h100Ranks = 16
)

func modelRows(t testing.TB, sizes []float64) []costmodel.Row {
	t.Helper()
	rows, err := costmodel.SweepSizes(costmodel.Params{
		Collective: costmodel.AllReduce, Algorithm: costmodel.Ring,
		Ranks: h100Ranks, Alpha: h100Alpha, Beta: h100Beta,
	}, sizes)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
