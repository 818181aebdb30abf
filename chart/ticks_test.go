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
		{formatBytes, 1023, "1023 B"}, {formatBytes, 8064 << 10, "7.875 MiB"},
		{formatBytes, 1024, "1 KiB"},
		{formatBytes, 100000, "97.66 KiB"},
		{formatBytes, 1 << 30, "1 GiB"},
		{formatBytes, 8 << 30, "8 GiB"},
		{formatBytes, 1.5 * (1 << 40), "1.5 TiB"},
		{formatBytesSI, 2e8, "200 MB"},
		{formatBytesSI, 0, "0 B"},
		{formatSeconds, 0, "0 s"},
		{formatSeconds, 5e-9, "5 ns"},
		{formatSeconds, 1e-6, "1 µs"},
		{formatSeconds, 123.4e-6, "123.4 µs"}, {formatSeconds, 4.58752e-6, "4.588 µs"},
		{formatSeconds, 1e-3, "1 ms"},
		{formatSeconds, 0.0476, "47.6 ms"},
		{formatSeconds, 2, "2 s"},
		{formatSeconds, -3e-6, "-3 µs"},
		{formatNumber, 0, "0"},
		{formatNumber, 1234, "1,234"},
		{formatNumber, 338.82, "338.8"},
		{formatNumber, 26.34, "26.34"},
		{formatNumber, 0.25, "0.25"},
		{formatNumber, 2.5e7, "25,000,000"},
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

// fitAxis leaves a margin around the data and labels ticks at or beyond
// both ends of it: a reader can read the first and the last point.
func TestFitAxisCoversData(t *testing.T) {
	for _, tc := range []struct {
		name   string
		spec   Axis
		lo, hi float64
		first  string // the first and last labels
		last   string
	}{
		{"chapter 7 floor: 8 B to 64 MiB", sizeAxis, 8, 64 << 20, "8 B", "128 MiB"},
		{"full nccl-tests sweep", sizeAxis, 8, 8 << 30, "8 B", "8 GiB"},
		{"1 KiB to 64 MiB", sizeAxis, 1 << 10, 64 << 20, "1 KiB", "64 MiB"},
		{"not powers of two", sizeAxis, 1000, 3e6, "512 B", "8 MiB"},
		{"within one power", sizeAxis, 1100, 1900, "", ""},
		{"time, dense", timeAxis, 116e-6, 0.19, "100 µs", "200 ms"},
		{"time, sparse", timeAxis, 164e-9, 0.26, "100 ns", "1 s"},
		{"busbw from zero", busBWAxis, 0, 486, "0", "500"},
		{"residuals a sliver below zero", Axis{Unit: "%"}, -12, 355, "0", "400"},
		{"residuals well below zero", Axis{Unit: "%"}, -40, 355, "-100", "400"},
		{"one value", Axis{}, 5, 5, "4", "6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := plot.New().X
			a.Min, a.Max = tc.lo, tc.hi
			if tc.spec.Log {
				a.Scale = plot.LogScale{}
			}
			fitAxis(&a, tc.spec, fitData)
			if tc.lo != tc.hi && !(a.Min < tc.lo && a.Max > tc.hi) {
				t.Errorf("range %g .. %g leaves no margin around %g .. %g", a.Min, a.Max, tc.lo, tc.hi)
			}
			ticks := a.Tick.Marker.Ticks(a.Min, a.Max)
			var first, last *plot.Tick
			for i := range ticks {
				if ticks[i].Label == "" {
					continue
				}
				if first == nil {
					first = &ticks[i]
				}
				last = &ticks[i]
			}
			if first == nil {
				t.Fatalf("no labelled tick in %g .. %g", a.Min, a.Max)
			}
			// A linear axis may leave a sliver (a quarter step) past its
			// last labels; a log axis labels past both ends.
			sliver := 0.0
			if !tc.spec.Log && last != first {
				sliver = (last.Value - first.Value) / 4 / float64(len(strings.Split(labels(ticks), ", "))-1)
			}
			if first.Value > tc.lo+sliver+1e-9*math.Abs(tc.lo) || last.Value < tc.hi-sliver-1e-9*math.Abs(tc.hi) {
				t.Errorf("labels %q .. %q do not cover the data %g .. %g", first.Label, last.Label, tc.lo, tc.hi)
			}
			if tc.first != "" && (first.Label != tc.first || last.Label != tc.last) {
				t.Errorf("labels %q .. %q, want %q .. %q", first.Label, last.Label, tc.first, tc.last)
			}
			if n := len(strings.Split(labels(ticks), ", ")); n > maxLabels {
				t.Errorf("%d labels: %s", n, labels(ticks))
			}
		})
	}
}
