package nccltests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
)

// The JSON file nccl-tests writes with -J (src/util.cu, JSON_FILE_VERSION
// 2): an object with version, start_time, args, env, nccl_version, config
// (with devices), results (one object per row), out_of_bounds,
// average_bus_bandwidth, errors and end_time. Doubles that are NaN are
// written as the string "nan", booleans as the strings "true"/"false", the
// root as a padded string ("    -1"); a crashed run leaves the file cut
// short, so the document is read token by token and every complete row is
// kept.

// flexFloat accepts a JSON number, null, or a string holding a number or
// "nan"/"inf".
type flexFloat struct {
	v     float64
	null  bool
	isSet bool
	// nan is set for "nan"/"inf": v stays 0 so the result still encodes
	// as JSON.
	nan bool
}

func (f *flexFloat) UnmarshalJSON(b []byte) error {
	f.isSet = true
	s := strings.TrimSpace(string(b))
	if s == "null" {
		f.null = true
		return nil
	}
	s = strings.Trim(s, `"`)
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "nan", "-nan", "inf", "+inf", "-inf":
		f.nan = true
		return nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return fmt.Errorf("%w: %q is not a number", ErrMalformed, s)
	}
	f.v = v
	return nil
}

// flexString accepts a string, number or boolean and keeps its text.
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*f = flexString(s)
		return nil
	}
	*f = flexString(strings.TrimSpace(string(b)))
	return nil
}

type jsonHalf struct {
	Time    *flexFloat `json:"time"`
	CPUTime *flexFloat `json:"cpu_time"`
	AlgBW   flexFloat  `json:"alg_bw"`
	BusBW   flexFloat  `json:"bus_bw"`
	NWrong  flexFloat  `json:"nwrong"`
}

type jsonPerIter struct {
	MinUs flexFloat `json:"min_us"`
	MaxUs flexFloat `json:"max_us"`
	P99Us flexFloat `json:"p99_us"`
	CVPct flexFloat `json:"cv_pct"`
}

type jsonRow struct {
	Size        int64        `json:"size"`
	Count       int64        `json:"count"`
	Type        string       `json:"type"`
	RedOp       string       `json:"redop"`
	Root        flexString   `json:"root"`
	OutOfPlace  *jsonHalf    `json:"out_of_place"`
	InPlace     *jsonHalf    `json:"in_place"`
	OOPPerIter  *jsonPerIter `json:"out_of_place_per_iter"`
	IPPerIter   *jsonPerIter `json:"in_place_per_iter"`
	ActualIters int          `json:"actual_iterations"`
	Experiment  string       `json:"experiment_name"`
}

type jsonDevice struct {
	Rank       int    `json:"rank"`
	Group      int    `json:"group"`
	PID        int    `json:"pid"`
	Hostname   string `json:"hostname"`
	Device     int    `json:"device"`
	DeviceHex  string `json:"device_hex"`
	DeviceInfo string `json:"device_info"`
}

type jsonConfig struct {
	NThreads     int          `json:"nthreads"`
	NGpus        int          `json:"ngpus"`
	MinimumBytes int64        `json:"minimum_bytes"`
	MaximumBytes int64        `json:"maximum_bytes"`
	StepFactor   int64        `json:"step_factor"`
	StepBytes    int64        `json:"step_bytes"`
	WarmupIters  int          `json:"warmup_iters"`
	Iterations   int          `json:"iterations"`
	AggIters     int          `json:"aggregated_iterations"`
	Validation   int          `json:"validation"`
	Graph        int          `json:"graph"`
	Devices      []jsonDevice `json:"devices"`
}

type jsonOOB struct {
	Count int        `json:"count"`
	Okay  flexString `json:"okay"`
}

type jsonAvg struct {
	Bandwidth flexFloat  `json:"bandwidth"`
	Okay      flexString `json:"okay"`
}

// ParseJSON reads the file nccl-tests writes with -J. A file cut short
// (the benchmark crashed) yields the rows that were complete and an error
// wrapping ErrTruncated that names the line.
func ParseJSON(r io.Reader) (*Result, error) {
	res, err := parseJSON(r)
	for i := range res.Runs {
		res.Runs[i].infer()
	}
	return res, err
}

