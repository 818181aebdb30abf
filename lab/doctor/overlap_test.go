package doctor

import (
	"testing"

	"github.com/commlab/commlab/probes/parse/torchtrace"
)

func TestCheckOverlap(t *testing.T) {
	for _, tc := range []struct {
		name string
		an   *torchtrace.Analysis
		want Status
	}{
		{"no trace", nil, Skipped},
		{"no communication", &torchtrace.Analysis{SpanUS: 1000, ComputeUS: 900}, Skipped},
		{"overlapped", &torchtrace.Analysis{SpanUS: 3000, CommUS: 1500, CommUnderComputeUS: 1320, CommAloneUS: 180, OverlapFraction: 0.88}, OK},
		{"serialised", &torchtrace.Analysis{SpanUS: 3700, CommUS: 1500, CommAloneUS: 1500}, Warn},
		{"little exposed", &torchtrace.Analysis{SpanUS: 100000, CommUS: 2000, CommAloneUS: 2000}, OK},
	} {
		if got := CheckOverlap(tc.an, tc.name); got.Status != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
