package units

import (
	"math"
	"strconv"
	"strings"
)

// The number style every page, chart and command prints in: about four
// significant digits, the largest unit that keeps the integer part under
// 1000 (SI) or 1024 (IEC), no exponent, no "-0", thousands separators from
// 1,000 up, and "µs" for microseconds.

// readableDigits is how many significant digits a readable number keeps.
const readableDigits = 4

// Readable prints v, a quantity measured in unit, the way a person reads it
// in a table or a summary: scaled to the largest prefix that keeps the
// integer part under 1000 (1024 for binary sizes), with about 4
// significant digits. unit says what v counts:
//
//	"B"                       bytes: a multiple of 1024 (a size a sweep or a
//	                          buffer has) in binary prefixes, "7.875 MiB";
//	                          anything else in SI prefixes, "64 KB", "1.537 KB"
//	"B/s", "GB/s"             bytes per second, or GB/s (1e9 B/s): "14.27 GB/s"
//	"s", "ms", "us", "µs", "ns"  a duration in that unit: "4.588 µs", "1.25 ms"
//	"x"                       a ratio: "1.5x", "1,070x"
//	"%"                       a fraction of 1 as a percentage: 0.92 is "92%"
//	""                        a plain number: Number
//
// Any other unit prints the number (as Number) and the unit as they are:
// "3 hops". NaN and the infinities print as "N/A".
func Readable(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "N/A"
	}
	switch unit {
	case "B":
		if isBinarySize(v) {
			return ReadableIEC(v, "B")
		}
		return ReadableSI(v, "B")
	case "B/s":
		return ReadableSI(v, "B/s")
	case "GB/s":
		return ReadableSI(v*1e9, "B/s")
	case "s", "ms", "us", "µs", "μs", "ns":
		return Duration(v / secondsPer[unit])
	case "x":
		return Number(v) + "x"
	case "%":
		return Percent(v)
	case "":
		return Number(v)
	}
	return Number(v) + " " + unit
}

var secondsPer = map[string]float64{"s": 1, "ms": 1e3, "us": 1e6, "µs": 1e6, "μs": 1e6, "ns": 1e9}

// isBinarySize says whether v reads in binary prefixes: the family in
// which it is exact in the fewest digits (4 GiB, 7.875 MiB, 64 KiB; but
// 4 GB, 64 KB, 1 MB), binary on a tie, so that a size prints in the family
// it was given in: "4GB" (4e9, also a whole number of KiB) comes back as
// "4 GB", "4GiB" as "4 GiB". Where neither family is exact at readable
// precision, a whole number of KiB (a sweep's or a buffer's size) is
// binary.
func isBinarySize(v float64) bool {
	a := math.Abs(v)
	if a < 1024 || a >= 1<<62 {
		return false // no binary prefix to print it with
	}
	b, okB := exactDigits(scaleRounded(a, iecWithUnit, 1024))
	d, okD := exactDigits(scaleRounded(a, siWithUnit, 1000))
	switch {
	case okB && okD:
		return b <= d
	case okB || okD:
		return okB
	}
	return math.Mod(a, 1024) == 0
}

// exactDigits is how many significant digits mantissa m has written
// out in full (trailing zeros aside), and whether that is at most
// readableDigits: then the readable form is exact.
func exactDigits(m float64, _ string) (int, bool) {
	digits := strings.Replace(strconv.FormatFloat(math.Abs(m), 'f', -1, 64), ".", "", 1)
	digits = strings.TrimRight(strings.TrimLeft(digits, "0"), "0")
	return len(digits), len(digits) <= readableDigits
}

// ReadableSI prints v in unit with the largest SI prefix (K, M, G, T, P;
// 1 K = 1000) that keeps the integer part under 1000, at about 4
// significant digits: ReadableSI(2e6, "B") is "2 MB", ReadableSI(1.4271e10,
// "B/s") is "14.27 GB/s".
func ReadableSI(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "N/A"
	}
	m, p := scaleRounded(v, siWithUnit, 1000)
	return Number(m) + " " + p + unit
}

