package torchtrace

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
)

// ErrMalformed is wrapped by the error of a trace whose JSON or gzip
// stream breaks off or whose events do not have the shape Kineto writes.
var ErrMalformed = errors.New("torchtrace: malformed trace")

// Kinds of GPU activity.
const (
	Kernel = "kernel"
	Memcpy = "memcpy"
	Memset = "memset"
)

// Roles an activity plays in the overlap.
const (
	// Comm is communication: launched under a communication op.
	Comm = "comm"
	// Compute is any other kernel.
	Compute = "compute"
	// Other is a copy or memset that is not communication (.item()'s
	// device-to-host copy, a fill).
	Other = "other"
)

// How an activity's role was decided (Activity.By).
const (
	ByOp     = "op"     // the launch call's enclosing CPU op
	ByLaunch = "launch" // the launch call was found, with no CPU op around it
	ByName   = "name"   // no launch call in the trace: the activity's name
	// ByStream: no launch call in the trace, on a stream whose every
	// activity with a known launch is communication (ProcessGroupNCCL's
	// internal stream).
	ByStream = "stream"
)

// Activity is one GPU interval: a kernel, a copy or a memset.
type Activity struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Device int    `json:"device"`
	Stream int    `json:"stream"`
	// StartUS and EndUS are microseconds from the trace's first event.
	StartUS float64 `json:"start_us"`
	EndUS   float64 `json:"end_us"`
	// Bytes is a copy's or memset's size, when the trace gives it.
	Bytes       int64 `json:"bytes,omitempty"`
	Correlation int64 `json:"correlation,omitempty"`
	// Launch is the runtime or driver call that launched it
	// ("cudaMemcpyAsync"), when the trace holds it.
	Launch string `json:"launch,omitempty"`
	// Op is the launch call's innermost enclosing CPU op, or the
	// communication op when one encloses it ("nccl:all_gather_into_tensor").
	Op   string `json:"op,omitempty"`
	Role string `json:"role"`
	By   string `json:"by"`
	// launchIdx is the launch call's index in Trace.calls, -1 when absent.
	launchIdx int
}

// DurUS is the activity's length in microseconds.
func (a Activity) DurUS() float64 { return a.EndUS - a.StartUS }

// Range is a CPU-side interval: an op (aten::mm, nccl:all_reduce) or a
// user annotation (record_function), on one thread.
type Range struct {
	Name string `json:"name"`
	// Cat is Kineto's category: cpu_op, user_annotation, cuda_runtime,
	// cuda_driver (lower case, as Kineto writes it now).
	Cat     string  `json:"cat"`
	Thread  string  `json:"thread"`
	StartUS float64 `json:"start_us"`
	EndUS   float64 `json:"end_us"`
	// Correlation links a runtime or driver call to what it launched.
	Correlation int64 `json:"correlation,omitempty"`
}

// DurUS is the range's length in microseconds.
func (r Range) DurUS() float64 { return r.EndUS - r.StartUS }

// Trace is one parsed torch.profiler trace.
type Trace struct {
	// Events counts the trace's events, of every kind.
	Events int `json:"events"`
	// OriginNS is the first event's timestamp in nanoseconds, as the trace
	// writes it (plus baseTimeNanoseconds when present): every StartUS is
	// relative to it.
	OriginNS int64 `json:"origin_ns"`
	// Activities are the GPU intervals, by start time.
	Activities []Activity `json:"activities"`
	// Ops are the CPU ops and user annotations, by start time.
	Ops []Range `json:"ops"`
	// Devices are the GPUs' names from deviceProperties, by index.
	Devices map[int]string `json:"devices,omitempty"`
	// Unclassified counts activities whose launch was not in the trace.
	Unclassified int `json:"unclassified"`
	// calls are the runtime and driver calls, by start time.
	calls []Range
}

// rawEvent is one traceEvents entry; only complete ("X") events are used.
type rawEvent struct {
	Ph   string         `json:"ph"`
	Cat  string         `json:"cat"`
	Name string         `json:"name"`
	Pid  any            `json:"pid"`
	Tid  any            `json:"tid"`
	Ts   any            `json:"ts"`
	Dur  any            `json:"dur"`
	Args map[string]any `json:"args"`
}

