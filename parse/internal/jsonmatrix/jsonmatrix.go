// Package jsonmatrix writes the parsers' matrices of measurements to JSON.
// A matrix marks a cell the tool left empty ("N/A", a missing column) with
// NaN, which JSON cannot hold; the matrices of nvbandwidth and of the CUDA
// samples are written with those cells as null, one way for both.
package jsonmatrix

import "math"

// WithNulls returns m with every NaN or infinite cell as nil and every
// other cell pointing to its value. The result has m's shape, and is an
// empty (not nil) slice for an empty m, so it is written as [] and never
// as null.
func WithNulls(m [][]float64) [][]*float64 {
	out := make([][]*float64, len(m))
	for r, row := range m {
		out[r] = make([]*float64, len(row))
		for c := range row {
			if v := row[c]; !math.IsNaN(v) && !math.IsInf(v, 0) {
				out[r][c] = &v
			}
		}
	}
	return out
}
