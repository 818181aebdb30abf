package chart

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func TestFormatters(t *testing.T) {
	for _, tc := range []struct {
		f    func(float64) string
		in   float64
		want string
	}{
		{formatBytes, 8, "8 B"},
		{formatBytes, 1023, "1023 B"},
		{formatBytes, 1024, "1 KiB"},
		{formatBytes, 100000, "97.7 KiB"},
		{formatBytes, 1 << 30, "1 GiB"},
		{formatBytes, 8 << 30, "8 GiB"},
		{formatBytes, 1.5 * (1 << 40), "1.5 TiB"},
		{formatBytesSI, 2e8, "200 MB"},
		{formatBytesSI, 0, "0 B"},
		{formatSeconds, 0, "0 s"},
		{formatSeconds, 5e-9, "5 ns"},
		{formatSeconds, 1e-6, "1 µs"},
		{formatSeconds, 123.4e-6, "123 µs"},
		{formatSeconds, 1e-3, "1 ms"},
		{formatSeconds, 0.0476, "47.6 ms"},
		{formatSeconds, 2, "2 s"},
		{formatSeconds, -3e-6, "-3 µs"},
		{formatNumber, 0, "0"},
		{formatNumber, 1234, "1234"},
		{formatNumber, 338.82, "339"},
		{formatNumber, 26.34, "26.3"},
		{formatNumber, 0.25, "0.25"},
		{formatNumber, 2.5e7, "2.5e+07"},
		{formatCell, 338.82, "339"},
		{formatCell, 26.345, "26.3"},
		{formatCell, 0.4, "0.40"},
	} {
		if got := tc.f(tc.in); got != tc.want {
			t.Errorf("format(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func labels(ticks []plot.Tick) string {
	var ls []string
	for _, t := range ticks {
		if t.Label != "" {
			ls = append(ls, t.Label)
		}
	}
	return strings.Join(ls, ", ")
}

func TestPowerOfTwoTicks(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     string
	}{
		// A full nccl-tests sweep, -b 8 -e 8G.
		{8, 8 << 30, "8 B, 64 B, 512 B, 4 KiB, 32 KiB, 256 KiB, 2 MiB, 16 MiB, 128 MiB, 1 GiB, 8 GiB"},
		{1 << 10, 1 << 20, "1 KiB, 2 KiB, 4 KiB, 8 KiB, 16 KiB, 32 KiB, 64 KiB, 128 KiB, 256 KiB, 512 KiB, 1 MiB"},
		{1000, 5000, "1 KiB, 2 KiB, 4 KiB"},
		{0, 10, ""},
		{10, 10, ""},
	} {
		if got := labels(powerOfTwoTicks(tc.min, tc.max)); got != tc.want {
			t.Errorf("powerOfTwoTicks(%g, %g) = %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
	// Narrower than one power of two: linear ticks, still in bytes.
	if got := labels(powerOfTwoTicks(1100, 1900)); !strings.Contains(got, "KiB") {
		t.Errorf("narrow range labels = %q, want KiB labels", got)
	}
}

func TestDecadeTicks(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     string
	}{
		{1e-6, 1, "1 µs, 10 µs, 100 µs, 1 ms, 10 ms, 100 ms, 1 s"},
		{116e-6, 0.19, "200 µs, 500 µs, 1 ms, 2 ms, 5 ms, 10 ms, 20 ms, 50 ms, 100 ms"},
		{2e-6, 3e-6, "2 µs, 3 µs"},
		{-1, 1, ""},
	} {
		if got := labels(decadeTicks(tc.min, tc.max, formatSeconds)); got != tc.want {
			t.Errorf("decadeTicks(%g, %g) = %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
}

func TestNiceTicks(t *testing.T) {
	if got := labels(niceTicks(0, 26.4, 5, formatNumber)); got != "0, 10, 20" {
		t.Errorf("niceTicks(0, 26.4) = %q", got)
	}
	if got := labels(niceTicks(0, 450, 5, formatNumber)); got != "0, 100, 200, 300, 400" {
		t.Errorf("niceTicks(0, 450) = %q", got)
	}
	if niceTicks(1, 1, 5, formatNumber) != nil || niceTicks(math.NaN(), 1, 5, formatNumber) != nil {
		t.Error("niceTicks of an empty range should be nil")
	}
}