type rawTrace struct {
	TraceEvents      []rawEvent       `json:"traceEvents"`
	DeviceProperties []map[string]any `json:"deviceProperties"`
}

// Parse reads a trace, gzipped or not. A trace that breaks off returns what
// was read with an error wrapping ErrMalformed; input that is not a JSON
// trace at all returns an error wrapping parse.ErrFormat.
func Parse(r io.Reader) (*Trace, error) {
	t := &Trace{Devices: map[int]string{}}
	data, err := io.ReadAll(r)
	if err != nil {
		return t, fail("read: %v", ErrMalformed, err)
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, zerr := gzip.NewReader(bytes.NewReader(data))
		if zerr != nil {
			return t, fail("gzip: %v", ErrMalformed, zerr)
		}
		data, err = io.ReadAll(zr)
		if err != nil {
			return t, fail("gzip: %v", ErrMalformed, err)
		}
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return t, fail("not a JSON trace", parse.ErrFormat, nil)
	}
	var raw rawTrace
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	if trimmed[0] == '[' {
		err = dec.Decode(&raw.TraceEvents)
	} else {
		err = dec.Decode(&raw)
	}
	if err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		if errors.As(err, &se) || errors.As(err, &te) || errors.Is(err, io.ErrUnexpectedEOF) {
			return t, fail("json: %v", ErrMalformed, err)
		}
		return t, fail("json: %v", ErrMalformed, err)
	}
	if trimmed[0] == '{' && raw.TraceEvents == nil {
		return t, fail("no traceEvents", parse.ErrFormat, nil)
	}
	for _, d := range raw.DeviceProperties {
		id, ok := intArg(d["id"])
		name, _ := d["name"].(string)
		if ok && name != "" {
			t.Devices[int(id)] = name
		}
	}
	var errs []error
	if err := t.build(raw.TraceEvents); err != nil {
		errs = append(errs, err)
	}
	return t, errors.Join(errs...)
}

// fail makes the package's *parse.Error.
func fail(format string, sentinel error, err error) error {
	msg := format
	if err != nil {
		msg = fmt.Sprintf(format, err)
	}
	return &parse.Error{Format: "torchtrace", Msg: msg, Err: sentinel}
}

// event is a complete event with its times in nanoseconds.
type event struct {
	raw        *rawEvent
	start, dur int64
}

func (t *Trace) build(events []rawEvent) error {
	t.Events = len(events)
	var evs []event
	var bad int
	var firstBad string
	for i := range events {
		e := &events[i]
		if e.Ph != "X" {
			continue
		}
		ts, ok1 := nanos(e.Ts)
		dur, ok2 := nanos(e.Dur)
		if !ok1 || !ok2 || dur < 0 {
			bad++
			if firstBad == "" {
				firstBad = fmt.Sprintf("event %d (%s %q): bad ts or dur", i, e.Cat, e.Name)
			}
			continue
		}
		evs = append(evs, event{raw: e, start: ts, dur: dur})
	}
	if len(evs) > 0 {
		t.OriginNS = evs[0].start
		for _, e := range evs {
			t.OriginNS = min(t.OriginNS, e.start)
		}
	}
	us := func(ns int64) float64 { return float64(ns-t.OriginNS) / 1e3 }
	for _, e := range evs {
		r := e.raw
		cat := strings.ToLower(r.Cat)
		switch cat {
		case "kernel", "gpu_memcpy", "memcpy", "gpu_memset", "memset":
			a := Activity{Kind: kindOf(cat), Name: r.Name, StartUS: us(e.start), EndUS: us(e.start + e.dur), launchIdx: -1}
			dev, ok := intArg(r.Args["device"])
			if !ok {
				dev, _ = intArg(r.Pid)
			}
			st, ok := intArg(r.Args["stream"])
			if !ok {
				st, _ = intArg(r.Tid)
			}
			a.Device, a.Stream = int(dev), int(st)
			a.Correlation, _ = intArg(r.Args["correlation"])
			a.Bytes, _ = intArg(r.Args["bytes"])
			t.Activities = append(t.Activities, a)
		case "cuda_runtime", "runtime", "cuda_driver", "driver":
			c := Range{Name: r.Name, Cat: cat, Thread: thread(r), StartUS: us(e.start), EndUS: us(e.start + e.dur)}
			c.Correlation, _ = intArg(r.Args["correlation"])
			t.calls = append(t.calls, c)
		case "cpu_op", "operator", "user_annotation":
			if cat == "operator" {
				cat = "cpu_op"
			}
			t.Ops = append(t.Ops, Range{Name: r.Name, Cat: cat, Thread: thread(r), StartUS: us(e.start), EndUS: us(e.start + e.dur)})
		}
	}
	byStart := func(rs []Range) {
		sort.SliceStable(rs, func(i, j int) bool {
			if rs[i].StartUS != rs[j].StartUS {
				return rs[i].StartUS < rs[j].StartUS
			}
			return rs[i].EndUS > rs[j].EndUS // the enclosing one first
		})
	}
	byStart(t.Ops)
	byStart(t.calls)
	sort.SliceStable(t.Activities, func(i, j int) bool { return t.Activities[i].StartUS < t.Activities[j].StartUS })
	t.classify()
	if bad > 0 {
		return fail(fmt.Sprintf("%d events skipped; first: %s", bad, firstBad), ErrMalformed, nil)
	}
	return nil
}

