package doctor

import (
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/torchtrace"
	"github.com/commlab/commlab/probes/recorded"
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

func TestTraceOverlapRecorded(t *testing.T) {
	for variant, want := range map[string]Status{"overlap": OK, "sync": Warn} {
		f, err := recorded.Files().Open("torch-overlap-h200x1/variants-allreduce-avg/trace-" + variant + ".json.gz")
		if err != nil {
			t.Fatal(err)
		}
		v, err := TraceOverlap(f, variant)
		f.Close()
		if err != nil || v.Status != want {
			t.Errorf("%s: %v, %v; want %v", variant, v, err, want)
		}
	}
	if _, err := TraceOverlap(strings.NewReader("{not json"), "broken"); err == nil {
		t.Error("a broken trace gave a verdict")
	}
}

func TestCheckCurvesRecorded(t *testing.T) {
	ev, err := Recorded("h200x2")
	if err != nil {
		t.Fatal(err)
	}
	vs := CheckCurves(ev)
	if len(vs) == 0 {
		t.Fatal("no curve verdicts on the recorded 2xH200 sweep")
	}
	for _, v := range vs {
		if v.Layer != LayerCollective || v.Status == Fail {
			t.Errorf("verdict %v", v)
		}
	}
	if vs := CheckCurves(&Evidence{}); vs != nil {
		t.Errorf("no curve, yet verdicts %v", vs)
	}
}
