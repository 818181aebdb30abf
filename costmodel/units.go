package costmodel

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrUnit is returned (wrapped) by the unit parsers for malformed,
// ambiguous or out-of-range input; callers can branch on it with errors.Is.
var ErrUnit = errors.New("costmodel: bad unit")

// Bytes is a size in bytes. It is a float64 so that sweeps and averages
// need no conversions; sizes a person types are whole numbers anyway.
type Bytes float64

// Seconds is a duration in seconds.
type Seconds float64

// Direction says whether a bandwidth counts one direction of a link or both
// directions added together (the "900 GB/s" of NVLink 4 is both ways).
type Direction int

const (
	// OneWay is the rate in each direction; the default when not said.
	OneWay Direction = iota
	// Bidirectional is both directions added together.
	Bidirectional
)

// String returns "one-way" or "bidirectional".
func (d Direction) String() string {
	if d == Bidirectional {
		return "bidirectional"
	}
	return "one-way"
}

// Bandwidth is a data rate in bytes per second, with the direction the
// number counts.
type Bandwidth struct {
	BytesPerSecond float64
	Direction      Direction
}

// OneWay returns the rate of one direction in bytes per second: the beta of
// the alpha-beta model.
func (b Bandwidth) OneWay() float64 {
	if b.Direction == Bidirectional {
		return b.BytesPerSecond / 2
	}
	return b.BytesPerSecond
}

// GBps returns the rate as printed (either direction convention) in GB/s,
// 1 GB/s = 1e9 bytes per second, as nccl-tests prints it.
func (b Bandwidth) GBps() float64 { return b.BytesPerSecond / 1e9 }

// Gbps returns the rate in gigabits per second, the unit of network ports.
func (b Bandwidth) Gbps() float64 { return b.BytesPerSecond * 8 / 1e9 }

// String prints the rate in SI bytes per second, e.g. "25 GB/s" or
// "900 GB/s bidirectional". ParseBandwidth reads it back.
func (b Bandwidth) String() string {
	s := formatScaled(b.BytesPerSecond, siScales, "B/s")
	if b.Direction == Bidirectional {
		s += " bidirectional"
	}
	return s
}

// Bits prints the rate in SI bits per second, e.g. "400 Gb/s", the way
// network ports are sold. ParseBandwidth reads it back.
func (b Bandwidth) Bits() string {
	s := formatScaled(b.BytesPerSecond*8, siScales, "b/s")
	if b.Direction == Bidirectional {
		s += " bidirectional"
	}
	return s
}

// String prints the size with an SI prefix (1 KB = 1000 B), e.g. "64 KB".
// ParseSize reads it back exactly enough for round trips.
func (b Bytes) String() string { return formatScaled(float64(b), siScales, "B") }

// IEC prints the size with a binary prefix (1 KiB = 1024 B), e.g. "64 KiB".
func (b Bytes) IEC() string { return formatScaled(float64(b), iecScales, "B") }

// String prints the duration in the largest of ns, us, ms, s that keeps the
// number at least 1, e.g. "5 us", "1.2 ms".
func (s Seconds) String() string {
	v := float64(s)
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0 s"
	case a < 1e-6:
		return trimFloat(v*1e9) + " ns"
	case a < 1e-3:
		return trimFloat(v*1e6) + " us"
	case a < 1:
		return trimFloat(v*1e3) + " ms"
	}
	return trimFloat(v) + " s"
}

type scale struct {
	prefix string
	factor float64
}

