package units

import (
	"math"
	"strings"
	"testing"
)

func TestReadable(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{7.000000000000001e-05, "s", "70 µs"},
		{4.58752e-6, "s", "4.588 µs"},
		{4.58752, "us", "4.588 µs"},
		{4.58752, "µs", "4.588 µs"},
		{75.1619, "ms", "75.16 ms"},
		{999.96, "us", "1 ms"},
		{0.2, "ns", "0.2 ns"},
		{1234.5, "s", "1,235 s"},
		{-3e-6, "s", "-3 µs"},
		{1.4271442842871412e+10, "B/s", "14.27 GB/s"},
		{142.71442842871412, "GB/s", "142.7 GB/s"},
		{999.96e9, "B/s", "1 TB/s"},
		{1 << 30, "B", "1 GiB"},
		{1e9, "B", "1 GB"},
		{8064 << 10, "B", "7.875 MiB"},
		{2016 << 20, "B", "1.969 GiB"},
		{1000 << 10, "B", "1000 KiB"},
		{1023 << 10, "B", "1023 KiB"},
		{1536.7, "B", "1.537 KB"},
		// A size prints in the family it reads exactly in, fewest digits
		// first: decimal in, decimal out; binary in, binary out.
		{4e9, "B", "4 GB"},
		{4 << 30, "B", "4 GiB"},
		{16e6, "B", "16 MB"},
		{16 << 20, "B", "16 MiB"},
		{64 << 10, "B", "64 KiB"},
		{1536, "B", "1.5 KiB"},
		{3e9 + 1024, "B", "3 GB"},
		{1000001, "B", "1 MB"},
		{64e3, "B", "64 KB"},
		{8, "B", "8 B"},
		{1023, "B", "1.023 KB"},
		{0.5, "B", "0.5 B"},
		{12.5, "us", "12.5 µs"},
		{1250, "us", "1.25 ms"},
		{0, "s", "0 s"},
		{0, "B", "0 B"},
		{0.92, "%", "92%"},
		{-0.00001, "%", "0%"},
		{-0.004, "%", "-0.4%"},
		{0.0123456, "%", "1.23%"},
		{1.5, "x", "1.5x"},
		{1070.4, "x", "1,070x"},
		{123456, "", "123,456"},
		{3, "hops", "3 hops"},
		{math.NaN(), "B/s", "N/A"},
		{math.Inf(1), "s", "N/A"},
	} {
		if got := Readable(c.v, c.unit); got != c.want {
			t.Errorf("Readable(%v, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}

func TestReadableIECAndSI(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{ReadableIEC(1.90735*(1<<20), "B"), "1.907 MiB"},
		{ReadableIEC(2e6, "B"), "1.907 MiB"},
		{ReadableIEC(1023.96*1024, "B"), "1 MiB"},
		{ReadableIEC(1023.9*1024, "B"), "0.9999 MiB"},
		{ReadableIEC(512, "B"), "512 B"},
		{ReadableIEC(20*(1<<30), "B/s"), "20 GiB/s"},
		{ReadableSI(2e6, "B"), "2 MB"},
		{ReadableSI(999.95, "B"), "1 KB"},
		{ReadableSI(-64e3, "B"), "-64 KB"},
		{ReadableSI(math.Inf(-1), "B"), "N/A"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestNumber(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {-0.00001, "-0.00001"}, {-1e-20, "-0.00000000000000000001"},
		{4.58752, "4.588"}, {1.90735, "1.907"}, {75.1619, "75.16"}, {9.030899869919436, "9.031"},
		{100, "100"}, {999.9, "999.9"}, {999.96, "1,000"}, {1070.4, "1,070"}, {12345.6, "12,346"},
		{-1234567, "-1,234,567"}, {1e21, "1,000,000,000,000,000,000,000"}, {0.000123456, "0.0001235"},
		{math.NaN(), "N/A"},
	} {
		if got := Number(c.v); got != c.want {
			t.Errorf("Number(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", -12345: "-12,345", math.MinInt64: "-9,223,372,036,854,775,808"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

// The style holds over every magnitude: no exponent, no "-0", a mantissa
// under 1000 (1024 for binary), at most 4 significant digits below 1000.
func TestReadableStyleOverMagnitudes(t *testing.T) {
	for e := -15.0; e <= 16; e += 0.173 {
		for _, sign := range []float64{1, -1} {
			v := sign * math.Pow(10, e)
			for _, s := range []string{Readable(v, "s"), Readable(v, "B/s"), ReadableIEC(v, "B"), Number(v), Readable(v, "%")} {
				if strings.ContainsAny(s, "eE") && !strings.Contains(s, "B") {
					t.Errorf("%g: %q has an exponent", v, s)
				}
				if strings.HasPrefix(s, "-0 ") || s == "-0" || strings.HasPrefix(s, "-0%") {
					t.Errorf("%g: %q is a negative zero", v, s)
				}
			}
			num := strings.Fields(Readable(v, "s"))[0]
			if e < 3 && len(strings.Trim(strings.ReplaceAll(strings.TrimLeft(num, "-0."), ".", ""), "0")) > 4 {
				t.Errorf("%g: %q keeps more than 4 significant digits", v, num)
			}
			if m := strings.Fields(ReadableIEC(math.Abs(v), "B"))[0]; e > 0 && e < 15 && strings.Contains(m, ",") {
				t.Errorf("%g: IEC mantissa %q is 1,000 or more", v, m)
			}
		}
	}
}

// TestSizeFamilyRoundTrip: every size a reader types prints in the family
// it was typed in.
func TestSizeFamilyRoundTrip(t *testing.T) {
	for _, typed := range []struct{ in, want string }{
		{"1GB", "1 GB"}, {"4GB", "4 GB"}, {"64KB", "64 KB"}, {"16MB", "16 MB"}, {"256MB", "256 MB"}, {"8GB", "8 GB"},
		{"1GiB", "1 GiB"}, {"4GiB", "4 GiB"}, {"64KiB", "64 KiB"}, {"16MiB", "16 MiB"}, {"1.5GiB", "1.5 GiB"},
		{"4G", "4 GiB"}, {"128M", "128 MiB"}, {"1.5GB", "1.5 GB"},
	} {
		v, err := ParseSize(typed.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := Readable(float64(v), "B"); got != typed.want {
			t.Errorf("%s read as %d prints %q, want %q", typed.in, v, got, typed.want)
		}
	}
}
