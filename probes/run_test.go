package probes

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSampleSetTimes(t *testing.T) {
	tests := []struct {
		times                 []float64
		bytes                 int64
		median, min, max, alg float64
	}{
		{[]float64{3, 1, 2}, 2000, 2, 1, 3, 1},
		{[]float64{4, 1, 2, 3}, 2500, 2.5, 1, 4, 1},
		{[]float64{10}, 0, 10, 10, 10, 0},
		{nil, 100, 0, 0, 0, 0},
	}
	for _, tc := range tests {
		s := Sample{Bytes: tc.bytes, AlgBW: 99}
		s.SetTimes(tc.times)
		if s.MedianUS != tc.median || s.MinUS != tc.min || s.MaxUS != tc.max || s.AlgBW != tc.alg {
			t.Errorf("SetTimes(%v) with %d bytes: median %v min %v max %v algbw %v", tc.times, tc.bytes, s.MedianUS, s.MinUS, s.MaxUS, s.AlgBW)
		}
	}
	s := Sample{}
	s.SetTimes([]float64{1, 2, 3})
	if got := s.SpreadPct(); got != 100 {
		t.Errorf("SpreadPct = %v, want 100", got)
	}
}

func testRun() *Run {
	r := &Run{Kind: "nccl", Command: []string{"commlab", "probe", "nccl"}, Env: map[string]string{"NCCL_PROTO": "LL"},
		Date: time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC), GPUModel: "NVIDIA H200", GPUCount: 2,
		Driver: "580.159.04", CUDA: "13.0", NCCL: "2.28.9", Logs: map[string]string{"nccl-debug": "NCCL INFO ..."}}
	r.Samples = []Sample{{Op: "all_reduce", Bytes: 8, Src: -1, Dst: -1, Wrong: 0}, {Op: "all_gather", Bytes: 8, Src: -1, Dst: -1, Label: "x"}}
	return r
}

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	r := testRun()
	if err := r.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadRun(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Provenance() != r.Provenance() || len(got.Samples) != 2 || got.Env["NCCL_PROTO"] != "LL" || got.Logs["nccl-debug"] == "" {
		t.Errorf("round trip changed the run: %+v", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("Save left temporary files: %v", entries)
	}
}

func TestLoadRunErrors(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"notjson.json": "nccl-tests output", "notrun.json": `{"samples": []}`, "cut.json": `{"kind": "nccl", "samples": [`} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := LoadRun(p); err == nil || !strings.HasPrefix(err.Error(), "probes: ") {
			t.Errorf("LoadRun(%s) = %v, want a probes: error", name, err)
		}
	}
	if _, err := LoadRun(filepath.Join(dir, "absent.json")); err == nil {
		t.Error("LoadRun of a missing file succeeded")
	}
	if err := testRun().Save(filepath.Join(dir, "no", "such", "dir.json")); err == nil {
		t.Error("Save into a missing folder succeeded")
	}
}

func TestSelect(t *testing.T) {
	r := testRun()
	if n := len(r.Select("all_reduce", "")); n != 1 {
		t.Errorf("Select(all_reduce) = %d samples", n)
	}
	if n := len(r.Select("all_gather", "y")); n != 0 {
		t.Errorf("Select(all_gather, y) = %d samples", n)
	}
}

func ExampleRun_Provenance() {
	r := testRun()
	fmt.Println(r.Provenance())
	// Output: 2x NVIDIA H200, driver 580.159.04, CUDA 13.0, NCCL 2.28.9, 2026-11-29, command ["commlab" "probe" "nccl"]
}

// Runs recorded before the L2 size was kept read 0; bad values read 0.
func TestRunL2Bytes(t *testing.T) {
	for setting, want := range map[string]int64{"": 0, "62914560": 62914560, "62914560,52428800": 62914560, " 1024 ": 1024, "x": 0, "-5": 0} {
		r := Run{Settings: map[string]string{}}
		if setting != "" {
			r.Settings[SettingL2Bytes] = setting
		}
		if got := r.L2Bytes(); got != want {
			t.Errorf("%q: %d, want %d", setting, got, want)
		}
	}
	if got := (&Run{}).L2Bytes(); got != 0 {
		t.Errorf("nil settings: %d", got)
	}
}

// MedianSeconds takes the first out-of-place sample that matches; PeakRate
// the highest algorithm bandwidth.
func TestMedianSecondsAndPeakRate(t *testing.T) {
	r := &Run{Samples: []Sample{
		{Op: "all_reduce", Bytes: 8, MedianUS: 10, InPlace: true, AlgBW: 1},
		{Op: "all_reduce", Bytes: 8, MedianUS: 12, AlgBW: 3},
		{Op: "all_reduce", Bytes: 16, MedianUS: 14, AlgBW: 2},
		{Op: "p2p_read", Label: "x", Bytes: 8, MedianUS: 2, AlgBW: 9},
	}}
	for _, tc := range []struct {
		op, label string
		bytes     int64
		want      float64
		ok        bool
	}{
		{"all_reduce", "", 8, 12e-6, true},
		{"all_reduce", "", 16, 14e-6, true},
		{"all_reduce", "", -1, 12e-6, true},
		{"all_reduce", "", 32, 0, false},
		{"p2p_read", "x", -1, 2e-6, true},
		{"p2p_read", "y", -1, 0, false},
	} {
		got, ok := r.MedianSeconds(tc.op, tc.label, tc.bytes)
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("MedianSeconds(%q, %q, %d) = %g, %v; want %g, %v", tc.op, tc.label, tc.bytes, got, ok, tc.want, tc.ok)
		}
	}
	if got := r.PeakRate("all_reduce", ""); got != 3e9 {
		t.Errorf("PeakRate(all_reduce) = %g, want 3e9", got)
	}
	if got := r.OutOfPlace("all_reduce", 8); len(got) != 1 || got[0].MedianUS != 12 {
		t.Errorf("OutOfPlace(all_reduce, 8) = %+v, want the out-of-place 8 B sample", got)
	}
	if got := r.OutOfPlace("all_reduce", 1<<20); len(got) != 2 {
		t.Errorf("OutOfPlace(all_reduce, 1 MiB) = %d samples, want 2", len(got))
	}
	if s, ok := r.At("all_reduce", "", 8); !ok || !s.InPlace {
		t.Errorf("At(all_reduce, 8) = %+v, %v; want the first, in-place sample", s, ok)
	}
	if _, ok := r.At("all_reduce", "", 32); ok {
		t.Errorf("At(all_reduce, 32) found a sample the run lacks")
	}
	if got := r.PeakRate("send", ""); got != 0 {
		t.Errorf("PeakRate(send) = %g, want 0", got)
	}
}
