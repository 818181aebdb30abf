package units

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxSweepPoints bounds the sizes a sweep may hold, so that a typo such as
// a list of a billion sizes fails instead of filling memory.
const MaxSweepPoints = 1_000_000

// Sweep returns the sizes nccl-tests visits with -b lo -e hi -f factor:
// lo, lo*factor, lo*factor^2, ... while the size is at most hi. The steps
// are exact integer products, so hi itself is in the sweep whenever it is
// lo times a power of factor, and the last size is the largest
// lo*factor^k <= hi. It needs 0 < lo <= hi and factor >= 2; errors wrap
// ErrSize.
func Sweep(lo, hi, factor int64) ([]int64, error) {
	if lo <= 0 || hi < lo {
		return nil, fmt.Errorf("%w: sweep %d..%d: need 0 < MIN <= MAX", ErrSize, lo, hi)
	}
	if factor < 2 {
		return nil, fmt.Errorf("%w: sweep factor %d must be at least 2", ErrSize, factor)
	}
	var out []int64
	for s := lo; ; s *= factor {
		out = append(out, s)
		if s > hi/factor { // the next step passes hi (or int64)
			return out, nil
		}
	}
}

// ParseSweep reads a sweep as "MIN:MAX" (doubling, as nccl-tests -f 2),
// "MIN:MAX:FACTOR" with a whole factor >= 2 (as nccl-tests -f), or a comma
// list of sizes "8,1M,64M" taken as given. Sizes follow ParseSize and
// must be positive; a range's bounds need 0 < MIN <= MAX. A range ends at
// the MAX it names: where Sweep's last step falls short of MAX (1KB:1GB:4
// steps to 262.144 MB), MAX is added as the last size. Errors wrap ErrSize.
func ParseSweep(spec string) ([]int64, error) {
	if strings.Contains(spec, ",") {
		return ParseSizeList(spec)
	}
	parts := strings.Split(spec, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, fmt.Errorf("%w: sweep %q: want MIN:MAX, MIN:MAX:FACTOR or a list A,B,C, e.g. 8B:8GB", ErrSize, spec)
	}
	lo, err := ParseSize(parts[0])
	if err != nil {
		return nil, err
	}
	hi, err := ParseSize(parts[1])
	if err != nil {
		return nil, err
	}
	factor := int64(2)
	if len(parts) == 3 {
		factor, err = strconv.ParseInt(strings.TrimSpace(parts[2]), 10, 64)
		if err != nil || factor < 2 {
			return nil, fmt.Errorf("%w: sweep %q: factor %q must be a whole number >= 2", ErrSize, spec, parts[2])
		}
	}
	if lo <= 0 || hi < lo {
		return nil, fmt.Errorf("%w: sweep %q: need 0 < MIN <= MAX", ErrSize, spec)
	}
	out, err := Sweep(lo, hi, factor)
	if err == nil && out[len(out)-1] != hi {
		out = append(out, hi)
	}
	return out, err
}

// ParseSizeList reads "8,1M,64M" (or one size, "1M"): positive sizes in
// ParseSize's grammar, in the order given. Errors wrap ErrSize.
func ParseSizeList(spec string) ([]int64, error) {
	fields := strings.Split(spec, ",")
	if len(fields) > MaxSweepPoints {
		return nil, fmt.Errorf("%w: sweep list has more than %d sizes", ErrSize, MaxSweepPoints)
	}
	out := make([]int64, 0, len(fields))
	for _, f := range fields {
		v, err := ParsePositiveSize(f)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
