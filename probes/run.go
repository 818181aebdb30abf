package probes

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Run is one measurement with its provenance: what was run, with which
// settings, on which machine and software, and the samples it produced.
// Runs save and load as JSON so chapters can show recorded runs on machines
// without a GPU.
type Run struct {
	// Kind names the probe: "bandwidth", "latency", "nccl", "nccl-tests",
	// "nvbandwidth", "perftest", "rdma-write", or a reference such as
	// "torch-nccl".
	Kind string `json:"kind"`
	// Command is the command line that produced the run.
	Command []string `json:"command,omitempty"`
	// Settings are the probe's own parameters (sizes, iterations, ...).
	Settings map[string]string `json:"settings,omitempty"`
	// Env holds the NCCL_*, CUDA_* and other variables in force.
	Env map[string]string `json:"env,omitempty"`

	Date     time.Time `json:"date"`
	Host     string    `json:"host,omitempty"`
	GPUModel string    `json:"gpu_model,omitempty"`
	GPUCount int       `json:"gpu_count"`
	Driver   string    `json:"driver,omitempty"`
	CUDA     string    `json:"cuda,omitempty"`
	NCCL     string    `json:"nccl,omitempty"`
	// Tool is the external tool's name and version when one produced the run.
	Tool string `json:"tool,omitempty"`

	Samples []Sample `json:"samples"`
	// Logs keeps text captured with the run, by name ("nccl-debug", "stdout").
	Logs map[string]string `json:"logs,omitempty"`
	// Notes are short remarks on the conditions ("n=1: one GPU").
	Notes []string `json:"notes,omitempty"`
	// Error reports what went wrong when the run stopped early (a timeout
	// and its abort); the samples taken before it stay valid.
	Error string `json:"error,omitempty"`
}

// Sample is one measured point: an operation at one size between given
// devices, with its times over repetitions.
type Sample struct {
	// Op is what was timed: "h2d_pinned", "d2d", "p2p_write", "all_reduce",
	// "kernel_launch", "graph_replay", ...
	Op string `json:"op"`
	// Bytes is the size the bandwidth counts, as nccl-tests' size column.
	Bytes int64  `json:"bytes" unit:"B"`
	Count int64  `json:"count,omitempty"`
	DType string `json:"dtype,omitempty"`
	RedOp string `json:"redop,omitempty"`
	Root  int    `json:"root,omitempty"`
	// InPlace is true for in-place collectives.
	InPlace bool `json:"in_place,omitempty"`
	// Src and Dst are device indices; -1 is the host.
	Src int `json:"src"`
	Dst int `json:"dst"`
	// Ranks is the number of GPUs taking part (nccl-tests' n).
	Ranks int `json:"ranks,omitempty"`
	Iters int `json:"iters,omitempty"`
	// TimesUS are the per-operation times of each repetition, microseconds.
	TimesUS  []float64 `json:"times_us,omitempty" table:"-"`
	MedianUS float64   `json:"median_us" unit:"us"`
	MinUS    float64   `json:"min_us" unit:"us"`
	MaxUS    float64   `json:"max_us" unit:"us"`
	// AlgBW and BusBW are GB/s (1e9 bytes per second) from the median time.
	AlgBW float64 `json:"algbw_gbps,omitempty" unit:"GB/s"`
	BusBW float64 `json:"busbw_gbps,omitempty" unit:"GB/s"`
	// Wrong counts elements that failed the correctness check; -1 means
	// not checked.
	Wrong int64 `json:"wrong"`
	// Label carries anything else that tells samples apart ("proto=LL").
	Label string `json:"label,omitempty"`
}

// SetTimes stores per-operation times in microseconds and derives the
// median, minimum and maximum, and algbw from Bytes.
func (s *Sample) SetTimes(us []float64) {
	s.TimesUS = append([]float64(nil), us...)
	s.MedianUS, s.MinUS, s.MaxUS, s.AlgBW = 0, 0, 0, 0
	if len(us) == 0 {
		return
	}
	s.MedianUS = Median(us)
	s.MinUS, s.MaxUS = us[0], us[0]
	for _, v := range us[1:] {
		s.MinUS = math.Min(s.MinUS, v)
		s.MaxUS = math.Max(s.MaxUS, v)
	}
	if s.MedianUS > 0 {
		s.AlgBW = float64(s.Bytes) / (s.MedianUS * 1e3)
	}
}

// SpreadPct is (max-min)/median in percent, a quick look at the noise.
func (s Sample) SpreadPct() float64 {
	if s.MedianUS == 0 {
		return 0
	}
	return 100 * (s.MaxUS - s.MinUS) / s.MedianUS
}

