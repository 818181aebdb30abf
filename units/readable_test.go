package units

import (
	"math"
	"testing"
)

func TestReadable(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{7.000000000000001e-05, "s", "70 us"},
		{1.4271442842871412e+10, "B/s", "14.27 GB/s"},
		{142.71442842871412, "GB/s", "142.7 GB/s"},
		{1 << 30, "B", "1 GiB"},
		{1e9, "B", "1 GB"},
		{1536.7, "B", "1.537 KB"},
		{12.5, "us", "12.5 us"},
		{1250, "us", "1.25 ms"},
		{0, "s", "0 s"},
		{0.92, "%", "92%"},
		{1.5, "x", "1.5x"},
		{123456, "", "123456"},
		{3, "hops", "3 hops"},
		{math.NaN(), "B/s", "N/A"},
		{math.Inf(1), "s", "N/A"},
	} {
		if got := Readable(c.v, c.unit); got != c.want {
			t.Errorf("Readable(%v, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}
