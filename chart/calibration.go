package chart

import (
	"math"

	"github.com/commlab/commlab/costmodel"
)

// Calibration draws the calibrated model against published measurements,
// one point per row: the model's error (Model/Measured - 1, in %) against
// the row's message size, a series per size regime (small rows judged by
// time, middle and large by bus bandwidth) and the known misses apart,
// with the regimes' limits as reference lines. Rows without a model
// figure (a collective the model has no terms for) are left out of the
// picture; the table lists them.
func Calibration(title string, rows costmodel.CalibrationRows) (*Chart, error) {
	groups := []struct{ name, regime, color string }{
		{"small (time, limit 30%)", "small", ""},
		{"middle (busbw, limit 20%)", "middle", ""},
		{"large (busbw, limit 10%)", "large", ""},
	}
	var series []Series
	misses := Series{Name: "known misses"}
	for _, g := range groups {
		s := Series{Name: g.name}
		for _, r := range rows {
			if r.Regime != g.regime || math.IsNaN(r.Error) {
				continue
			}
			if r.Expected == "known-miss" {
				continue
			}
			s.X, s.Y = append(s.X, r.Bytes), append(s.Y, 100*r.Error)
		}
		if len(s.X) > 0 {
			series = append(series, s)
		}
	}
	for _, r := range rows {
		if r.Expected == "known-miss" && !math.IsNaN(r.Error) {
			misses.X, misses.Y = append(misses.X, r.Bytes), append(misses.Y, 100*r.Error)
		}
	}
	if len(misses.X) > 0 {
		series = append(series, misses)
	}
	c, err := Scatter(title, Axis{Label: "Message size", Unit: UnitBytes, Log: true},
		Axis{Label: "Model against measured", Unit: "%"}, series...)
	if err != nil {
		return nil, err
	}
	for _, l := range []struct {
		y     float64
		label string
	}{{0, "model = measured"}, {10, "+10%"}, {-10, "-10%"}, {30, "+30%"}, {-30, "-30%"}} {
		if err := c.AddHLine(l.y, l.label); err != nil {
			return nil, err
		}
	}
	return c, nil
}
