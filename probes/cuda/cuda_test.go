package cuda

import (
	"errors"
	"testing"

	"github.com/commlab/commlab/probes"

	"github.com/commlab/commlab/probes/hwtest"
)

// open returns the CUDA devices, or skips with the reason there are none.
// Any failure other than "unavailable" fails the test.
func open(t *testing.T) *Info {
	t.Helper()
	info, err := Open()
	if errors.Is(err, probes.ErrUnavailable) {
		hwtest.Skipf(t, hwtest.GPU, "no CUDA here: %v", err)
	}
	if err != nil {
		t.Fatalf("Open: %v (an absent driver must wrap probes.ErrUnavailable)", err)
	}
	return info
}

func TestOpen(t *testing.T) {
	info := open(t)
	if len(info.Devices) == 0 || info.Runtime == "" || len(info.SMCounts) != len(info.Devices) {
		t.Fatalf("Open() = %+v", info)
	}
	var r probes.Run
	info.Describe(&r)
	if r.GPUCount != len(info.Devices) || r.GPUModel == "" || r.CUDA == "" {
		t.Errorf("Describe gave %+v", r)
	}
	if len(info.L2Bytes) != len(info.Devices) || info.L2Bytes[0] <= 0 || r.L2Bytes() != info.L2Bytes[0] {
		t.Errorf("L2: info %v, run %d", info.L2Bytes, r.L2Bytes())
	}
}

// Describe records the L2 size without a GPU: Info is plain data. An H200
// reports 62914560 bytes (60 MiB) for cudaDevAttrL2CacheSize (attribute 38
// read through libcudart on the lab's H200, driver 580.159.04, 2026-12-01).
func TestDescribeRecordsL2(t *testing.T) {
	tests := []struct {
		l2      []int64
		setting string
		first   int64
	}{
		{[]int64{62914560, 62914560}, "62914560", 62914560},
		{[]int64{62914560, 52428800}, "62914560,52428800", 62914560},
		{nil, "", 0},
		{[]int64{0}, "", 0},
	}
	for _, tc := range tests {
		info := &Info{Devices: make([]string, len(tc.l2)), Runtime: "13.0", Driver: "13.0", L2Bytes: tc.l2}
		r := probes.Run{Settings: map[string]string{"iters": "10"}}
		info.Describe(&r)
		if got, ok := r.Settings[probes.SettingL2Bytes]; got != tc.setting || ok != (tc.setting != "") || r.L2Bytes() != tc.first {
			t.Errorf("L2 %v: setting %q (set %v), L2Bytes %d; want %q, %d", tc.l2, got, ok, r.L2Bytes(), tc.setting, tc.first)
		}
		if r.Settings["iters"] != "10" {
			t.Errorf("Describe dropped a setting: %v", r.Settings)
		}
	}
	var bare probes.Run // Settings nil: Describe makes the map
	(&Info{L2Bytes: []int64{1 << 20}}).Describe(&bare)
	if bare.L2Bytes() != 1<<20 {
		t.Errorf("nil settings: %v", bare.Settings)
	}
}

func TestUnavailableEverywhere(t *testing.T) {
	// Without a driver every entry point must say so with ErrUnavailable.
	if _, err := Open(); err == nil {
		t.Skip("CUDA present: covered by the hardware tests")
	}
	for name, err := range map[string]error{
		"Init":      func() error { _, err := Init(); return err }(),
		"Bandwidth": func() error { _, err := Bandwidth(BandwidthConfig{}); return err }(),
		"Latency":   func() error { _, err := Latency(LatencyConfig{}); return err }(),
		"MeasureBandwidth": func() error {
			run, err := MeasureBandwidth(BandwidthConfig{})
			if run != nil {
				t.Errorf("MeasureBandwidth without CUDA gave a run: %+v", run)
			}
			return err
		}(),
		"MeasureLatency": func() error {
			run, err := MeasureLatency(LatencyConfig{})
			if run != nil {
				t.Errorf("MeasureLatency without CUDA gave a run: %+v", run)
			}
			return err
		}(),
	} {
		if !errors.Is(err, probes.ErrUnavailable) {
			t.Errorf("%s: %v, want probes.ErrUnavailable", name, err)
		}
	}
}

func TestBandwidthOnGPU(t *testing.T) {
	open(t)
	samples, err := Bandwidth(BandwidthConfig{Sizes: []int64{4096, 1 << 20}, Warmup: 1, Iters: 2, Reps: 3})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range samples {
		seen[s.Op] = true
		if s.Wrong != 0 || s.MedianUS <= 0 || s.AlgBW <= 0 || len(s.TimesUS) != 3 {
			t.Errorf("%s %d->%d %d bytes: %+v", s.Op, s.Src, s.Dst, s.Bytes, s)
		}
	}
	for _, op := range []string{OpH2DPinned, OpD2HPinned, OpH2DPageable, OpD2HPageable, OpD2D} {
		if !seen[op] {
			t.Errorf("no %s sample", op)
		}
	}
}

func TestBandwidthRejectsBadConfig(t *testing.T) {
	open(t)
	for _, cfg := range []BandwidthConfig{
		{Ops: []string{"teleport"}},
		{Sizes: []int64{-1}},
		{Devices: []int{99}},
	} {
		if _, err := Bandwidth(cfg); err == nil {
			t.Errorf("Bandwidth(%+v) succeeded", cfg)
		}
	}
}

func TestLatencyOnGPU(t *testing.T) {
	open(t)
	samples, err := Latency(LatencyConfig{Iters: 20, Reps: 3, GraphKernels: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 6 {
		t.Fatalf("got %d samples, want 6", len(samples))
	}
	for _, s := range samples {
		if s.MedianUS <= 0 || s.MedianUS > 10000 {
			t.Errorf("%s: median %v us", s.Op, s.MedianUS)
		}
	}
}

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{1 << 30: "1GiB", 3 << 20: "3MiB", 4096: "4KiB", 1000: "1000B", 1536: "1536B"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestDriverVersionPattern(t *testing.T) {
	for text, want := range map[string]string{
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue Oct 21 2025": "580.159.04",
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release": "570.86.15",
	} {
		m := driverVersionRE.FindStringSubmatch(text)
		if m == nil || m[1] != want {
			t.Errorf("%q: got %v, want %s", text, m, want)
		}
	}
}
