package units

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// ParseSize reads a size in bytes in the package's grammar: "8", "8B",
// "4K" and "1M" (binary, as nccl-tests reads them), "1MiB" (binary),
// "1MB" and "64kB" (decimal), "1.5K", "1e9". A fraction must come out as
// whole bytes. Zero is accepted; negative, fractional, overflowing and
// unknown sizes are errors wrapping ErrSize.
func ParseSize(s string) (int64, error) {
	r, err := parseExact(s)
	if err != nil {
		return 0, err
	}
	if !r.IsInt() {
		return 0, fmt.Errorf("%w %q: not a whole number of bytes", ErrSize, s)
	}
	if !r.Num().IsInt64() {
		return 0, fmt.Errorf("%w %q: too large", ErrSize, s)
	}
	return r.Num().Int64(), nil
}

// ParseBytes is ParseSize for models, whose sizes are float64: the same
// grammar, but the value may be a fraction of a byte or exceed int64, so
// that rounded prints such as FormatIEC's "953.674 MiB" read back.
func ParseBytes(s string) (float64, error) {
	r, err := parseExact(s)
	if err != nil {
		return 0, err
	}
	v, _ := r.Float64()
	return v, nil
}

// parseExact reads a size in the grammar as an exact rational number.
func parseExact(s string) (*big.Rat, error) {
	num, unit, err := splitNumber(s)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrSize, s, err)
	}
	if strings.HasSuffix(unit, "b") {
		return nil, fmt.Errorf("%w %q: in bits (lower-case b); write bytes with B, e.g. %sB", ErrSize, s, strings.TrimSuffix(strings.TrimSpace(s), "b"))
	}
	factor, err := sizeUnit(unit)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrSize, s, err)
	}
	if strings.HasPrefix(num, "-") {
		return nil, fmt.Errorf("%w %q: negative", ErrSize, s)
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return nil, fmt.Errorf("%w %q: bad number %q", ErrSize, s, num)
	}
	return r.Mul(r, new(big.Rat).SetInt64(factor)), nil
}

// ParsePositiveSize is ParseSize refusing zero, for flags where an empty
// message means nothing.
func ParsePositiveSize(s string) (int64, error) {
	v, err := ParseSize(s)
	if err == nil && v <= 0 {
		err = fmt.Errorf("%w %q: must be positive", ErrSize, s)
	}
	return v, err
}

// maxExponent bounds the exponent of a typed number: anything larger is
// out of range anyway, and big.Rat would otherwise build huge numbers.
const maxExponent = 30

// splitNumber splits "64 KiB" into "64" and "KiB". The number is digits
// with an optional sign, fraction and exponent (an e is an exponent only
// when digits follow it).
func splitNumber(s string) (num, unit string, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", "", errors.New("empty")
	}
	i := 0
	if s[0] == '+' || s[0] == '-' {
		i++
	}
	digits := 0
	for ; i < len(s) && (isDigit(s[i]) || s[i] == '.'); i++ {
		if s[i] != '.' {
			digits++
		}
	}
	if digits == 0 {
		return "", "", errors.New("no number")
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k > j {
			e, err := strconv.Atoi(s[j:k])
			if err != nil || e > maxExponent || e < -maxExponent {
				return "", "", fmt.Errorf("exponent %q out of range", s[i:k])
			}
			i = k
		}
	}
	num = strings.TrimPrefix(s[:i], "+")
	if strings.Count(num, ".") > 1 {
		return "", "", fmt.Errorf("bad number %q", num)
	}
	return num, strings.TrimSpace(s[i:]), nil
}

// parseQuantity reads a non-negative finite number and the unit after it,
// for rates and durations; errors wrap sentinel and quote s.
func parseQuantity(s string, sentinel error) (float64, string, error) {
	num, unit, err := splitNumber(s)
	if err != nil {
		return 0, "", fmt.Errorf("%w %q: %v", sentinel, s, err)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, "", fmt.Errorf("%w %q: bad number %q", sentinel, s, num)
	}
	if v < 0 {
		return 0, "", fmt.Errorf("%w %q: negative", sentinel, s)
	}
	return v, unit, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// prefixExponent gives the power of the unit a prefix letter names (K 1,
// M 2, G 3, T 4, P 5), either case.
func prefixExponent(p byte) (int, bool) {
	i := strings.IndexByte("KMGTP", byte(strings.ToUpper(string(p))[0]))
	return i + 1, i >= 0
}

// sizeUnit returns the bytes one unit of a size stands for.
func sizeUnit(u string) (int64, error) {
	if u == "" || u == "B" {
		return 1, nil
	}
	exp, ok := prefixExponent(u[0])
	binary := true
	switch rest := u[1:]; {
	case !ok:
	case rest == "":
	case rest == "B":
		binary = false
	case rest == "iB" || rest == "IB":
	default:
		ok = false
	}
	if !ok {
		return 0, fmt.Errorf("unknown unit %q (want B, K, M, G, T, KiB, MiB, GiB, TiB, KB, MB, GB, TB)", u)
	}
	if binary {
		return 1 << (10 * exp), nil
	}
	return int64(math.Pow10(3 * exp)), nil
}
