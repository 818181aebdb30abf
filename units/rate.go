package units

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrRate is wrapped by every error about a data rate.
var ErrRate = errors.New("units: bad rate")

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
	num, unit, err := splitNumber(s)
	if err != nil {
		return 0, fmt.Errorf("%w %q: %v", ErrRate, s, err)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w %q: bad number %q", ErrRate, s, num)
	}
	if v < 0 {
		return 0, fmt.Errorf("%w %q: negative", ErrRate, s)
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
