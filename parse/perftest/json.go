package perftest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/commlab/commlab/parse"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ParseJSON reads the file perftest writes with --out_json. Both the
// strict JSON of current releases and the unquoted, trailing-comma form of
// older ones (linux-rdma/perftest issue #216) are accepted.
func ParseJSON(r io.Reader) (*Report, error) {
	rep := newReport("json")
	data, err := io.ReadAll(r)
	if err != nil {
		return rep, fmt.Errorf("perftest: read: %w", err)
	}
	sections, derr := decodeSections(data)
	if derr != nil && (errors.Is(derr, parse.ErrFormat) || len(sections) == 0) {
		return rep, derr
	}
	info, hasInfo := sections["test_info"]
	if hasInfo {
		for _, k := range slices.Sorted(maps.Keys(info)) {
			v := info[k]
			if rep.Settings == nil {
				rep.Settings = map[string]string{}
			}
			rep.Settings[k] = v
			applySetting(rep, k, v)
		}
		if t := info["test"]; t != "" {
			// "RDMA_Write_Latency_Test" -> "RDMA_Write Latency Test", the
			// title the text report prints.
			rep.Title = strings.ReplaceAll(t, "_", " ")
			if rest, ok := strings.CutPrefix(t, "RDMA_"); ok {
				rep.Title = "RDMA_" + strings.ReplaceAll(rest, "_", " ")
			}
			rep.Verb = verbOf(t)
			rep.Bidirectional = strings.Contains(t, "Bidirectional")
			switch {
			case strings.Contains(t, "Latency"):
				rep.Kind = "latency"
			case strings.Contains(t, "BW"):
				rep.Kind = "bandwidth"
			}
		}
	}
	found := false
	for _, name := range []string{"results", "results_local", "results_remote"} {
		res, ok := sections[name]
		if !ok {
			continue
		}
		found = true
		side := strings.TrimPrefix(strings.TrimPrefix(name, "results"), "_")
		if err := addJSONResult(rep, res, side); err != nil {
			return rep, err
		}
	}
	inferUnit(rep)
	if derr != nil {
		return rep, derr
	}
	if !hasInfo && !found {
		return rep, &parse.Error{Format: "perftest", Msg: "JSON has neither test_info nor results", Err: parse.ErrFormat}
	}
	if !found {
		return rep, &parse.Error{Format: "perftest", Msg: "JSON has test_info but no results section", Err: ErrTruncated}
	}
	return rep, nil
}

func addJSONResult(rep *Report, res map[string]string, side string) error {
	num := func(key string) (float64, bool) {
		s, ok := res[key]
		if !ok {
			return 0, false
		}
		v, err := strconv.ParseFloat(strings.Trim(s, `"`), 64)
		return v, err == nil
	}
	size, _ := num("MsgSize")
	iters, _ := num("n_iterations")
	if avg, ok := num("BW_average"); ok {
		if rep.Kind == "" {
			rep.Kind = "bandwidth"
		}
		peak, _ := num("BW_peak")
		rate, _ := num("MsgRate")
		b := Bandwidth{Bytes: int64(size), Iterations: int64(iters), Peak: peak, Average: avg, MsgRateMpps: rate, ServiceLevel: -1, Side: side}
		if cpu, ok := num("CPU_util"); ok {
			b.CPUUtil = cpu
		}
		rep.Bandwidth = append(rep.Bandwidth, b)
		return nil
	}
	if _, ok := num("t_avg"); ok {
		if rep.Kind == "" {
			rep.Kind = "latency"
		}
		rep.LatencyUnit = "usec"
		l := Latency{Bytes: int64(size), Iterations: int64(iters)}
		l.Min, _ = num("t_min")
		l.Max, _ = num("t_max")
		l.Typical, _ = num("t_typical")
		l.Average, _ = num("t_avg")
		l.Stdev, _ = num("t_stdev")
		l.P99, _ = num("percentile_99")
		l.P999, _ = num("percentile_99.9")
		if tps, ok := num("tps_average"); ok {
			l.Duration, l.TPSAverage = true, tps
		}
		rep.Latency = append(rep.Latency, l)
		return nil
	}
	return &parse.Error{Format: "perftest", Msg: "results section has neither BW_average nor t_avg", Err: ErrMalformed}
}

