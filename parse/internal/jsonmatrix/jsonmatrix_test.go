package jsonmatrix

import (
	"encoding/json"
	"math"
	"testing"
)

func TestWithNulls(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    [][]float64
		want string
	}{
		{"nil", nil, `[]`},
		{"values", [][]float64{{1, 2.5}, {-3, 0}}, `[[1,2.5],[-3,0]]`},
		{"nan and inf", [][]float64{{math.NaN(), 1}, {math.Inf(1), math.Inf(-1)}}, `[[null,1],[null,null]]`},
		{"ragged", [][]float64{{1}, {}, {2, math.NaN(), 3}}, `[[1],[],[2,null,3]]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(WithNulls(tc.m))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("got %s, want %s", b, tc.want)
			}
		})
	}
}
