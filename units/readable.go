package units

import (
	"math"
	"strconv"
)

// Readable prints v, a quantity measured in unit, the way a person reads it
// in a table or a summary: scaled to a prefix that keeps it at least 1 and
// at most 4 significant digits. unit says what v counts:
//
//	"B"                       bytes: exact whole sizes as FormatSize ("1 GiB",
//	                          "64 KB"), fractional ones with an SI prefix
//	"B/s", "GB/s"             bytes per second, or GB/s (1e9 B/s): "14.27 GB/s"
//	"s", "ms", "us", "ns"     a duration in that unit: "70 us", "1.25 ms"
//	"x"                       a ratio: "1.5x"
//	"%"                       a fraction of 1 as a percentage: 0.92 is "92%"
//
// Any other unit prints the number and the unit as they are. NaN and the
// infinities print as "N/A".
func Readable(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "N/A"
	}
	switch unit {
	case "B":
		if v == math.Trunc(v) && math.Abs(v) < 1<<62 {
			return FormatSize(int64(v))
		}
		m, p := ScaleSI(v)
		return short(m) + " " + p + "B"
	case "B/s":
		m, p := ScaleSI(v)
		return short(m) + " " + p + "B/s"
	case "GB/s":
		return Readable(v*1e9, "B/s")
	case "s", "ms", "us", "ns":
		m, u := ScaleSeconds(v / secondsPer[unit])
		return short(m) + " " + u
	case "x":
		return short(v) + "x"
	case "%":
		return short(v*100) + "%"
	case "":
		return short(v)
	}
	return short(v) + " " + unit
}

var secondsPer = map[string]float64{"s": 1, "ms": 1e3, "us": 1e6, "ns": 1e9}

// short prints at most 4 significant digits, without an exponent for the
// magnitudes a scaled quantity has.
func short(v float64) string {
	if v == 0 {
		return "0"
	}
	s := strconv.FormatFloat(v, 'g', 4, 64)
	if a := math.Abs(v); a >= 1e4 && a < 1e21 {
		s = strconv.FormatFloat(math.Round(v), 'f', -1, 64)
	}
	return s
}