var siScales = []scale{{"P", 1e15}, {"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"K", 1e3}}

var iecScales = []scale{{"Pi", 1 << 50}, {"Ti", 1 << 40}, {"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}}

func formatScaled(v float64, scales []scale, unit string) string {
	a := math.Abs(v)
	for _, sc := range scales {
		if a >= sc.factor {
			return trimFloat(v/sc.factor) + " " + sc.prefix + unit
		}
	}
	return trimFloat(v) + " " + unit
}

// trimFloat prints at most 6 significant digits without trailing zeros,
// which is what a reader wants; exact values stay in the float64 fields.
func trimFloat(v float64) string {
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// ParseSize reads a size: a number with an optional byte unit.
//
//	"8B", "8", "1e9"          bytes
//	"64KB", "64kB", "1GB"     SI: 1 KB = 1000 B (k or K)
//	"64KiB", "1GiB"           IEC: 1 KiB = 1024 B
//
// Spaces between number and unit are allowed. A prefix with no B ("25G")
// is refused as ambiguous, and so are bits ("1Gb"): a size is in bytes.
func ParseSize(s string) (Bytes, error) {
	num, unit, err := splitNumber(s)
	if err != nil {
		return 0, fmt.Errorf("%w: size %q: %v", ErrUnit, s, err)
	}
	if num < 0 {
		return 0, fmt.Errorf("%w: size %q is negative", ErrUnit, s)
	}
	if unit == "" {
		return Bytes(num), nil
	}
	factor, bits, err := parsePrefixUnit(unit)
	if err != nil {
		return 0, fmt.Errorf("%w: size %q: %v", ErrUnit, s, err)
	}
	if bits {
		return 0, fmt.Errorf("%w: size %q is in bits (lower-case b); write bytes with B, e.g. %sB", ErrUnit, s, strings.TrimSuffix(strings.TrimSpace(s), "b"))
	}
	v := num * factor
	if math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: size %q is too large", ErrUnit, s)
	}
	return Bytes(v), nil
}

// ParseDuration reads a duration with a unit: "5us", "5 µs", "1.2ms",
// "800ns", "2s". A bare number is refused: nobody agrees whether it is
// seconds or microseconds.
func ParseDuration(s string) (Seconds, error) {
	num, unit, err := splitNumber(s)
	if err != nil {
		return 0, fmt.Errorf("%w: duration %q: %v", ErrUnit, s, err)
	}
	if num < 0 {
		return 0, fmt.Errorf("%w: duration %q is negative", ErrUnit, s)
	}
	var div float64 // dividing by a power of ten rounds once: 5/1e6 is 5e-06
	switch unit {
	case "ns":
		div = 1e9
	case "us", "µs", "μs":
		div = 1e6
	case "ms":
		div = 1e3
	case "s", "sec":
		div = 1
	case "":
		return 0, fmt.Errorf("%w: duration %q has no unit (write e.g. 5us or 1.2ms)", ErrUnit, s)
	default:
		return 0, fmt.Errorf("%w: duration %q: unknown unit %q (want ns, us, ms or s)", ErrUnit, s, unit)
	}
	return Seconds(num / div), nil
}

// ParseBandwidth reads a rate: a number, a byte or bit unit, a per-second
// suffix and an optional direction.
//
//	"25GB/s", "25 GB/s", "25GBps"      bytes per second (SI)
//	"400Gb/s", "400Gbps"               bits per second: 400 Gb/s = 50 GB/s
//	"20GiB/s"                          IEC bytes per second
//	"900GB/s bidirectional"            both directions added ("bidir",
//	                                   "both ways" also work)
//	"450GB/s one-way"                  explicit one direction (default)
//
// "B" is bytes and "b" is bits, as on datasheets; prefixes may be either
// case. A number with no unit, or a unit with no "/s" ("25GB", "25G") is
// refused as ambiguous.
func ParseBandwidth(s string) (Bandwidth, error) {
	body := strings.TrimSpace(s)
	dir := OneWay
	lower := strings.ToLower(body)
	for _, d := range []struct {
		word string
		dir  Direction
	}{
		{"bidirectional", Bidirectional}, {"bidir", Bidirectional}, {"both ways", Bidirectional},
		{"one-way", OneWay}, {"one way", OneWay}, {"oneway", OneWay}, {"unidirectional", OneWay},
	} {
		if strings.HasSuffix(lower, d.word) {
			dir = d.dir
			body = strings.TrimSpace(body[:len(body)-len(d.word)])
			body = strings.TrimSpace(strings.TrimSuffix(body, ","))
			break
		}
	}
	num, unit, err := splitNumber(body)
	if err != nil {
		return Bandwidth{}, fmt.Errorf("%w: bandwidth %q: %v", ErrUnit, s, err)
	}
	if num < 0 {
		return Bandwidth{}, fmt.Errorf("%w: bandwidth %q is negative", ErrUnit, s)
	}
	var per string
	switch {
	case strings.HasSuffix(unit, "/s"):
		per, unit = "/s", strings.TrimSuffix(unit, "/s")
	case strings.HasSuffix(unit, "/sec"):
		per, unit = "/s", strings.TrimSuffix(unit, "/sec")
	case strings.HasSuffix(unit, "ps"):
		per, unit = "/s", strings.TrimSuffix(unit, "ps")
	}
	if unit == "" {
		return Bandwidth{}, fmt.Errorf("%w: bandwidth %q has no unit (write e.g. 25GB/s or 400Gb/s)", ErrUnit, s)
	}
	if per == "" {
		return Bandwidth{}, fmt.Errorf("%w: bandwidth %q lacks a per-second unit (write e.g. 25GB/s or 400Gb/s)", ErrUnit, s)
	}
	factor, bits, err := parsePrefixUnit(unit)
	if err != nil {
		return Bandwidth{}, fmt.Errorf("%w: bandwidth %q: %v", ErrUnit, s, err)
	}
	v := num * factor
	if bits {
		v /= 8
	}
	if math.IsInf(v, 0) {
		return Bandwidth{}, fmt.Errorf("%w: bandwidth %q is too large", ErrUnit, s)
	}
	return Bandwidth{BytesPerSecond: v, Direction: dir}, nil
}

// splitNumber splits "64 KiB" into 64 and "KiB". The number must be finite.
func splitNumber(s string) (float64, string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, "", errors.New("empty")
	}
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c == '.':
			i++
		case (c == '+' || c == '-') && i == 0:
			i++
		case (c == 'e' || c == 'E') && i > 0 && i+1 < len(s) && (isDigit(s[i+1]) ||
			((s[i+1] == '+' || s[i+1] == '-') && i+2 < len(s) && isDigit(s[i+2]))):
			// An exponent only when digits follow, so "1EB" is not "1e" + "B".
			i += 2
		default:
			goto done
		}
	}
done:
	numStr := s[:i]
	unit := strings.TrimSpace(s[i:])
	if numStr == "" {
		return 0, "", errors.New("no number")
	}
	v, err := strconv.ParseFloat(numStr, 64)
	if err != nil {
		return 0, "", fmt.Errorf("bad number %q", numStr)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, "", fmt.Errorf("number %q is not finite", numStr)
	}
	return v, unit, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parsePrefixUnit reads "KiB", "GB", "Gb", "B" and returns the multiplier
// and whether the unit is bits.
func parsePrefixUnit(u string) (factor float64, bits bool, err error) {
	if u == "" {
		return 1, false, nil
	}
	last := u[len(u)-1]
	switch last {
	case 'B':
	case 'b':
		bits = true
	default:
		return 0, false, fmt.Errorf("unit %q is ambiguous or unknown (end it with B for bytes or b for bits, e.g. GB or Gb)", u)
	}
	p := u[:len(u)-1]
	iec := strings.HasSuffix(p, "i")
	if iec {
		p = strings.TrimSuffix(p, "i")
		if p == "" {
			return 0, false, fmt.Errorf("unit %q has i with no prefix", u)
		}
	}
	var exp int
	switch strings.ToUpper(p) {
	case "":
		exp = 0
	case "K":
		exp = 1
	case "M":
		exp = 2
	case "G":
		exp = 3
	case "T":
		exp = 4
	case "P":
		exp = 5
	default:
		return 0, false, fmt.Errorf("unknown prefix %q in unit %q (want K, M, G, T, P or Ki, Mi, Gi, Ti, Pi)", p, u)
	}
	if iec {
		return math.Pow(1024, float64(exp)), bits, nil
	}
	return math.Pow(1000, float64(exp)), bits, nil
}
