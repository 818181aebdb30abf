package doctor

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/commlab/commlab/parse/nccltests"
	"github.com/commlab/commlab/probes"
)

// This file holds the curve doctor's input: the busbw curves of one file,
// nccl-tests output (text or JSON, every run in it) or a commlab run saved
// with --save (probe nccl, probe nccl-tests, probe torch).

// NamedCurve is one curve read from a file, with the name messages give it.
type NamedCurve struct {
	Name  string
	Curve Curve
	// run is the nccl-tests run it was read from, nil for a commlab run:
	// told its collective later (--coll), it gives the rank count too.
	run *nccltests.Run
}

// ReadCurves reads the curves in data, the content of the input called
// name: every nccl-tests run with rows, or the samples of collective coll
// (in place or not) of a commlab run. A file with no curve is ErrNoCurve.
func ReadCurves(name string, data []byte, coll string, inPlace bool) ([]NamedCurve, error) {
	if looksLikeRun(data) {
		run, err := probes.ReadRun(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		c, err := CurveFromRun(run, coll, inPlace)
		if err != nil {
			return nil, err
		}
		return []NamedCurve{{Name: name, Curve: c}}, nil
	}
	res, err := nccltests.Parse(bytes.NewReader(data))
	if err != nil && (res == nil || len(res.Runs) == 0) {
		return nil, err
	}
	var out []NamedCurve
	for i := range res.Runs {
		c, cerr := CurveFromNCCLTests(&res.Runs[i])
		if cerr != nil {
			continue
		}
		n := name
		if len(res.Runs) > 1 {
			n = fmt.Sprintf("%s (run %d)", name, i+1)
		}
		out = append(out, NamedCurve{Name: n, Curve: c, run: &res.Runs[i]})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w (no nccl-tests rows, no commlab run)", name, ErrNoCurve)
	}
	return out, nil
}

// looksLikeRun says whether data is a commlab run's JSON: an object with
// "kind" and "samples", which nccl-tests' own JSON does not have.
func looksLikeRun(data []byte) bool {
	var probe struct {
		Kind    *string          `json:"kind"`
		Samples *json.RawMessage `json:"samples"`
	}
	return json.Unmarshal(data, &probe) == nil && probe.Kind != nil && probe.Samples != nil
}
