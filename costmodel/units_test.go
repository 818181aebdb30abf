package costmodel

import (
	"bufio"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  bool
	}{
		{"8B", 8, false},
		{"8", 8, false},
		{"1e9", 1e9, false},
		{"64KiB", 65536, false},
		{"64KB", 64000, false},
		{"64kB", 64000, false},
		{"1GB", 1e9, false},
		{"1GiB", 1 << 30, false},
		{"1.5 GB", 1.5e9, false},
		{" 2TiB ", 2 << 40, false},
		{"25G", 25 << 30, false}, // a bare prefix is binary, as nccl-tests reads it
		{"1Gb", 0, true},         // bits are not a size
		{"-1B", 0, true},         // negative
		{"1EB", 0, true},         // exa not supported
		{"NaN", 0, true},         // not a number
		{"", 0, true},            // empty
		{"1e400B", 0, true},      // overflow
		{"KB", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if tt.err {
			if err == nil || !errors.Is(err, ErrUnit) {
				t.Errorf("ParseSize(%q) = %v, %v; want ErrUnit", tt.in, got, err)
			}
			continue
		}
		if err != nil || float64(got) != tt.want {
			t.Errorf("ParseSize(%q) = %v, %v; want %v", tt.in, float64(got), err, tt.want)
		}
	}
}

func TestParseSizeErrorsExplain(t *testing.T) {
	_, err := ParseSize("25Q")
	if err == nil || !strings.Contains(err.Error(), "unknown unit") || !strings.HasPrefix(err.Error(), "units: ") {
		t.Errorf("25Q: %v", err)
	}
	_, err = ParseSize("1Gb")
	if err == nil || !strings.Contains(err.Error(), "1GB") {
		t.Errorf("1Gb should suggest 1GB: %v", err)
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  bool
	}{
		{"5us", 5e-6, false},
		{"5 µs", 5e-6, false},
		{"1.2ms", 1.2e-3, false},
		{"800ns", 800e-9, false},
		{"2s", 2, false},
		{"5", 0, true},
		{"5m", 0, true},
		{"-5us", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if tt.err {
			if !errors.Is(err, ErrUnit) {
				t.Errorf("ParseDuration(%q) = %v, %v; want ErrUnit", tt.in, got, err)
			}
			continue
		}
		if err != nil || math.Abs(float64(got)-tt.want) > 1e-15 {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tt.in, float64(got), err, tt.want)
		}
	}
}

func TestParseBandwidth(t *testing.T) {
	tests := []struct {
		in     string
		want   float64
		dir    Direction
		oneWay float64
		err    bool
	}{
		{"25GB/s", 25e9, OneWay, 25e9, false},
		{"25 GB/s", 25e9, OneWay, 25e9, false},
		{"25GBps", 25e9, OneWay, 25e9, false},
		{"400Gb/s", 50e9, OneWay, 50e9, false},
		{"400Gbps", 50e9, OneWay, 50e9, false},
		{"20GiB/s", 20 << 30, OneWay, 20 << 30, false},
		{"900GB/s bidirectional", 900e9, Bidirectional, 450e9, false},
		{"900 GB/s, both ways", 900e9, Bidirectional, 450e9, false},
		{"450GB/s one-way", 450e9, OneWay, 450e9, false},
		{"25GB", 0, 0, 0, true},   // no per second
		{"25G", 0, 0, 0, true},    // ambiguous
		{"25", 0, 0, 0, true},     // no unit
		{"GB/s", 0, 0, 0, true},   // no number
		{"25GT/s", 0, 0, 0, true}, // transfers are not bytes
	}
	for _, tt := range tests {
		got, err := ParseBandwidth(tt.in)
		if tt.err {
			if !errors.Is(err, ErrUnit) {
				t.Errorf("ParseBandwidth(%q) = %+v, %v; want ErrUnit", tt.in, got, err)
			}
			continue
		}
		if err != nil || got.BytesPerSecond != tt.want || got.Direction != tt.dir || got.OneWay() != tt.oneWay {
			t.Errorf("ParseBandwidth(%q) = %+v, %v; want %v %v", tt.in, got, err, tt.want, tt.dir)
		}
	}
}

func TestFormatKeepsUnitsApart(t *testing.T) {
	tests := []struct{ got, want string }{
		{Bytes(64000).String(), "64 KB"},
		{Bytes(65536).IEC(), "64 KiB"},
		{Bytes(1 << 30).String(), "1.07374 GB"},
		{Bytes(1 << 30).IEC(), "1 GiB"},
		{Bytes(8).String(), "8 B"},
		{Seconds(5e-6).String(), "5 µs"},
		{Seconds(1.2e-3).String(), "1.2 ms"},
		{Seconds(0).String(), "0 s"},
		{Bandwidth{BytesPerSecond: 50e9}.String(), "50 GB/s"},
		{Bandwidth{BytesPerSecond: 50e9}.Bits(), "400 Gb/s"},
		{Bandwidth{BytesPerSecond: 900e9, Direction: Bidirectional}.String(), "900 GB/s bidirectional"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// seeds reads testdata/units.txt.
func seeds(f *testing.F) {
	fh, err := os.Open("testdata/units.txt")
	if err != nil {
		f.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		f.Add(line)
	}
}

func closeEnough(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-5*math.Max(math.Abs(a), math.Abs(b))
}

func FuzzParseSize(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSize(s)
		if err != nil {
			if !errors.Is(err, ErrUnit) {
				t.Fatalf("error does not wrap ErrUnit: %v", err)
			}
			return
		}
		if v < 0 || math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			t.Fatalf("ParseSize(%q) = %v", s, v)
		}
		for _, text := range []string{v.String(), v.IEC()} {
			back, err := ParseSize(text)
			if err != nil || !closeEnough(float64(back), float64(v)) {
				t.Fatalf("round trip %q -> %v -> %q -> %v, %v", s, float64(v), text, float64(back), err)
			}
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseDuration(s)
		if err != nil {
			if !errors.Is(err, ErrUnit) {
				t.Fatalf("error does not wrap ErrUnit: %v", err)
			}
			return
		}
		if v < 0 || math.IsNaN(float64(v)) {
			t.Fatalf("ParseDuration(%q) = %v", s, v)
		}
		if math.IsInf(float64(v), 0) {
			return
		}
		back, err := ParseDuration(v.String())
		if err != nil || !closeEnough(float64(back), float64(v)) {
			t.Fatalf("round trip %q -> %v -> %q -> %v, %v", s, float64(v), v.String(), float64(back), err)
		}
	})
}

func FuzzParseBandwidth(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseBandwidth(s)
		if err != nil {
			if !errors.Is(err, ErrUnit) {
				t.Fatalf("error does not wrap ErrUnit: %v", err)
			}
			return
		}
		if v.BytesPerSecond < 0 || math.IsNaN(v.BytesPerSecond) || math.IsInf(v.BytesPerSecond, 0) {
			t.Fatalf("ParseBandwidth(%q) = %+v", s, v)
		}
		for _, text := range []string{v.String(), v.Bits()} {
			back, err := ParseBandwidth(text)
			if err != nil || !closeEnough(back.BytesPerSecond, v.BytesPerSecond) || back.Direction != v.Direction {
				t.Fatalf("round trip %q -> %+v -> %q -> %+v, %v", s, v, text, back, err)
			}
		}
	})
}
