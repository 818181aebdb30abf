package costmodel_test

import (
	"math"
	"testing"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/recorded"
)

// The custom all-reduce model's recorded defaults are the recordings'
// numbers, rounded: a re-recorded run that moves one fails here.
func TestCustomDefaultsMatchRecordings(t *testing.T) {
	sample := func(run string, match func(probes.Sample) bool) probes.Sample {
		t.Helper()
		r, err := recorded.Load(run)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range r.Samples {
			if match(s) {
				return s
			}
		}
		t.Fatalf("%s: no such sample", run)
		return probes.Sample{}
	}
	at8 := func(label string) func(probes.Sample) bool {
		return func(s probes.Sample) bool { return s.Label == label && s.Bytes == 8 }
	}
	launch := sample("latency-h200x1", func(s probes.Sample) bool { return s.Op == "kernel_launch_host" }).MedianUS
	phase := sample("custom-allreduce-h200x1-ws1", at8("twoshot")).MedianUS - sample("custom-allreduce-h200x1-ws1", at8("oneshot")).MedianUS
	peer := sample("bandwidth-h200x2", func(s probes.Sample) bool { return s.Op == "p2p_read" && s.Bytes == 256<<20 && s.Src == 0 }).AlgBW
	for _, tt := range []struct {
		name, given string
		recorded    float64 // in the default's unit: seconds, or bytes per second one way
		tolerance   float64 // half the default's last digit
	}{
		{"launch", costmodel.DefaultCustomLaunch, launch * 1e-6, 0.005e-6},
		{"phase", costmodel.DefaultCustomPhase, phase * 1e-6, 0.0005e-6},
		{"peer-bw", costmodel.DefaultCustomPeerBW, peer * 1e9, 0.05e9},
	} {
		var got float64
		if tt.name == "peer-bw" {
			bw, err := costmodel.ParseBandwidth(tt.given)
			if err != nil {
				t.Fatal(err)
			}
			got = bw.OneWay()
		} else {
			d, err := costmodel.ParseDuration(tt.given)
			if err != nil {
				t.Fatal(err)
			}
			got = float64(d)
		}
		if math.Abs(got-tt.recorded) > tt.tolerance {
			t.Errorf("%s default %s is not the recording's %g rounded", tt.name, tt.given, tt.recorded)
		}
	}
}
