package fit

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// ErrTooFewSamples is returned when fewer than three usable samples are
// given: two points fit exactly and leave no estimate of the error.
var ErrTooFewSamples = errors.New("fit: need at least 3 samples")

// ErrDegenerate is returned when the samples cannot determine alpha and
// beta: every size is the same, or time does not grow with size.
var ErrDegenerate = errors.New("fit: samples do not determine alpha and beta")

// ErrSample is returned (wrapped, naming the sample) for a sample with a
// negative, infinite or NaN size or time.
var ErrSample = errors.New("fit: bad sample")

// Sample is one measurement: a message of Bytes took Seconds.
type Sample struct {
	Bytes   float64
	Seconds float64
}

// Residual compares one sample with the fitted line.
type Residual struct {
	Bytes     float64
	Measured  float64 // seconds
	Predicted float64 // seconds
	// Residual = Measured - Predicted (seconds); Relative = Residual/Measured.
	Residual float64
	Relative float64
}

// Result is a fitted alpha-beta model.
type Result struct {
	// Alpha in seconds and Beta in bytes/s, with their standard errors.
	Alpha       float64
	AlphaStdErr float64
	Beta        float64
	BetaStdErr  float64
	// R2 is the coefficient of determination of the (weighted) fit.
	R2 float64
	// N is the number of samples used; Weighted says whether each was
	// weighted by 1/T^2.
	N         int
	Weighted  bool
	Residuals []Residual
	// MaxRelative is the largest |Relative| residual.
	MaxRelative float64
}

// Time returns the fitted Alpha + bytes/Beta in seconds.
func (r Result) Time(bytes float64) float64 { return r.Alpha + bytes/r.Beta }

// Fit fits T = alpha + S/beta by ordinary least squares. Large messages
// dominate such a fit; use FitRelative when sizes span many decades.
func Fit(samples []Sample) (Result, error) { return fit(samples, false) }

// FitRelative fits T = alpha + S/beta minimising relative residuals
// (weights 1/T^2), so a 10 us point counts as much as a 10 ms one.
func FitRelative(samples []Sample) (Result, error) { return fit(samples, true) }

func fit(samples []Sample, relative bool) (Result, error) {
	for i, s := range samples {
		if !(s.Bytes >= 0) || !(s.Seconds >= 0) || math.IsInf(s.Bytes, 0) || math.IsInf(s.Seconds, 0) {
			return Result{}, fmt.Errorf("%w: sample %d: %v bytes in %v s", ErrSample, i, s.Bytes, s.Seconds)
		}
		if relative && s.Seconds == 0 {
			return Result{}, fmt.Errorf("%w: sample %d: zero time cannot be weighted by 1/T^2", ErrSample, i)
		}
	}
	n := len(samples)
	if n < 3 {
		return Result{}, fmt.Errorf("%w, got %d", ErrTooFewSamples, n)
	}
	x := make([]float64, n)
	y := make([]float64, n)
	var w []float64
	if relative {
		w = make([]float64, n)
	}
	for i, s := range samples {
		x[i], y[i] = s.Bytes, s.Seconds
		if relative {
			w[i] = 1 / (s.Seconds * s.Seconds)
		}
	}
	// y = a + b x with b = 1/beta.
	a, b := stat.LinearRegression(x, y, w, false)
	sw, xbar := 0.0, 0.0
	for i := range x {
		wi := weight(w, i)
		sw += wi
		xbar += wi * x[i]
	}
	xbar /= sw
	sxx, ssr := 0.0, 0.0
	for i := range x {
		wi := weight(w, i)
		d := x[i] - xbar
		sxx += wi * d * d
		r := y[i] - (a + b*x[i])
		ssr += wi * r * r
	}
	if sxx == 0 {
		return Result{}, fmt.Errorf("%w: every sample has the same size", ErrDegenerate)
	}
	if !(b > 0) {
		return Result{}, fmt.Errorf("%w: time does not grow with size (slope %g s/B)", ErrDegenerate, b)
	}
	s2 := ssr / float64(n-2)
	seB := math.Sqrt(s2 / sxx)
	seA := math.Sqrt(s2 * (1/sw + xbar*xbar/sxx))
	res := Result{
		Alpha: a, AlphaStdErr: seA,
		Beta: 1 / b, BetaStdErr: seB / (b * b), // delta method: d(1/b) = db/b^2
		R2: stat.RSquared(x, y, w, a, b), N: n, Weighted: relative,
	}
	for i := range x {
		pred := a + b*x[i]
		r := Residual{Bytes: x[i], Measured: y[i], Predicted: pred, Residual: y[i] - pred}
		if y[i] != 0 {
			r.Relative = r.Residual / y[i]
		}
		res.MaxRelative = math.Max(res.MaxRelative, math.Abs(r.Relative))
		res.Residuals = append(res.Residuals, r)
	}
	return res, nil
}

func weight(w []float64, i int) float64 {
	if w == nil {
		return 1
	}
	return w[i]
}

// NCCLTestsRow is one row of nccl-tests output as numbers: the size
// column in bytes and the time column in microseconds (out-of-place or
// in-place, whichever the caller chose).
type NCCLTestsRow struct {
	Bytes  float64
	TimeUs float64
}

// FitNCCLTests fits rows of one nccl-tests sweep. busFactor is the
// collective's busbw factor (costmodel.BusBWFactor; 2(n-1)/n for
// all_reduce): sizes are scaled by it so that Beta comes out as the
// asymptotic bus bandwidth, the number comparable to a link, and Alpha as
// the whole operation's latency. busFactor 0 means 1 (fit algbw). The fit
// is relative (FitRelative), since nccl-tests sizes span many decades.
func FitNCCLTests(rows []NCCLTestsRow, busFactor float64) (Result, error) {
	if busFactor == 0 {
		busFactor = 1
	}
	if !(busFactor > 0) || math.IsInf(busFactor, 0) {
		return Result{}, fmt.Errorf("%w: bus factor %v", ErrSample, busFactor)
	}
	samples := make([]Sample, len(rows))
	for i, r := range rows {
		samples[i] = Sample{Bytes: r.Bytes * busFactor, Seconds: r.TimeUs * 1e-6}
	}
	res, err := FitRelative(samples)
	if err != nil {
		return res, err
	}
	for i := range res.Residuals {
		res.Residuals[i].Bytes = rows[i].Bytes // report the size nccl-tests printed
	}
	return res, nil
}
