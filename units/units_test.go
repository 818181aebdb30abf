package units

import (
	"errors"
	"math"
	"testing"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"8", 8, true}, {"1048576", 1 << 20, true}, {"8B", 8, true}, {" 8 B ", 8, true},
		{"4K", 4 << 10, true}, {"4k", 4 << 10, true}, {"1M", 1 << 20, true}, {"1m", 1 << 20, true},
		{"8G", 8 << 30, true}, {"2T", 2 << 40, true}, {"1P", 1 << 50, true},
		{"1KiB", 1 << 10, true}, {"2MiB", 2 << 20, true}, {"1GiB", 1 << 30, true}, {"1TiB", 1 << 40, true},
		{"1MIB", 1 << 20, true}, {"64 KiB", 64 << 10, true},
		{"1KB", 1000, true}, {"64kB", 64000, true}, {"1MB", 1e6, true}, {"8GB", 8e9, true}, {"1TB", 1e12, true},
		{"1.5K", 1536, true}, {"1.5 GB", 1.5e9, true}, {"1e9", 1e9, true}, {"+8", 8, true}, {"0", 0, true},
		{"0.5", 0, false}, {"1.1K", 0, false}, {"-1", 0, false}, {"-1K", 0, false},
		{"", 0, false}, {"lots", 0, false}, {"KB", 0, false}, {"1Gb", 0, false}, {"1kb", 0, false},
		{"1EB", 0, false}, {"1Q", 0, false}, {"1KX", 0, false}, {"1e400", 0, false}, {"1e-400", 0, false},
		{"9223372036854775808", 0, false}, {"8E", 0, false}, {"16P", 16 << 50, true}, {"8192P", 0, false},
		{"1..5", 0, false}, {"NaN", 0, false},
	}
	for _, tc := range tests {
		got, err := ParseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrSize) {
			t.Errorf("ParseSize(%q): %v does not wrap ErrSize", tc.in, err)
		}
	}
	if _, err := ParsePositiveSize("0"); !errors.Is(err, ErrSize) {
		t.Errorf("ParsePositiveSize(0) = %v", err)
	}
}

