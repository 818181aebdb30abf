package costmodel

import (
	"errors"
	"testing"
)

func TestSizesLikeNCCLTests(t *testing.T) {
	got := Sizes(8, 128, 2)
	want := []float64{8, 16, 32, 64, 128}
	if len(got) != len(want) {
		t.Fatalf("Sizes = %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Sizes = %v", got)
		}
	}
	if len(Sizes(8, 4, 2)) != 0 || len(Sizes(8, 64, 1)) != 1 || len(Sizes(0, 64, 2)) != 0 {
		t.Error("edge cases")
	}
	if l := LinearSizes(0, 10, 11); len(l) != 11 || l[10] != 10 || l[3] != 3 {
		t.Errorf("LinearSizes = %v", l)
	}
}

func TestParseSweep(t *testing.T) {
	s, err := ParseSweep("8B:8GB")
	if err != nil || s[0] != 8 || len(s) != 31 || s[30] != 8e9 { // 8 x 2^k <= 8e9 for k = 0..29, then MAX
		t.Errorf("8B:8GB: %d sizes, last %v, %v", len(s), s[len(s)-1], err)
	}
	s, err = ParseSweep("1KiB:1MiB:4")
	if err != nil || len(s) != 6 || s[5] != 1<<20 {
		t.Errorf("1KiB:1MiB:4: %v %v", s, err)
	}
	for _, bad := range []string{"8B", "8B:4B", "x:8GB", "8B:8GB:1", "8B:8GB:two", "0B:8B", "1B:1PB:1.0000001"} {
		if _, err := ParseSweep(bad); !errors.Is(err, ErrUnit) {
			t.Errorf("ParseSweep(%q) = %v", bad, err)
		}
	}
}

func TestSweeps(t *testing.T) {
	p := Params{Collective: AllReduce, Algorithm: Ring, Ranks: 8, Alpha: 5e-6, Beta: 25e9}
	rows, err := SweepSizes(p, []float64{64e3, 1e9})
	if err != nil || len(rows) != 2 || rows[0].Bound != "latency" || rows[1].Bound != "bandwidth" || rows[1].Collective != "all_reduce" {
		t.Fatalf("%+v %v", rows, err)
	}
	p.Bytes = 1e9
	rr, err := SweepRanks(p, []int{2, 4, 8})
	if err != nil || len(rr) != 3 || rr[2].Time != rows[1].Time {
		t.Errorf("SweepRanks %+v %v", rr, err)
	}
	pr, err := SweepParam(p, "beta", []float64{25e9, 50e9})
	if err != nil || !near(pr[0].BandwidthTerm, 2*pr[1].BandwidthTerm, 1e-12) {
		t.Errorf("SweepParam %+v %v", pr, err)
	}
	if _, err := SweepParam(p, "gamma", []float64{1}); !errors.Is(err, ErrParams) {
		t.Errorf("unknown parameter: %v", err)
	}
	if _, err := SweepParam(p, "ranks", []float64{0}); !errors.Is(err, ErrParams) {
		t.Errorf("bad value: %v", err)
	}
	algs := SweepAlgorithms(p)
	if len(algs) != 5 { // ring, tree, dbtree, rhd, nvls; hier and collnet need nodes
		t.Errorf("SweepAlgorithms gave %d rows: %+v", len(algs), algs)
	}
	if err := SweepSizesInto(p, []float64{1, 2}, make([]Row, 1)); !errors.Is(err, ErrParams) {
		t.Errorf("short rows: %v", err)
	}
}

func TestSweepMillionAllocatesOnlyRows(t *testing.T) {
	sizes := LinearSizes(1, 1e9, 1000)
	rows := make([]Row, len(sizes))
	p := Params{Collective: AllReduce, Algorithm: Ring, Ranks: 8, Alpha: 5e-6, Beta: 25e9}
	allocs := testing.AllocsPerRun(10, func() {
		if err := SweepSizesInto(p, sizes, rows); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("SweepSizesInto allocates %v times per sweep", allocs)
	}
}

// BenchmarkSweepMillion predicts a ring all_reduce at a million sizes,
// the dense sweep a notebook cell asks for; it must take well under a
// second.
func BenchmarkSweepMillion(b *testing.B) {
	sizes := LinearSizes(8, 8e9, 1_000_000)
	rows := make([]Row, len(sizes))
	p := Params{Collective: AllReduce, Algorithm: Ring, Ranks: 8, Alpha: 5e-6, Beta: 25e9}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := SweepSizesInto(p, sizes, rows); err != nil {
			b.Fatal(err)
		}
	}
}
