package units

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// ErrDuration is wrapped by every error about a duration.
var ErrDuration = errors.New("units: bad duration")

// ParseDuration reads a duration with a unit and returns seconds: "5us",
// "5 µs", "1.2ms", "800ns", "2s". A bare number is refused: nobody agrees
// whether it is seconds or microseconds. Errors wrap ErrDuration.
func ParseDuration(s string) (float64, error) {
	num, unit, err := splitNumber(s)
	if err != nil {
		return 0, fmt.Errorf("%w %q: %v", ErrDuration, s, err)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w %q: bad number %q", ErrDuration, s, num)
	}
	if v < 0 {
		return 0, fmt.Errorf("%w %q: negative", ErrDuration, s)
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

// ScaleSeconds returns a duration in the largest of ns, us, ms, s that
// keeps the number at least 1 (0 is "0 s"), for callers that print the
// mantissa at their own precision.
func ScaleSeconds(v float64) (mantissa float64, unit string) {
	a := math.Abs(v)
	switch {
	case v == 0:
		return 0, "s"
	case a < 1e-6:
		return v * 1e9, "ns"
	case a < 1e-3:
		return v * 1e6, "us"
	case a < 1:
		return v * 1e3, "ms"
	}
	return v, "s"
}
