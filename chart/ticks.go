package chart

import (
	"math"

	"github.com/commlab/commlab/units"
	"gonum.org/v1/plot"
)

// formatterFor returns how values of a unit print on ticks and in String.
func formatterFor(unit string) func(float64) string {
	switch unit {
	case UnitBytes:
		return formatBytes
	case UnitSeconds:
		return formatSeconds
	}
	return formatNumber
}

// formatWithUnit prints a value with its unit, as notes say it: "25 GB/s",
// "64 KiB", "12%".
func formatWithUnit(v float64, unit string) string {
	switch unit {
	case UnitBytes, UnitSeconds:
		return formatterFor(unit)(v)
	case "":
		return formatNumber(v)
	case "%":
		return formatNumber(v) + "%"
	}
	return formatNumber(v) + " " + unit
}

// formatNumber prints a number in the house style (units.Number): about
// four significant digits, no exponent, thousands separators.
func formatNumber(v float64) string { return units.Number(v) }

// formatBytes prints a size with binary prefixes, as sweeps of powers of
// two are read: 8 B, 64 KiB, 1.5 GiB.
func formatBytes(v float64) string { return units.ReadableIEC(v, "B") }

// formatBytesSI prints a size with SI prefixes: the ticks of a linear
// byte axis fall on round decimal numbers.
func formatBytesSI(v float64) string { return units.ReadableSI(v, "B") }

// formatSeconds prints a duration in the largest of ns, µs, ms, s that
// keeps the number at least 1.
func formatSeconds(v float64) string { return units.Duration(v) }

// tickerFor picks the tick marks of an axis.
func tickerFor(a Axis) plot.Ticker {
	switch {
	case a.Log && a.Unit == UnitBytes:
		return plot.TickerFunc(powerOfTwoTicks)
	case a.Log:
		f := formatterFor(a.Unit)
		return plot.TickerFunc(func(min, max float64) []plot.Tick { return decadeTicks(min, max, f) })
	case a.Unit == UnitBytes:
		return relabel(formatBytesSI)
	}
	return relabel(formatterFor(a.Unit))
}

// relabel keeps gonum's linear tick positions and prints them in a unit.
func relabel(f func(float64) string) plot.Ticker {
	return plot.TickerFunc(func(min, max float64) []plot.Tick {
		ticks := plot.DefaultTicks{}.Ticks(min, max)
		for i := range ticks {
			if ticks[i].Label != "" {
				ticks[i].Label = f(ticks[i].Value)
			}
		}
		return ticks
	})
}

// powerOfTwoTicks labels a log byte axis at powers of two, every step-th
// one so that at most 11 labels show (8 B, 64 B, ... 8 GiB for a full
// nccl-tests sweep), with unlabelled minor ticks at the powers between.
// A range narrower than one power of two falls back to linear ticks.
func powerOfTwoTicks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return nil
	}
	lo := int(math.Ceil(math.Log2(min) - 1e-9))
	hi := int(math.Floor(math.Log2(max) + 1e-9))
	if hi-lo < 1 {
		return relabel(formatBytes).Ticks(min, max)
	}
	step := 1
	for _, s := range []int{1, 2, 3, 4, 5, 10, 20} {
		step = s
		if (hi-lo)/s+1 <= 11 {
			break
		}
	}
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		v := math.Ldexp(1, e)
		t := plot.Tick{Value: v}
		if (e-lo)%step == 0 {
			t.Label = formatBytes(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// decadeTicks labels a log axis at powers of ten (and at 2 and 5 times
// them when the range spans at most four decades), with minor ticks at the
// other integer multiples.
func decadeTicks(min, max float64, f func(float64) string) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return nil
	}
	// Up to four decades there is room to label 2 and 5 times each power
	// too, so that the ends of the range have labels near them.
	return decadeTicksWith(min, max, math.Log10(max/min) <= 4, f)
}

// decadeTicksWith is decadeTicks with the choice of labelling 2 and 5
// times each power made by the caller (fitLog10 makes it from the data).
func decadeTicksWith(min, max float64, dense bool, f func(float64) string) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return nil
	}
	lo := int(math.Floor(math.Log10(min)))
	hi := int(math.Ceil(math.Log10(max)))
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		base := math.Pow(10, float64(e))
		for m := 1; m <= 9; m++ {
			v := float64(m) * base
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || (dense && (m == 2 || m == 5)) {
				t.Label = f(v)
			}
			ticks = append(ticks, t)
		}
	}
	// A range inside one decade may hold no labelled tick at all.
	labelled := 0
	for _, t := range ticks {
		if t.Label != "" {
			labelled++
		}
	}
	if labelled < 2 {
		ticks = append(ticks[:0], plot.Tick{Value: min, Label: f(min)}, plot.Tick{Value: max, Label: f(max)})
	}
	return ticks
}

// niceTicks labels about n evenly spaced round values (1, 2 or 5 times a
// power of ten apart) between min and max.
func niceTicks(min, max float64, n int, f func(float64) string) []plot.Tick {
	if !(max > min) || n < 1 {
		return nil
	}
	raw := (max - min) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		step = m * mag
		if step >= raw {
			break
		}
	}
	var ticks []plot.Tick
	for v := math.Ceil(min/step) * step; v <= max+step*1e-9; v += step {
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: f(v)})
	}
	return ticks
}