func parseJSON(r io.Reader) (*Result, error) {
	data, err := io.ReadAll(r)
	res := &Result{Format: "json"}
	if err != nil {
		return res, fmt.Errorf("nccltests: read: %w", err)
	}
	res.Runs = []Run{{StartLine: 1}}
	run := &res.Runs[0]
	dec := json.NewDecoder(bytes.NewReader(data))
	lineAt := func() int { return 1 + bytes.Count(data[:min(int(dec.InputOffset()), len(data))], []byte("\n")) }
	fail := func(err error) (*Result, error) {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = fmt.Errorf("%w: JSON document ends early: %w", ErrTruncated, err)
		} else if !errors.Is(err, ErrMalformed) {
			err = fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		return res, &parse.Error{Format: "nccltests", Line: lineAt(), Err: err}
	}
	tok, err := dec.Token()
	if err != nil {
		return fail(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return res, &parse.Error{Format: "nccltests", Line: lineAt(), Msg: "no nccl-tests output found: JSON does not start with an object", Err: parse.ErrFormat}
	}
	sawResults := false
	for dec.More() {
		keyTok, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		key, _ := keyTok.(string)
		switch key {
		case "results":
			sawResults = true
			if err := readRows(dec, run); err != nil {
				return fail(err)
			}
		case "config":
			var c jsonConfig
			if err := dec.Decode(&c); err != nil {
				return fail(err)
			}
			run.Params = Params{NThread: c.NThreads, NGpus: c.NGpus, MinBytes: c.MinimumBytes, MaxBytes: c.MaximumBytes,
				StepFactor: c.StepFactor, StepBytes: c.StepBytes, WarmupIters: c.WarmupIters, Iters: c.Iterations,
				AggIters: c.AggIters, Validation: c.Validation, Graph: c.Graph}
			for _, d := range c.Devices {
				run.Devices = append(run.Devices, Device{Rank: d.Rank, Group: d.Group, PID: d.PID, Host: d.Hostname,
					CUDADev: d.Device, BusID: d.DeviceHex, Name: d.DeviceInfo})
			}
		case "args":
			var args []string
			if err := dec.Decode(&args); err != nil {
				return fail(err)
			}
			if len(args) > 0 {
				run.setProgram(args[0])
			}
		case "nccl_version":
			var v flexFloat
			if err := dec.Decode(&v); err != nil {
				return fail(err)
			}
			run.NCCLLibrary = int(v.v)
		case "out_of_bounds":
			var o jsonOOB
			if err := dec.Decode(&o); err != nil {
				return fail(err)
			}
			run.HasFooter = true
			run.OutOfBounds = o.Count
			run.OutOfBoundsOK = o.Okay == "true"
		case "average_bus_bandwidth":
			var a jsonAvg
			if err := dec.Decode(&a); err != nil {
				return fail(err)
			}
			run.HasFooter = true
			run.AvgBusBW = a.Bandwidth.v
			switch a.Okay {
			case "true":
				run.AvgBusBWVerdict = "OK"
			case "false":
				run.AvgBusBWVerdict = "FAILED"
			}
		case "errors":
			var errs []string
			if err := dec.Decode(&errs); err != nil {
				return fail(err)
			}
			run.Errors = append(run.Errors, errs...)
		default: // version, start_time, env, end_time, and keys added later
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return fail(err)
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return fail(err)
	}
	if !sawResults {
		return res, &parse.Error{Format: "nccltests", Line: lineAt(), Msg: "no nccl-tests output found: JSON has no \"results\" list", Err: parse.ErrFormat}
	}
	if !run.HasFooter {
		return res, &parse.Error{Format: "nccltests", Line: lineAt(), Err: fmt.Errorf("%w: no average_bus_bandwidth after the results", ErrTruncated)}
	}
	return res, nil
}

func readRows(dec *json.Decoder, run *Run) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("%w: \"results\" is not a list", ErrMalformed)
	}
	for dec.More() {
		var jr jsonRow
		if err := dec.Decode(&jr); err != nil {
			return err
		}
		row := Row{SizeBytes: jr.Size, Count: jr.Count, Type: jr.Type, RedOp: jr.RedOp, Root: -1}
		if v, err := strconv.Atoi(strings.TrimSpace(string(jr.Root))); err == nil {
			row.Root = v
		}
		row.OutOfPlace = halfFromJSON(jr.OutOfPlace, jr.OOPPerIter)
		row.InPlace = halfFromJSON(jr.InPlace, jr.IPPerIter)
		if run.Program == "" && jr.Experiment != "" {
			run.setProgram(jr.Experiment)
		}
		run.Rows = append(run.Rows, row)
	}
	_, err = dec.Token() // ']'
	return err
}

func halfFromJSON(h *jsonHalf, it *jsonPerIter) Measurement {
	if h == nil {
		return Measurement{}
	}
	m := Measurement{Present: true, AlgBW: h.AlgBW.v, BusBW: h.BusBW.v}
	switch {
	case h.Time != nil:
		m.TimeUs = h.Time.v
	case h.CPUTime != nil:
		m.TimeUs = h.CPUTime.v
		m.CPUTime = true
	}
	if h.NWrong.null || !h.NWrong.isSet {
		m.WrongNA = true
	} else {
		m.Wrong = h.NWrong.v
	}
	m.NotANumber = h.AlgBW.nan || h.BusBW.nan || (h.Time != nil && h.Time.nan) || (h.CPUTime != nil && h.CPUTime.nan)
	if it != nil {
		m.IterMinUs, m.IterMaxUs, m.IterP99Us, m.IterCVPct = it.MinUs.v, it.MaxUs.v, it.P99Us.v, it.CVPct.v
	}
	return m
}
