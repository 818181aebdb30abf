package units

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

type scale struct {
	prefix string
	factor float64
}

var siScales = []scale{{"P", 1e15}, {"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"K", 1e3}}

var iecScales = []scale{{"Pi", 1 << 50}, {"Ti", 1 << 40}, {"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}}

// ScaleSI returns v divided by the largest SI prefix (K, M, G, T, P; 1 K =
// 1000) that keeps its magnitude at least 1, and the prefix ("" below
// 1000). Callers print the mantissa at the precision their display needs:
// m, p := ScaleSI(v); fmt.Sprintf("%g %sB", m, p).
func ScaleSI(v float64) (mantissa float64, prefix string) { return scaleBy(v, siScales) }

// ScaleIEC is ScaleSI with binary prefixes (Ki, Mi, Gi, Ti, Pi; 1 Ki = 1024).
func ScaleIEC(v float64) (mantissa float64, prefix string) { return scaleBy(v, iecScales) }

func scaleBy(v float64, scales []scale) (float64, string) {
	a := math.Abs(v)
	for _, sc := range scales {
		if a >= sc.factor {
			return v / sc.factor, sc.prefix
		}
	}
	return v, ""
}

// FormatSI prints v with an SI prefix and the unit, the mantissa with at
// most 6 significant digits: FormatSI(64e3, "B") is "64 KB",
// FormatSI(25e9, "B/s") is "25 GB/s". The cost model prints this way.
func FormatSI(v float64, unit string) string {
	m, p := ScaleSI(v)
	return formatShort(m) + " " + p + unit
}

// FormatIEC is FormatSI with binary prefixes: FormatIEC(65536, "B") is
// "64 KiB".
func FormatIEC(v float64, unit string) string {
	m, p := ScaleIEC(v)
	return formatShort(m) + " " + p + unit
}

func formatShort(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// FormatSize prints a size so that a reader can trust it and ParseSize
// reads it back exactly: the shortest exact form among plain bytes, binary
// prefixes and SI prefixes, binary on a tie. So 1048576 is "1 MiB", 1e6 is
// "1 MB", 1536 is "1.5 KiB" and 1000001 is "1000001 B". A negative size
// prints with a minus sign, which ParseSize refuses.
func FormatSize(n int64) string {
	if n < 0 {
		if n == math.MinInt64 {
			return strconv.FormatInt(n, 10) + " B"
		}
		return "-" + FormatSize(-n)
	}
	best := strconv.FormatInt(n, 10) + " B"
	bestLen := len(best) - 2
	for _, family := range []struct {
		base   int64
		digits int // decimal places 1/base^k needs, per k
		infix  string
	}{{1024, 10, "i"}, {1000, 3, ""}} {
		unit := int64(1)
		for k := 1; k <= 5; k++ {
			if unit > math.MaxInt64/family.base {
				break
			}
			unit *= family.base
			if n < unit {
				break
			}
			m := strings.TrimRight(strings.TrimRight(big.NewRat(n, unit).FloatString(family.digits*k), "0"), ".")
			if len(m) < bestLen {
				best, bestLen = m+" "+"KMGTP"[k-1:k]+family.infix+"B", len(m)
			}
		}
	}
	return best
}