// ReadableIEC prints v in unit with the largest binary prefix (Ki, Mi, Gi,
// Ti, Pi; 1 Ki = 1024) that keeps the integer part under 1024, at about 4
// significant digits: ReadableIEC(2e6, "B") is "1.907 MiB",
// ReadableIEC(8064<<10, "B") is "7.875 MiB", ReadableIEC(2016<<20, "B") is
// "1.969 GiB".
func ReadableIEC(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "N/A"
	}
	m, p := scaleRounded(v, iecWithUnit, 1024)
	n := Number(m)
	if math.Abs(m) < 1024 {
		n = strings.Replace(n, ",", "", 1) // a mantissa, 1000 to 1023, is no count
	}
	return n + " " + p + unit
}

// Duration prints seconds in the largest of ns, µs, ms and s that keeps
// the number at least 1, at about 4 significant digits: 4.58752e-6 is
// "4.588 µs", 0.0751619 is "75.16 ms", 0 is "0 s".
func Duration(seconds float64) string {
	if math.IsNaN(seconds) || math.IsInf(seconds, 0) {
		return "N/A"
	}
	if seconds == 0 {
		return "0 s"
	}
	m, unit := scaleRounded(seconds, timeScales, 1000)
	return Number(m) + " " + unit + "s"
}

// timeScales are the units of Duration, as prefixes of "s".
var timeScales = []scale{{"", 1}, {"m", 1e-3}, {"µ", 1e-6}, {"n", 1e-9}}

// Percent prints a fraction of 1 as a percentage at about 4 significant
// digits and at most two decimals: 0.92 is "92%", 0.0123456 is "1.23%",
// -0.0001 is "-0.01%" and -0.00001 is "0%", never "-0%".
func Percent(fraction float64) string {
	if math.IsNaN(fraction) || math.IsInf(fraction, 0) {
		return "N/A"
	}
	return Number(math.Round(fraction*100*100)/100) + "%"
}

// Number prints v at about 4 significant digits, the way a person writes
// it: never an exponent, never "-0", and thousands separators from 1,000
// up, where the integer part is kept whole ("12,346", not "1.235e+04").
// Number(4.58752) is "4.588", Number(1070.4) is "1,070", Number(0.000123456)
// is "0.0001235".
func Number(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "N/A"
	}
	r := roundSignificant(v, readableDigits)
	if math.Abs(r) >= 1000 {
		return group(strconv.FormatFloat(math.Round(v), 'f', 0, 64))
	}
	if r == 0 {
		return "0"
	}
	decimals := readableDigits - 1 - int(math.Floor(math.Log10(math.Abs(r))))
	if decimals < 0 {
		decimals = 0
	}
	s := strconv.FormatFloat(r, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}

// Count prints a whole number exactly, with thousands separators:
// Count(1234567) is "1,234,567".
func Count(n int64) string { return group(strconv.FormatInt(n, 10)) }

// group puts a comma between each three digits of the integer part of a
// number printed without an exponent.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	if len(intPart) <= 3 {
		return sign + s
	}
	var b strings.Builder
	lead := len(intPart) % 3
	if lead > 0 {
		b.WriteString(intPart[:lead])
	}
	for i := lead; i < len(intPart); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(intPart[i : i+3])
	}
	return sign + b.String() + frac
}

// roundSignificant rounds v to n significant digits.
func roundSignificant(v float64, n int) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'e', n-1, 64), 64)
	if err != nil {
		return v
	}
	return r
}

// scaleRounded is scaleBy on the value as it will print: the largest
// scale whose rounded mantissa is at least 1, moving up one scale when
// rounding would carry the mantissa to base (1023.96 KiB is 1 MiB). The
// last scale takes what is smaller than every scale (0.5 B, 0.2 ns).
func scaleRounded(v float64, scales []scale, base float64) (float64, string) {
	for i, sc := range scales {
		m := roundSignificant(v/sc.factor, readableDigits)
		if math.Abs(m) < 1 && i < len(scales)-1 {
			continue
		}
		if i > 0 && math.Abs(m) >= base {
			return v / scales[i-1].factor, scales[i-1].prefix
		}
		return v / sc.factor, sc.prefix
	}
	return v, ""
}

var (
	siWithUnit  = append(append([]scale{}, siScales...), scale{"", 1})
	iecWithUnit = append(append([]scale{}, iecScales...), scale{"", 1})
)