// inferUnit works out the unit a JSON report used: perftest computes
// BW_average = size x msgRate x 1e6 / factor, so the factor names the unit.
func inferUnit(rep *Report) {
	for _, b := range rep.Bandwidth {
		if b.Average <= 0 || b.MsgRateMpps <= 0 || b.Bytes <= 0 {
			continue
		}
		factor := float64(b.Bytes) * b.MsgRateMpps * 1e6 / b.Average
		switch {
		case math.Abs(factor/BytesPerMB-1) < 0.1:
			rep.Unit = "MiB/sec"
		case math.Abs(factor/BytesPerGb-1) < 0.1:
			rep.Unit = "Gb/sec"
		default:
			continue
		}
		rep.UnitInferred = true
		rep.BytesPerUnit = UnitBytesPerSecond(rep.Unit)
		break
	}
	for i := range rep.Bandwidth {
		rep.Bandwidth[i].PeakBytesPerSecond = rep.Bandwidth[i].Peak * rep.BytesPerUnit
		rep.Bandwidth[i].AverageBytesPerSecond = rep.Bandwidth[i].Average * rep.BytesPerUnit
	}
}

// decodeSections returns the two-level object perftest writes as
// section -> key -> value text.
func decodeSections(data []byte) (map[string]map[string]string, error) {
	var strict map[string]map[string]json.RawMessage
	if err := json.Unmarshal(data, &strict); err == nil {
		out := map[string]map[string]string{}
		for sec, kv := range strict {
			m := map[string]string{}
			for k, raw := range kv {
				var s string
				if json.Unmarshal(raw, &s) == nil {
					m[k] = s
				} else {
					m[k] = string(bytes.TrimSpace(raw))
				}
			}
			out[sec] = m
		}
		return out, nil
	}
	return decodeLenient(data)
}

// decodeLenient reads perftest's line-per-key output whether or not keys
// and values are quoted and whether or not trailing commas are present.
func decodeLenient(data []byte) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	line, depth := 0, 0
	var cur map[string]string
	opened := false
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		s = strings.TrimSuffix(s, ",")
		s = strings.TrimSpace(s)
		switch {
		case s == "":
			continue
		case s == "{":
			if depth != 0 {
				return out, &parse.Error{Format: "perftest", Line: line, Msg: "unexpected '{'", Err: ErrMalformed}
			}
			depth, opened = 1, true
			continue
		case s == "}":
			if depth == 0 {
				return out, &parse.Error{Format: "perftest", Line: line, Msg: "unexpected '}'", Err: ErrMalformed}
			}
			depth--
			cur = nil
			continue
		}
		if !opened {
			return out, &parse.Error{Format: "perftest", Line: line, Msg: fmt.Sprintf("not perftest JSON: %q", parse.Clip(s, 80)), Err: parse.ErrFormat}
		}
		i := strings.Index(s, ":")
		if i <= 0 {
			kind := ErrMalformed
			if len(bytes.TrimSpace(data[consumed(data, line):])) == 0 {
				kind = ErrTruncated // the last line was cut
			}
			return out, &parse.Error{Format: "perftest", Line: line, Msg: fmt.Sprintf("want \"key: value\", got %q", parse.Clip(s, 80)), Err: kind}
		}
		key := strings.Trim(strings.TrimSpace(s[:i]), `"`)
		val := strings.TrimSpace(s[i+1:])
		switch {
		case val == "{":
			if depth != 1 {
				return out, &parse.Error{Format: "perftest", Line: line, Msg: "perftest JSON nests only one level", Err: ErrMalformed}
			}
			cur = map[string]string{}
			out[key] = cur
			depth = 2
		case depth == 2:
			cur[key] = strings.Trim(val, `"`)
		default:
			return out, &parse.Error{Format: "perftest", Line: line, Msg: fmt.Sprintf("value %q outside a section", parse.Clip(s, 80)), Err: ErrMalformed}
		}
	}
	if err := sc.Err(); err != nil {
		return out, &parse.Error{Format: "perftest", Line: line + 1, Msg: err.Error(), Err: ErrMalformed}
	}
	if !opened {
		return out, &parse.Error{Format: "perftest", Line: line, Msg: "no JSON object", Err: parse.ErrFormat}
	}
	if depth != 0 {
		return out, &parse.Error{Format: "perftest", Line: line, Msg: "JSON ends inside an object", Err: ErrTruncated}
	}
	return out, nil
}

// consumed returns the byte offset just past the given 1-based line.
func consumed(data []byte, line int) int {
	off := 0
	for n := 0; n < line; n++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return len(data)
		}
		off += i + 1
	}
	return off
}