func kindOf(cat string) string {
	switch cat {
	case "kernel":
		return Kernel
	case "gpu_memcpy", "memcpy":
		return Memcpy
	}
	return Memset
}

// thread names a CPU event's thread as "pid/tid".
func thread(r *rawEvent) string {
	return fmt.Sprint(r.Pid) + "/" + fmt.Sprint(r.Tid)
}

// classify gives every activity its launch call, op and role.
func (t *Trace) classify() {
	byCorr := map[int64]int{}
	for i, c := range t.calls {
		if c.Correlation != 0 {
			if _, dup := byCorr[c.Correlation]; !dup {
				byCorr[c.Correlation] = i
			}
		}
	}
	opsByThread := map[string][]Range{}
	for _, o := range t.Ops {
		opsByThread[o.Thread] = append(opsByThread[o.Thread], o)
	}
	for i := range t.Activities {
		a := &t.Activities[i]
		ci, ok := byCorr[a.Correlation]
		if !ok || a.Correlation == 0 {
			t.Unclassified++
			a.By = ByName
			if isCommKernel(a.Name) {
				a.Role = Comm
			} else {
				a.Role = roleOf(a.Kind)
			}
			continue
		}
		c := t.calls[ci]
		a.launchIdx = ci
		a.Launch = c.Name
		a.By = ByLaunch
		a.Role = roleOf(a.Kind)
		best := 0
		for _, o := range enclosing(opsByThread[c.Thread], c) {
			a.By = ByOp
			if rank := commRank(o.Name); rank > best {
				best = rank
				a.Op, a.Role = o.Name, Comm
				continue
			}
			if a.Op == "" && o.Cat == "cpu_op" {
				a.Op = o.Name // the innermost op, as enclosing lists inner first
			}
		}
		if a.Role != Comm && isCommKernel(a.Name) {
			a.Role, a.By = Comm, ByName
		}
	}
	// An activity whose launch is missing (a library's own runtime calls may
	// escape the profiler) takes the role of its stream when every
	// activity there with a known launch is communication.
	type sk struct{ dev, stream int }
	comm, known := map[sk]int{}, map[sk]int{}
	for _, a := range t.Activities {
		if a.By == ByOp || a.By == ByLaunch {
			k := sk{a.Device, a.Stream}
			known[k]++
			if a.Role == Comm {
				comm[k]++
			}
		}
	}
	for i := range t.Activities {
		a := &t.Activities[i]
		k := sk{a.Device, a.Stream}
		if a.By == ByName && a.Role != Comm && known[k] > 0 && comm[k] == known[k] {
			a.Role, a.By = Comm, ByStream
		}
	}
}

