package flightrec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
)

// Sentinel errors callers can branch on with errors.Is.
var (
	// ErrTruncated means the dump ends early; the entries before the cut
	// are kept.
	ErrTruncated = errors.New("flightrec: truncated dump")
	// ErrMalformed means the dump could not be decoded.
	ErrMalformed = errors.New("flightrec: malformed dump")
	// ErrNotDump means the input is not a Flight Recorder dump at all
	// (another JSON file, a log, a stack); it wraps parse.ErrFormat.
	ErrNotDump = fmt.Errorf("flightrec: not a Flight Recorder dump: %w", parse.ErrFormat)
)

// Entry states as Flight Recorder writes them.
const (
	StateScheduled = "scheduled"
	StateStarted   = "started"
	StateCompleted = "completed"
)

// Frame is one Python stack frame recorded with an entry.
type Frame struct {
	Name     string `json:"name"`
	Filename string `json:"filename"`
	Line     int    `json:"line"`
}

// Entry is one recorded collective or point-to-point operation.
type Entry struct {
	RecordID int64 `json:"record_id"`
	PGID     int64 `json:"pg_id"`
	// PGName and PGDesc come from the entry's process_group tuple.
	PGName          string `json:"pg_name"`
	PGDesc          string `json:"pg_desc,omitempty"`
	CollectiveSeqID int64  `json:"collective_seq_id"`
	P2PSeqID        int64  `json:"p2p_seq_id"`
	OpID            int64  `json:"op_id"`
	// ProfilingName is as recorded ("nccl:all_reduce", "nccl:send 0->1");
	// Backend and Op split it, and Src/Dst are the group-local peers of a
	// send or recv (-1 otherwise).
	ProfilingName string    `json:"profiling_name"`
	Backend       string    `json:"backend,omitempty"`
	Op            string    `json:"op"`
	Src           int       `json:"src"`
	Dst           int       `json:"dst"`
	TimeCreatedNs int64     `json:"time_created_ns"`
	DurationMs    float64   `json:"duration_ms,omitempty"`
	HasDuration   bool      `json:"has_duration,omitempty"`
	InputSizes    [][]int64 `json:"input_sizes"`
	InputDtypes   []string  `json:"input_dtypes"`
	OutputSizes   [][]int64 `json:"output_sizes"`
	OutputDtypes  []string  `json:"output_dtypes"`
	State         string    `json:"state"`
	// Discovery times are 0 when the event was not seen.
	TimeDiscoveredStartedNs   int64   `json:"time_discovered_started_ns"`
	TimeDiscoveredCompletedNs int64   `json:"time_discovered_completed_ns"`
	Retired                   bool    `json:"retired"`
	TimeoutMs                 int64   `json:"timeout_ms,omitempty"`
	IsP2P                     bool    `json:"is_p2p"`
	ThreadID                  string  `json:"thread_id,omitempty"`
	ThreadName                string  `json:"thread_name,omitempty"`
	Frames                    []Frame `json:"frames,omitempty"`
}

// ProcessGroup is one pg_config entry: the group's name, description and
// global ranks.
type ProcessGroup struct {
	Name  string `json:"name"`
	Desc  string `json:"desc"`
	Ranks []int  `json:"ranks"`
}

// GroupStatus is one pg_status entry: the last collective sequence ids the
// process group enqueued, started and completed on this rank.
type GroupStatus struct {
	PGID          string `json:"pg_id"`
	LastEnqueued  int64  `json:"last_enqueued_collective"`
	LastStarted   int64  `json:"last_started_collective"`
	LastCompleted int64  `json:"last_completed_collective"`
}

// Dump is one rank's Flight Recorder dump.
type Dump struct {
	File           string         `json:"file,omitempty"`
	Rank           int            `json:"rank"`   // -1 when the file name does not say
	Format         string         `json:"format"` // "pickle" or "json"
	Version        string         `json:"version"`
	CommLibVersion string         `json:"comm_lib_version,omitempty"`
	ProcessGroups  []ProcessGroup `json:"process_groups"`
	Status         []GroupStatus  `json:"pg_status"`
	Entries        []Entry        `json:"entries"`
}

