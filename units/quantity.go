package units

// Rates and durations: the float quantities people type next to sizes.

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// ParseRate reads a data rate and returns bytes per second:
//
//	"25GB/s", "25 GB/s", "25GBps"   bytes per second, SI (1 GB/s = 1e9 B/s)
//	"400Gb/s", "400Gbps"            bits per second: 400 Gb/s = 50 GB/s
//	"20GiB/s"                       binary bytes per second
//
// "B" is bytes and "b" bits, as on datasheets; prefixes may be either
// case. A number with no unit, or a unit with no per second ("25GB",
// "25G"), is refused as ambiguous. Errors wrap ErrRate.
func ParseRate(s string) (float64, error) {
	v, unit, err := parseQuantity(s, ErrRate)
	if err != nil {
		return 0, err
	}
	if unit == "" {
		return 0, fmt.Errorf("%w %q: no unit (write e.g. 25GB/s or 400Gb/s)", ErrRate, s)
	}
	per := false
	for _, suffix := range []string{"/s", "/sec", "ps"} {
		if strings.HasSuffix(unit, suffix) {
			per, unit = true, strings.TrimSuffix(unit, suffix)
			break
		}
	}
	if !per {
		return 0, fmt.Errorf("%w %q: no per-second unit (write e.g. 25GB/s or 400Gb/s)", ErrRate, s)
	}
	factor, bits, err := rateUnit(unit)
	if err != nil {
		return 0, fmt.Errorf("%w %q: %v", ErrRate, s, err)
	}
	v *= factor
	if bits {
		v /= 8
	}
	if math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w %q: too large", ErrRate, s)
	}
	return v, nil
}

// rateUnit reads "GB", "Gb", "GiB", "B" before the per second.
func rateUnit(u string) (factor float64, bits bool, err error) {
	if u == "" {
		return 0, false, errors.New("no unit")
	}
	switch u[len(u)-1] {
	case 'B':
	case 'b':
		bits = true
	default:
		return 0, false, fmt.Errorf("unit %q is ambiguous or unknown (end it with B for bytes or b for bits, e.g. GB or Gb)", u)
	}
	p := u[:len(u)-1]
	if p == "" {
		return 1, bits, nil
	}
	exp, ok := prefixExponent(p[0])
	switch rest := p[1:]; {
	case ok && rest == "":
		return math.Pow(1000, float64(exp)), bits, nil
	case ok && rest == "i":
		return math.Pow(1024, float64(exp)), bits, nil
	}
	return 0, false, fmt.Errorf("unknown prefix %q in unit %q (want K, M, G, T, P or Ki, Mi, Gi, Ti, Pi)", p, u)
}

// FormatRate prints bytes per second with an SI prefix, e.g. "25 GB/s";
// ParseRate reads it back.
func FormatRate(bytesPerSecond float64) string { return FormatSI(bytesPerSecond, "B/s") }

// FormatBitRate prints bytes per second as SI bits per second, the way
// network ports are sold, e.g. "400 Gb/s"; ParseRate reads it back.
func FormatBitRate(bytesPerSecond float64) string { return FormatSI(bytesPerSecond*8, "b/s") }

// ParseDuration reads a duration with a unit and returns seconds: "5us",
// "5 µs", "1.2ms", "800ns", "2s". A bare number is refused: nobody agrees
// whether it is seconds or microseconds. Errors wrap ErrDuration.
func ParseDuration(s string) (float64, error) {
	v, unit, err := parseQuantity(s, ErrDuration)
	if err != nil {
		return 0, err
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
		return 0, fmt.Errorf("%w %q: no unit (write e.g. 5us or 1.2ms)", ErrDuration, s)
	default:
		return 0, fmt.Errorf("%w %q: unknown unit %q (want ns, us, ms or s)", ErrDuration, s, unit)
	}
	return v / div, nil
}

// ScaleSeconds returns a duration in the largest of ns, µs, ms, s that
// keeps the number at least 1 (0 is "0 s"), for callers that print the
// mantissa at their own precision; Duration prints it in the house style.
func ScaleSeconds(v float64) (mantissa float64, unit string) {
	a := math.Abs(v)
	switch {
	case v == 0:
		return 0, "s"
	case a < 1e-6:
		return v * 1e9, "ns"
	case a < 1e-3:
		return v * 1e6, "µs"
	case a < 1:
		return v * 1e3, "ms"
	}
	return v, "s"
}