func TestFormatSize(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0 B"}, {8, "8 B"}, {1000, "1 KB"}, {1024, "1 KiB"}, {1536, "1.5 KiB"}, {256 << 10, "256 KiB"},
		{1 << 20, "1 MiB"}, {1e6, "1 MB"}, {64e3, "64 KB"}, {1000001, "1000001 B"}, {1024000, "1000 KiB"},
		{8e9, "8 GB"}, {1 << 40, "1 TiB"}, {1 << 50, "1 PiB"}, {math.MaxInt64, "9223372036854775807 B"},
		{-2048, "-2 KiB"},
	}
	for _, tc := range tests {
		if got := FormatSize(tc.in); got != tc.want {
			t.Errorf("FormatSize(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFormatScaled(t *testing.T) {
	if got := FormatSI(64e3, "B"); got != "64 KB" {
		t.Errorf("FormatSI = %q", got)
	}
	if got := FormatIEC(1.5*(1<<30), "B"); got != "1.5 GiB" {
		t.Errorf("FormatIEC = %q", got)
	}
	if got := FormatSI(999, "B"); got != "999 B" {
		t.Errorf("FormatSI = %q", got)
	}
	if m, p := ScaleIEC(-2048); m != -2 || p != "Ki" {
		t.Errorf("ScaleIEC(-2048) = %v %q", m, p)
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"25GB/s", 25e9, true}, {"25 GB/s", 25e9, true}, {"25GBps", 25e9, true}, {"25gB/sec", 25e9, true},
		{"400Gb/s", 50e9, true}, {"400Gbps", 50e9, true}, {"20GiB/s", 20 << 30, true}, {"8B/s", 8, true},
		{"25GB", 0, false}, {"25G", 0, false}, {"25", 0, false}, {"GB/s", 0, false}, {"25GT/s", 0, false},
		{"-1GB/s", 0, false}, {"1e300PB/s", 0, false}, {"25G/s", 0, false},
	}
	for _, tc := range tests {
		got, err := ParseRate(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrRate) {
			t.Errorf("ParseRate(%q): %v does not wrap ErrRate", tc.in, err)
		}
	}
	for _, bps := range []float64{25e9, 50e9, 1.5e6, 8} {
		for _, s := range []string{FormatRate(bps), FormatBitRate(bps)} {
			if got, err := ParseRate(s); err != nil || math.Abs(got-bps) > 1e-9*bps {
				t.Errorf("ParseRate(%q) = %v, %v; want %v", s, got, err, bps)
			}
		}
	}
}

func TestSweep(t *testing.T) {
	tests := []struct {
		spec string
		want []int64
	}{
		{"8:64", []int64{8, 16, 32, 64}},
		{"1KB:1GB:1000", []int64{1e3, 1e6, 1e9}},
		{"1KiB:1MiB:4", []int64{1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20}},
		{"1K:5K:2", []int64{1024, 2048, 4096, 5120}},
		{"1KB:1GB:4", []int64{1e3, 4e3, 16e3, 64e3, 256e3, 1024e3, 4096e3, 16384e3, 65536e3, 262144e3, 1e9}},
		{"8,1M,64M", []int64{8, 1 << 20, 64 << 20}},
		{"1M,8", []int64{1 << 20, 8}},
		{"4:4", []int64{4}},
	}
	for _, tc := range tests {
		got, err := ParseSweep(tc.spec)
		if err != nil || !equal(got, tc.want) {
			t.Errorf("ParseSweep(%q) = %v, %v; want %v", tc.spec, got, err, tc.want)
		}
	}
	if s, err := ParseSweep("8B:8GB"); err != nil || len(s) != 31 || s[30] != 8e9 { // 8 x 2^k <= 8e9 for k = 0..29, then 8 GB
		t.Errorf("8B:8GB: %d sizes, %v", len(s), err)
	}
	if s, err := ParseSizeList("1M"); err != nil || !equal(s, []int64{1 << 20}) {
		t.Errorf("ParseSizeList(1M) = %v, %v", s, err)
	}
	if s, err := Sweep(1, math.MaxInt64, 2); err != nil || len(s) != 63 {
		t.Errorf("Sweep to MaxInt64: %d sizes, %v", len(s), err)
	}
	for _, bad := range []string{"8", "8:4", "x:8", "8:8G:1", "8:8G:two", "8:8G:1.5", "0:8", "1:2:3:4", "8,0", "8,,16", "8,zz"} {
		if _, err := ParseSweep(bad); !errors.Is(err, ErrSize) {
			t.Errorf("ParseSweep(%q) = %v; want ErrSize", bad, err)
		}
	}
}

func TestBusBWFactor(t *testing.T) {
	tests := []struct {
		coll string
		n    int
		want float64
	}{
		{"all_reduce", 8, 1.75}, {"AllReduce", 2, 1}, {"all_gather", 4, 0.75}, {"reduce_scatter", 8, 0.875},
		{"alltoall", 16, 15.0 / 16}, {"all_to_all", 4, 0.75}, {"gather", 4, 0.75}, {"scatter", 4, 0.75},
		{"broadcast", 8, 1}, {"reduce", 8, 1}, {"sendrecv", 2, 1}, {"send_recv", 2, 1}, {"hypercube", 8, 1},
		{"all_reduce", 1, 0},
	}
	for _, tc := range tests {
		got, err := BusBWFactor(tc.coll, tc.n)
		if err != nil || got != tc.want {
			t.Errorf("BusBWFactor(%q, %d) = %v, %v; want %v", tc.coll, tc.n, got, err, tc.want)
		}
	}
	if _, err := BusBWFactor("gossip", 8); !errors.Is(err, ErrCollective) {
		t.Errorf("unknown collective: %v", err)
	}
	if _, err := BusBWFactor("all_reduce", 0); err == nil {
		t.Error("zero ranks accepted")
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"8", "8B", "1M", "1MB", "1MiB", "1.5K", "1e9", " 64 kB ", "-1", "0.5", "1e-30", "9223372036854775807", "1Gb", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSize(s)
		if err != nil {
			if !errors.Is(err, ErrSize) {
				t.Fatalf("ParseSize(%q): %v does not wrap ErrSize", s, err)
			}
			return
		}
		if v < 0 {
			t.Fatalf("ParseSize(%q) = %d < 0", s, v)
		}
		back, err := ParseSize(FormatSize(v))
		if err != nil || back != v {
			t.Fatalf("ParseSize(FormatSize(%d) = %q) = %d, %v", v, FormatSize(v), back, err)
		}
	})
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"5us", 5e-6, true}, {"5 µs", 5e-6, true}, {"1.2ms", 1.2e-3, true}, {"800ns", 800e-9, true}, {"2s", 2, true},
		{"5", 0, false}, {"5m", 0, false}, {"-5us", 0, false},
	}
	for _, tc := range tests {
		got, err := ParseDuration(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrDuration) {
			t.Errorf("ParseDuration(%q): %v does not wrap ErrDuration", tc.in, err)
		}
	}
	if m, u := ScaleSeconds(5e-6); m != 5 || u != "µs" {
		t.Errorf("ScaleSeconds(5e-6) = %v %s", m, u)
	}
}