// Group returns the process group with the given name.
func (d *Dump) Group(name string) (ProcessGroup, bool) {
	for _, g := range d.ProcessGroups {
		if g.Name == name {
			return g, true
		}
	}
	return ProcessGroup{}, false
}

var reRankSuffix = regexp.MustCompile(`(\d+)(?:\.(?:json|pkl|pickle))?$`)

// RankFromName reads the rank from a dump file name: Flight Recorder writes
// TORCH_NCCL_DEBUG_INFO_TEMP_FILE followed by the rank
// ("/tmp/nccl_trace_rank_3"). It returns -1 when the name ends in no number.
func RankFromName(name string) int {
	m := reRankSuffix.FindStringSubmatch(filepath.Base(name))
	if m == nil {
		return -1
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return -1
	}
	return n
}

// maxDumpBytes bounds what ParseDump reads; real dumps are megabytes.
const maxDumpBytes = 1 << 30

// LoadDump reads one dump file, pickle or JSON, taking the rank from its
// name.
func LoadDump(path string) (*Dump, error) {
	f, err := os.Open(path)
	if err != nil {
		return &Dump{File: path, Rank: RankFromName(path)}, fmt.Errorf("flightrec: %w", err)
	}
	defer f.Close()
	return ParseDump(f, path)
}

// LoadDumps reads several dump files. Dumps that fail to decode are still
// returned with what they held; the errors are joined.
func LoadDumps(paths []string) ([]*Dump, error) {
	var dumps []*Dump
	var errs []error
	for _, p := range paths {
		d, err := LoadDump(p)
		if err != nil {
			errs = append(errs, err)
		}
		dumps = append(dumps, d)
	}
	return dumps, errors.Join(errs...)
}

// ParseDump reads one dump from r; name (a path, or "") gives the rank.
func ParseDump(r io.Reader, name string) (*Dump, error) {
	d := &Dump{File: name, Rank: RankFromName(name)}
	data, err := io.ReadAll(io.LimitReader(r, maxDumpBytes+1))
	if err != nil {
		return d, fmt.Errorf("flightrec: %s: %w", name, err)
	}
	if len(data) > maxDumpBytes {
		return d, &parse.Error{Format: "flightrec", File: name, Binary: true, Offset: maxDumpBytes, Msg: "dump larger than 1 GiB", Err: ErrMalformed}
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case len(data) > 0 && (data[0] == 0x80 || data[0] == '(' || data[0] == '}'):
		// 0x80 opens protocol 2+; protocol 0 and 1 dicts open with MARK or
		// EMPTY_DICT.
		d.Format = "pickle"
		v, perr := unpickle(data)
		root, _ := v.(*pyDict)
		if root == nil && perr == nil {
			return d, &parse.Error{Format: "flightrec", File: name, Binary: true, Offset: 0, Msg: fmt.Sprintf("pickle holds %T, not a dict", v), Err: ErrNotDump}
		}
		if root != nil {
			// A pickle cut short before its keys is a damaged dump, not
			// another file: the pickle error below says so.
			if err := fill(d, genericOf(root, 0)); err != nil && perr == nil {
				return d, &parse.Error{Format: "flightrec", File: name, Msg: err.Error(), Err: ErrNotDump}
			}
		}
		if perr != nil {
			var pe *pickleError
			kind := ErrMalformed
			off := 0
			msg := perr.Error()
			if errors.As(perr, &pe) {
				off, msg = pe.offset, pe.msg
				if pe.eof {
					kind = ErrTruncated
				}
			}
			if kind == ErrTruncated {
				msg += fmt.Sprintf(" (kept %d entries)", len(d.Entries))
			}
			return d, &parse.Error{Format: "flightrec", File: name, Binary: true, Offset: off, Msg: msg, Err: kind}
		}
		return d, nil
	case len(trimmed) > 0 && trimmed[0] == '{':
		d.Format = "json"
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v map[string]any
		if err := dec.Decode(&v); err != nil {
			line := 1
			kind := ErrMalformed
			var se *json.SyntaxError
			if errors.As(err, &se) {
				line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte{'\n'})
			}
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				kind = ErrTruncated
				line = 1 + bytes.Count(data, []byte{'\n'})
			}
			return d, &parse.Error{Format: "flightrec", File: name, Line: line, Msg: "JSON: " + err.Error(), Err: kind}
		}
		if err := fill(d, v); err != nil {
			return d, &parse.Error{Format: "flightrec", File: name, Line: 1, Msg: err.Error(), Err: ErrNotDump}
		}
		return d, nil
	}
	return d, &parse.Error{Format: "flightrec", File: name, Binary: true, Offset: 0, Msg: "neither a pickle (0x80) nor a JSON object", Err: ErrNotDump}
}

