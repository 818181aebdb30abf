package costmodel

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestStepOverlap(t *testing.T) {
	for _, tc := range []struct {
		name                          string
		compute, comm, fraction       float64
		step, hidden, exposed, serial float64
		bound                         string
	}{
		{"full overlap, compute-bound", 4e-3, 1e-3, 1, 4e-3, 1e-3, 0, 5e-3, "compute"},
		{"full overlap, comm-bound", 1e-3, 3e-3, 1, 3e-3, 1e-3, 2e-3, 4e-3, "comm"},
		{"none", 4e-3, 1e-3, 0, 5e-3, 0, 1e-3, 5e-3, "compute"},
		{"half", 4e-3, 2e-3, 0.5, 5e-3, 1e-3, 1e-3, 6e-3, "compute"},
		{"nothing to hide", 4e-3, 0, 1, 4e-3, 0, 0, 4e-3, "compute"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := StepOverlap(tc.compute, tc.comm, tc.fraction)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range [][2]float64{{o.Step, tc.step}, {o.Hidden, tc.hidden}, {o.Exposed, tc.exposed}, {o.Serial, tc.serial}} {
				if math.Abs(c[0]-c[1]) > 1e-12 {
					t.Errorf("got %+v", o)
					break
				}
			}
			if o.Bound != tc.bound || o.Overlapped != math.Max(tc.compute, tc.comm) {
				t.Errorf("bound %s overlapped %g", o.Bound, o.Overlapped)
			}
		})
	}
	for _, bad := range [][3]float64{{-1, 1, 1}, {1, math.NaN(), 1}, {1, 1, 1.5}, {math.Inf(1), 1, 0}} {
		if _, err := StepOverlap(bad[0], bad[1], bad[2]); !errors.Is(err, ErrParams) {
			t.Errorf("StepOverlap%v: err %v", bad, err)
		}
	}
}

func ringParams() Params {
	return Params{Collective: AllReduce, Algorithm: Ring, Ranks: 8, Alpha: 5e-6, Beta: 25e9}
}

func TestBucketsCountsLatencyTerms(t *testing.T) {
	// 100 MiB in 25 MiB buckets: 4 all_reduces of 14 steps each on 8 ranks.
	b, err := Buckets(ringParams(), 100*(1<<20), DDPBucketBytes, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b.Buckets != 4 || b.LatencyTerms != 4*14 {
		t.Fatalf("%+v", b)
	}
	one, _ := Predict(Params{Collective: AllReduce, Algorithm: Ring, Ranks: 8, Alpha: 5e-6, Beta: 25e9, Bytes: 25 * (1 << 20)})
	if math.Abs(b.Comm-4*one.Time) > 1e-12 || b.Step != b.Comm || b.Exposed != b.Comm {
		t.Errorf("comm %g, want %g; step %g exposed %g", b.Comm, 4*one.Time, b.Step, b.Exposed)
	}
	// The bandwidth term does not depend on the cut; the latency term does.
	per, _ := Buckets(ringParams(), 100*(1<<20), 1<<20, 0, 0)
	if per.Buckets != 100 || math.Abs(per.BandwidthTerm-b.BandwidthTerm) > 1e-12 || per.LatencyTerm <= b.LatencyTerm {
		t.Errorf("1 MiB buckets %+v vs 25 MiB %+v", per, b)
	}
}

func TestBucketsFirstBucketAndRemainder(t *testing.T) {
	b, err := Buckets(ringParams(), 60*(1<<20), DDPBucketBytes, DDPFirstBucketBytes, 0)
	if err != nil {
		t.Fatal(err)
	}
	// 1 MiB, then 25, 25, and the 9 MiB left.
	if b.Buckets != 4 {
		t.Errorf("buckets %d, want 4", b.Buckets)
	}
	// The text names the cut, not "4 buckets of 25 MiB".
	if got := b.String(); !strings.HasPrefix(got, "60 MiB in 4 buckets (1 MiB + 2 x 25 MiB + 9 MiB): ") {
		t.Errorf("String() = %q", got)
	}
	exact, _ := Buckets(ringParams(), 51*(1<<20), DDPBucketBytes, DDPFirstBucketBytes, 0)
	if got := exact.String(); !strings.HasPrefix(got, "51 MiB in 3 buckets (1 MiB + 2 x 25 MiB): ") {
		t.Errorf("String() = %q", got)
	}
}

func TestBucketsOverlapBackward(t *testing.T) {
	// Backward long enough to hide all but the last bucket.
	p := ringParams()
	b, err := Buckets(p, 100*(1<<20), DDPBucketBytes, 0, 50e-3)
	if err != nil {
		t.Fatal(err)
	}
	last, _ := Predict(Params{Collective: AllReduce, Algorithm: Ring, Ranks: 8, Alpha: 5e-6, Beta: 25e9, Bytes: 25 * (1 << 20)})
	if math.Abs(b.Exposed-last.Time) > 1e-9 {
		t.Errorf("exposed %g, want the last bucket's %g", b.Exposed, last.Time)
	}
	// One bucket of everything: nothing overlaps.
	whole, _ := Buckets(p, 100*(1<<20), 100*(1<<20), 0, 50e-3)
	if math.Abs(whole.Exposed-whole.Comm) > 1e-12 || whole.Buckets != 1 {
		t.Errorf("one bucket %+v", whole)
	}
	if _, err := Buckets(p, 0, 1, 0, 0); !errors.Is(err, ErrParams) {
		t.Errorf("zero gradients: %v", err)
	}
	if _, err := Buckets(p, 1e12, 1, 0, 0); !errors.Is(err, ErrParams) {
		t.Errorf("a trillion buckets: %v", err)
	}
}

func TestBucketSweep(t *testing.T) {
	rows, err := BucketSweep(ringParams(), 1e9, []float64{1 << 20, DDPBucketBytes, 1e9}, 100e-3)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || !(rows[0].LatencyTerms > rows[1].LatencyTerms && rows[1].LatencyTerms > rows[2].LatencyTerms) {
		t.Errorf("%+v", rows)
	}
}
