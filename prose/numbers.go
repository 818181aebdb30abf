package prose

import (
	"strconv"
	"strings"

	"github.com/commlab/commlab/units"
)

// Secs prints a duration given in seconds: Secs(0.07523) is "75.23 ms".
func Secs(seconds float64) string { return units.Duration(seconds) }

// Ms prints a duration given in milliseconds: Ms(1.5) is "1.5 ms".
func Ms(milliseconds float64) string { return units.Readable(milliseconds, "ms") }

// Us prints a duration given in microseconds, as NCCL and the probes
// report them: Us(4.58752) is "4.588 µs".
func Us(microseconds float64) string { return units.Readable(microseconds, "us") }

// IEC prints bytes with binary prefixes: IEC(1<<30) is "1 GiB",
// IEC(1e6) is "976.6 KiB".
func IEC(bytes float64) string { return units.ReadableIEC(bytes, "B") }

// SI prints bytes with decimal prefixes: SI(1e6) is "1 MB".
func SI(bytes float64) string { return units.ReadableSI(bytes, "B") }

// Size prints bytes as a sweep or a buffer reads best: a whole number of
// KiB in binary prefixes, anything else in decimal ones (units.Readable).
func Size(bytes float64) string { return units.Readable(bytes, "B") }

// Rate prints bytes per second: Rate(25e9) is "25 GB/s".
func Rate(bytesPerSecond float64) string { return units.Readable(bytesPerSecond, "B/s") }

// GBps prints a bandwidth given in GB/s (10^9 bytes per second), as
// nccl-tests and NCCL's tuner report them: GBps(345.2) is "345.2 GB/s".
func GBps(gbps float64) string { return units.Readable(gbps, "GB/s") }

// Pct prints a fraction of 1 as a percentage: Pct(0.875) is "87.5%".
func Pct(fraction float64) string { return units.Percent(fraction) }

// Change prints a relative difference with its sign, as residuals and
// model errors read: Change(0.052) is "+5.2%", Change(-0.031) is "-3.1%";
// a difference that rounds to nothing is "0%", never "-0%".
func Change(fraction float64) string {
	s := units.Percent(fraction)
	if fraction > 0 && s != "0%" {
		return "+" + s
	}
	return s
}

// Num prints a plain number at about four significant digits, grouped:
// Num(1070.4) is "1,070".
func Num(v float64) string { return units.Number(v) }

// Count prints a whole count, exact and grouped: Count(268435456) is
// "268,435,456".
func Count(n int) string { return units.Count(int64(n)) }

// Plural writes a count with its noun, singular for one: Plural(1, "head")
// is "1 head", Plural(2, "head") "2 heads". Nouns with a plural other than
// an added "s" are not for it.
func Plural(n int, noun string) string {
	if n == 1 {
		return Count(n) + " " + noun
	}
	return Count(n) + " " + noun + "s"
}

// List joins items as a sentence lists them: "NIC0", "NIC0, NIC1"; none
// is "none". Use it instead of printing a slice with %v, which shows Go's
// brackets.
func List(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}

// IntList joins whole numbers as List does: "0, 1".
func IntList(items []int) string {
	parts := make([]string, len(items))
	for i, v := range items {
		parts[i] = strconv.Itoa(v)
	}
	return List(parts)
}

// Distinct returns items without repeats, in first-seen order.
func Distinct(items []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, it := range items {
		if !seen[it] {
			seen[it] = true
			out = append(out, it)
		}
	}
	return out
}