// enclosing returns the ops of one thread that contain c, innermost first.
// ops are sorted by start.
func enclosing(ops []Range, c Range) []Range {
	n := sort.Search(len(ops), func(i int) bool { return ops[i].StartUS > c.StartUS })
	var out []Range
	for i := n - 1; i >= 0; i-- {
		if ops[i].StartUS <= c.StartUS && ops[i].EndUS >= c.EndUS {
			out = append(out, ops[i])
		}
	}
	// Innermost first: the latest start, and of equal starts the shortest.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].StartUS != out[j].StartUS {
			return out[i].StartUS > out[j].StartUS
		}
		return out[i].DurUS() < out[j].DurUS()
	})
	return out
}

func roleOf(kind string) string {
	if kind == Kernel {
		return Compute
	}
	return Other
}

// IsCommOp says whether a CPU op's name is one of PyTorch's communication
// ops: nccl:* (ProcessGroupNCCL's profiling titles), c10d::* and
// _c10d_functional::* / c10d_functional::* (the dispatcher ops),
// record_param_comms, gloo:*, ucc:*, mpi:*.
func IsCommOp(name string) bool {
	for _, p := range []string{"nccl:", "c10d::", "_c10d_functional::", "c10d_functional::", "gloo:", "ucc:", "mpi:"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return name == "record_param_comms"
}

// commRank orders the names of communication ops by how much they say:
// ProcessGroupNCCL's nccl:* title first, then the dispatcher's c10d:: op,
// then record_param_comms; 0 is not a communication op.
func commRank(name string) int {
	switch {
	case !IsCommOp(name):
		return 0
	case name == "record_param_comms":
		return 1
	case strings.HasPrefix(name, "nccl:"), strings.HasPrefix(name, "gloo:"), strings.HasPrefix(name, "ucc:"), strings.HasPrefix(name, "mpi:"):
		return 3
	}
	return 2
}

// isCommKernel says whether a kernel's name is NCCL's.
func isCommKernel(name string) bool {
	return strings.HasPrefix(name, "ncclDevKernel") || strings.HasPrefix(name, "ncclKernel")
}

// maxMicros is the largest time nanos accepts, in microseconds: older
// Kineto traces stamp events in microseconds since the Unix epoch
// (1.68e15 in 2023), and 9e15 us is still 9e18 ns, inside an int64.
const maxMicros = 9e15

// nanos reads a Kineto time (microseconds, a number with a fraction, or a
// string holding one) as integer nanoseconds, exactly for decimal text.
func nanos(v any) (int64, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > maxMicros {
			return 0, false
		}
		return int64(math.Round(x * 1e3)), true
	case nil:
		return 0, true // instant events have no dur
	default:
		return 0, false
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, false
		}
		return nanos(f)
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" {
		whole = "0"
	}
	if len(whole) > 16 {
		return 0, false
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w > maxMicros {
		return 0, false
	}
	frac = (frac + "000")[:3]
	f, err := strconv.ParseInt(frac, 10, 64)
	if err != nil || strings.ContainsAny(frac, "+-") {
		return 0, false
	}
	ns := w*1000 + f
	if neg {
		ns = -ns
	}
	return ns, true
}

// intArg reads an integer-valued argument (json.Number, string or float).
func intArg(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, true
		}
		if f, err := x.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 9e18 {
			return int64(f), true
		}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 9e18 {
			return int64(x), true
		}
	case string:
		if i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return i, true
		}
	}
	return 0, false
}

// Ranges returns the CPU ops and annotations called name, by start time.
func (t *Trace) Ranges(name string) []Range { return named(t.Ops, name) }

// LaunchedIn returns the GPU activities whose launch call ran inside r on
// r's thread: the GPU work a CPU range issued.
func (t *Trace) LaunchedIn(r Range) []Activity {
	var out []Activity
	for _, a := range t.Activities {
		if a.launchIdx < 0 {
			continue
		}
		c := t.calls[a.launchIdx]
		if c.Thread == r.Thread && c.StartUS >= r.StartUS && c.EndUS <= r.EndUS {
			out = append(out, a)
		}
	}
	return out
}

// Calls returns the runtime and driver calls called name (for instance
// cudaStreamWaitEvent, cudaStreamSynchronize), by start time.
func (t *Trace) Calls(name string) []Range { return named(t.calls, name) }

// named returns the ranges of rs called name, in rs's order.
func named(rs []Range, name string) []Range {
	var out []Range
	for _, r := range rs {
		if r.Name == name {
			out = append(out, r)
		}
	}
	return out
}
