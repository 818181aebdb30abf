package fit

import (
	"bufio"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestFitExactLine(t *testing.T) {
	const alpha, beta = 5e-6, 25e9
	var s []Sample
	for b := 1e3; b <= 1e9; b *= 4 {
		s = append(s, Sample{Bytes: b, Seconds: alpha + b/beta})
	}
	for _, f := range []func([]Sample) (Result, error){Fit, FitRelative} {
		r, err := f(s)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Alpha-alpha) > 1e-12 || math.Abs(r.Beta-beta)/beta > 1e-9 || r.R2 < 1-1e-12 {
			t.Errorf("weighted=%v: alpha %g beta %g R2 %g", r.Weighted, r.Alpha, r.Beta, r.R2)
		}
		if r.MaxRelative > 1e-9 || r.AlphaStdErr > 1e-12 || len(r.Residuals) != len(s) {
			t.Errorf("weighted=%v: residuals %g, se %g", r.Weighted, r.MaxRelative, r.AlphaStdErr)
		}
	}
}

// A line with +-2% alternating error: the relative fit finds alpha and
// beta within a few standard errors, and the standard errors are neither
// zero nor larger than the values.
func TestFitNoisyLineUncertainty(t *testing.T) {
	const alpha, beta = 20e-6, 40e9
	var s []Sample
	sign := 1.0
	for b := 8.0; b <= 8e9; b *= 2 {
		s = append(s, Sample{Bytes: b, Seconds: (alpha + b/beta) * (1 + 0.02*sign)})
		sign = -sign
	}
	r, err := FitRelative(s)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Alpha-alpha) > 4*r.AlphaStdErr || math.Abs(r.Beta-beta) > 4*r.BetaStdErr {
		t.Errorf("alpha %g +- %g, beta %g +- %g", r.Alpha, r.AlphaStdErr, r.Beta, r.BetaStdErr)
	}
	if r.AlphaStdErr <= 0 || r.AlphaStdErr > alpha/5 || r.BetaStdErr <= 0 || r.BetaStdErr > beta/5 {
		t.Errorf("standard errors %g %g", r.AlphaStdErr, r.BetaStdErr)
	}
	if r.MaxRelative < 0.015 || r.MaxRelative > 0.05 {
		t.Errorf("max relative residual %g, want about 2%%", r.MaxRelative)
	}
	// Unweighted, the small sizes barely count: alpha is far less certain.
	u, err := Fit(s)
	if err != nil {
		t.Fatal(err)
	}
	if u.AlphaStdErr < 10*r.AlphaStdErr {
		t.Errorf("plain fit alpha se %g should dwarf relative %g", u.AlphaStdErr, r.AlphaStdErr)
	}
}

func readRows(t *testing.T, path string) []NCCLTestsRow {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var rows []NCCLTestsRow
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		b, err1 := strconv.ParseFloat(f[0], 64)
		us, err2 := strconv.ParseFloat(f[1], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad line %q", sc.Text())
		}
		rows = append(rows, NCCLTestsRow{Bytes: b, TimeUs: us})
	}
	return rows
}

// Public rows from NVIDIA/nccl-tests#232: two ranks over the network with
// Tree, where busbw = algbw (factor 2(n-1)/n = 1) and reached ~41 GB/s at
// 32 MiB. The fit's asymptote must lie above the best measured busbw and
// its latency within the range such a 2-node setup shows (tens of us).
func TestFitNCCLTestsPublicRows(t *testing.T) {
	rows := readRows(t, "testdata/nccl-tests_issue232_rows.txt")
	r, err := FitNCCLTests(rows, 1)
	if err != nil {
		t.Fatal(err)
	}
	best := 0.0
	for _, row := range rows {
		best = math.Max(best, row.Bytes/(row.TimeUs*1e-6))
	}
	if r.Beta < best || r.Beta > 1.5*best {
		t.Errorf("beta %g GB/s, best measured %g GB/s", r.Beta/1e9, best/1e9)
	}
	if r.Alpha < 10e-6 || r.Alpha > 100e-6 || r.N != 5 || r.Residuals[0].Bytes != 2097152 {
		t.Errorf("alpha %g us, %+v", r.Alpha*1e6, r)
	}
	if r.MaxRelative > 0.2 {
		t.Errorf("residuals up to %g", r.MaxRelative)
	}
}

func TestFitErrors(t *testing.T) {
	good := []Sample{{1, 1}, {2, 2}, {3, 3}}
	tests := []struct {
		s    []Sample
		want error
	}{
		{good[:2], ErrTooFewSamples},
		{[]Sample{{1, 1}, {1, 2}, {1, 3}}, ErrDegenerate},
		{[]Sample{{1, 3}, {2, 2}, {3, 1}}, ErrDegenerate},
		{[]Sample{{1, 1}, {2, math.NaN()}, {3, 3}}, ErrSample},
		{[]Sample{{-1, 1}, {2, 2}, {3, 3}}, ErrSample},
	}
	for i, tt := range tests {
		if _, err := Fit(tt.s); !errors.Is(err, tt.want) {
			t.Errorf("case %d: %v, want %v", i, err, tt.want)
		}
	}
	if _, err := FitRelative([]Sample{{1, 0}, {2, 2}, {3, 3}}); !errors.Is(err, ErrSample) {
		t.Errorf("zero time, relative: %v", err)
	}
	if _, err := FitNCCLTests([]NCCLTestsRow{{1, 1}, {2, 2}, {3, 3}}, -1); !errors.Is(err, ErrSample) {
		t.Errorf("negative factor: %v", err)
	}
	if err := func() error { _, e := Fit(nil); return e }(); !strings.HasPrefix(err.Error(), "fit: ") {
		t.Errorf("error prefix: %v", err)
	}
}