// genericOf turns decoded pickle values into the shapes encoding/json
// produces (map[string]any, []any, string, int64, float64, bool, nil), so
// one filler serves both formats. depth guards against self-referencing
// containers in corrupt input.
func genericOf(v any, depth int) any {
	if depth > 32 {
		return nil
	}
	switch x := v.(type) {
	case *pyDict:
		m := make(map[string]any, len(x.keys))
		for i, k := range x.keys {
			var key string
			switch kk := k.(type) {
			case string:
				key = kk
			case int64:
				key = strconv.FormatInt(kk, 10)
			default:
				continue
			}
			m[key] = genericOf(x.vals[i], depth+1)
		}
		return m
	case *pyList:
		out := make([]any, len(x.items))
		for i, it := range x.items {
			out[i] = genericOf(it, depth+1)
		}
		return out
	case pyTuple:
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = genericOf(it, depth+1)
		}
		return out
	case pyGlobal:
		return x.module + "." + x.name
	}
	return v
}

// fill copies a decoded dump dict into d.
func fill(d *Dump, v any) error {
	root, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("top level is %T, not a dict", v)
	}
	_, hasEntries := root["entries"]
	_, hasVersion := root["version"]
	_, hasConfig := root["pg_config"]
	if !hasEntries && !hasVersion && !hasConfig {
		return fmt.Errorf("no version, pg_config or entries key")
	}
	d.Version = str(root["version"])
	d.CommLibVersion = str(root["comm_lib_version"])
	if cfg, ok := root["pg_config"].(map[string]any); ok {
		for _, key := range slices.Sorted(maps.Keys(cfg)) {
			info, _ := cfg[key].(map[string]any)
			g := ProcessGroup{Name: key}
			if info != nil {
				if n := str(info["name"]); n != "" {
					g.Name = n
				}
				g.Desc = str(info["desc"])
				g.Ranks = ranksOf(info["ranks"])
			}
			d.ProcessGroups = append(d.ProcessGroups, g)
		}
	}
	if st, ok := root["pg_status"].(map[string]any); ok {
		for _, key := range slices.Sorted(maps.Keys(st)) {
			info, _ := st[key].(map[string]any)
			if info == nil {
				continue
			}
			d.Status = append(d.Status, GroupStatus{
				PGID:          key,
				LastEnqueued:  integer(info["last_enqueued_collective"]),
				LastStarted:   integer(info["last_started_collective"]),
				LastCompleted: integer(info["last_completed_collective"]),
			})
		}
	}
	if list, ok := root["entries"].([]any); ok {
		for _, it := range list {
			if m, ok := it.(map[string]any); ok {
				d.Entries = append(d.Entries, entryOf(m))
			}
		}
	}
	return nil
}