// PositiveOr returns n, or def when n is zero or less: how the probes'
// configurations default their counts (warm-up operations, iterations,
// repetitions), where zero means "not set".
func PositiveOr(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

// Median is the middle value of v, the mean of the two middle ones for an
// even count, 0 for none; v is left as it is. Samples summarise their
// times with it, and the doctor its curves and ranks.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	c := append([]float64(nil), v...)
	sort.Float64s(c)
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}

// Select returns the samples whose Op is op and, when label is not empty,
// whose Label is label, in the order measured.
func (r *Run) Select(op, label string) []Sample {
	var out []Sample
	for _, s := range r.Samples {
		if s.Op == op && (label == "" || s.Label == label) {
			out = append(out, s)
		}
	}
	return out
}

// SettingL2Bytes is the Settings key under which a run records its GPUs'
// L2 cache size in bytes: one number, or one per device comma-separated
// when they differ. Runs recorded before it have no such key.
const SettingL2Bytes = "l2_bytes"

// L2Bytes is the L2 cache size of the run's first GPU in bytes, from
// Settings; 0 when the run did not record it.
func (r *Run) L2Bytes() int64 {
	first, _, _ := strings.Cut(r.Settings[SettingL2Bytes], ",")
	n, err := strconv.ParseInt(strings.TrimSpace(first), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// Provenance is the one-line origin a chapter prints under a recorded
// number: GPU, driver, CUDA, NCCL, date and command.
func (r *Run) Provenance() string {
	s := fmt.Sprintf("%dx %s, driver %s, CUDA %s", r.GPUCount, r.GPUModel, r.Driver, r.CUDA)
	if r.GPUCount == 0 && r.GPUModel == "" {
		// A run on CPU ranks (gloo) has no GPU, driver or CUDA to name.
		s = "CPU only"
	}
	if r.NCCL != "" {
		s += ", NCCL " + r.NCCL
	}
	if r.Tool != "" {
		s += ", " + r.Tool
	}
	s += ", " + r.Date.UTC().Format("2006-01-02")
	if len(r.Command) > 0 {
		s += fmt.Sprintf(", command %q", r.Command)
	}
	return s
}

// WriteJSON writes the run as indented JSON.
func (r *Run) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("probes: encode run: %w", err)
	}
	return nil
}

// ReadRun decodes a run written by WriteJSON.
func ReadRun(rd io.Reader) (*Run, error) {
	var r Run
	dec := json.NewDecoder(rd)
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("probes: decode run: %w", err)
	}
	if r.Kind == "" {
		return nil, fmt.Errorf("probes: decode run: no kind: not a run")
	}
	return &r, nil
}

// Save writes the run to path atomically: a temporary file in the same
// folder, then a rename, so readers never see half a run.
func (r *Run) Save(path string) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("probes: save run: %w", err)
	}
	tmp := f.Name()
	if err := r.WriteJSON(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("probes: save run: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("probes: save run: %w", err)
	}
	return nil
}

// LoadRun reads a run saved by Save.
func LoadRun(path string) (*Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("probes: load run: %w", err)
	}
	defer f.Close()
	r, err := ReadRun(f)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, path)
	}
	return r, nil
}

// MedianSeconds is the median time, in seconds, of the first out-of-place
// sample whose Op is op, whose Label is label when label is not empty, and
// whose Bytes is bytes when bytes is not negative; ok is false when no
// sample matches.
func (r *Run) MedianSeconds(op, label string, bytes int64) (seconds float64, ok bool) {
	for _, s := range r.Select(op, label) {
		if !s.InPlace && (bytes < 0 || s.Bytes == bytes) {
			return s.MedianUS * 1e-6, true
		}
	}
	return 0, false
}

// PeakRate is the highest algorithm bandwidth, in bytes per second, of
// the samples whose Op is op (and Label label when not empty); 0 when none.
func (r *Run) PeakRate(op, label string) float64 {
	peak := 0.0
	for _, s := range r.Select(op, label) {
		peak = max(peak, s.AlgBW*1e9)
	}
	return peak
}

// OutOfPlace is the out-of-place samples whose Op is op, up to maxBytes,
// in the order measured: what a time-against-size chart of a run draws.
func (r *Run) OutOfPlace(op string, maxBytes int64) []Sample {
	var out []Sample
	for _, s := range r.Select(op, "") {
		if !s.InPlace && s.Bytes <= maxBytes {
			out = append(out, s)
		}
	}
	return out
}

// At is the first sample, in place or not, whose Op is op, whose Label is
// label when label is not empty, and whose Bytes is bytes; ok is false
// when none is.
func (r *Run) At(op, label string, bytes int64) (s Sample, ok bool) {
	for _, s := range r.Select(op, label) {
		if s.Bytes == bytes {
			return s, true
		}
	}
	return Sample{}, false
}