func entryOf(m map[string]any) Entry {
	e := Entry{
		RecordID:                  integer(m["record_id"]),
		PGID:                      integer(m["pg_id"]),
		CollectiveSeqID:           integer(m["collective_seq_id"]),
		P2PSeqID:                  integer(m["p2p_seq_id"]),
		OpID:                      integer(m["op_id"]),
		ProfilingName:             str(m["profiling_name"]),
		TimeCreatedNs:             integer(m["time_created_ns"]),
		InputSizes:                sizesOf(m["input_sizes"]),
		InputDtypes:               stringsOf(m["input_dtypes"]),
		OutputSizes:               sizesOf(m["output_sizes"]),
		OutputDtypes:              stringsOf(m["output_dtypes"]),
		State:                     str(m["state"]),
		TimeDiscoveredStartedNs:   integer(m["time_discovered_started_ns"]),
		TimeDiscoveredCompletedNs: integer(m["time_discovered_completed_ns"]),
		Retired:                   boolean(m["retired"]),
		TimeoutMs:                 integer(m["timeout_ms"]),
		IsP2P:                     boolean(m["is_p2p"]),
		ThreadID:                  str(m["thread_id"]),
		ThreadName:                str(m["thread_name"]),
		Src:                       -1,
		Dst:                       -1,
	}
	if pg, ok := m["process_group"].([]any); ok {
		if len(pg) > 0 {
			e.PGName = str(pg[0])
		}
		if len(pg) > 1 {
			e.PGDesc = str(pg[1])
		}
	} else {
		e.PGName = str(m["process_group"])
	}
	if dur, ok := m["duration_ms"]; ok && dur != nil {
		e.DurationMs, e.HasDuration = float(dur), true
	}
	e.Backend, e.Op, e.Src, e.Dst = splitProfilingName(e.ProfilingName)
	if _, ok := m["is_p2p"]; !ok {
		e.IsP2P = e.Op == "send" || e.Op == "recv"
	}
	if frames, ok := m["frames"].([]any); ok {
		for _, f := range frames {
			if fm, ok := f.(map[string]any); ok {
				e.Frames = append(e.Frames, Frame{Name: str(fm["name"]), Filename: str(fm["filename"]), Line: int(integer(fm["line"]))})
			}
		}
	}
	return e
}

// splitProfilingName reads "nccl:all_reduce", "nccl:send 0->1",
// "nccl:recv 1<-0" (the forms fr_trace's Op class accepts).
func splitProfilingName(name string) (backend, op string, src, dst int) {
	src, dst = -1, -1
	backend, rest, found := strings.Cut(name, ":")
	if !found {
		backend, rest = "", name
	}
	op, meta, _ := strings.Cut(strings.TrimSpace(rest), " ")
	switch op {
	case "send":
		if s, t, ok := strings.Cut(meta, "->"); ok {
			src, dst = atoiOr(s, -1), atoiOr(t, -1)
		}
	case "recv":
		if t, s, ok := strings.Cut(meta, "<-"); ok {
			dst, src = atoiOr(t, -1), atoiOr(s, -1)
		}
	}
	return backend, op, src, dst
}

var reInts = regexp.MustCompile(`-?\d+`)

// ranksOf reads pg_config ranks, which Flight Recorder writes as a string
// "[0, 1, 2]" (builder.py calls ast.literal_eval on it); a list also works.
func ranksOf(v any) []int {
	switch x := v.(type) {
	case string:
		var out []int
		for _, s := range reInts.FindAllString(x, -1) {
			out = append(out, atoiOr(s, 0))
		}
		return out
	case []any:
		out := make([]int, 0, len(x))
		for _, it := range x {
			out = append(out, int(integer(it)))
		}
		return out
	}
	return nil
}

func sizesOf(v any) [][]int64 {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([][]int64, 0, len(list))
	for _, it := range list {
		dims, _ := it.([]any)
		row := make([]int64, 0, len(dims))
		for _, d := range dims {
			row = append(row, integer(d))
		}
		out = append(out, row)
	}
	return out
}

func stringsOf(v any) []string {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, it := range list {
		out = append(out, str(it))
	}
	return out
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case int64:
		return strconv.FormatInt(x, 10)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// integer accepts ints, floats, json.Number and numeric strings (the JSON
// dump writes pg_status values as strings).
func integer(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int:
		return int64(x)
	case float64:
		if math.IsNaN(x) || x > math.MaxInt64 || x < math.MinInt64 {
			return 0
		}
		return int64(x)
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return integer(f)
	case string:
		n, _ := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return n
	case bool:
		if x {
			return 1
		}
	}
	return 0
}

func float(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	case json.Number:
		f, _ := x.Float64()
		return f
	case string:
		f, _ := strconv.ParseFloat(x, 64)
		return f
	}
	return 0
}

func boolean(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case int64:
		return x != 0
	case string:
		return x == "true" || x == "True" || x == "1"
	}
	return false
}

func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return def
	}
	return n
}
