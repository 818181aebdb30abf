// Package c10dlab runs and reads chapter 5's c10d experiments
// (probes/launch's c10d_lab.py): the calls a backend makes on the
// rendezvous store (TCPStore) while a group is created, small all_reduces
// issued one by one against the coalesced forms, a collective timeout under
// each TORCH_NCCL_ASYNC_ERROR_HANDLING value with what each leaves behind,
// and a functional collective under torch.compile with wait_tensor's place
// in the generated code.
//
// The script writes one summary.json; Load reads it from any fs.FS (a
// recorded run's folder in probes/recorded, or a live run's). Measure is the
// chapter's live-or-recorded call: gloo parts run live where python3 has
// PyTorch, NCCL parts where PyTorch also sees a GPU. The package starts
// processes only through probes/launch and stores no runs.
package c10dlab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/probes/measure"
	"github.com/commlab/commlab/probes/recorded"
)

// Kind is the probes.Run kind of a c10d run.
const Kind = "c10d-lab"

// Parts are the experiments the script knows, in the order it runs them.
var Parts = []string{"store", "coalesce", "timeout", "compile"}

// StoreOp is one call on the rendezvous store, or a mark the rank wrote
// between calls (Op "mark", Key the words).
type StoreOp struct {
	TMS   float64 `json:"t_ms"`
	Op    string  `json:"op"`
	Key   string  `json:"key"`
	Bytes int     `json:"bytes,omitempty"`
}

// StoreRank is one rank's store traffic, in its order.
type StoreRank struct {
	Rank int       `json:"rank"`
	Ops  []StoreOp `json:"ops"`
}

// Exit is how a rank's process ended.
type Exit struct {
	Code             *int   `json:"code"`
	Signal           string `json:"signal"`
	KilledAtDeadline bool   `json:"killed_at_deadline"`
}

// String says it as a person would: "exit 0", "SIGABRT", "killed at the
// deadline".
func (e Exit) String() string {
	switch {
	case e.KilledAtDeadline:
		return "killed at the deadline"
	case e.Signal != "":
		return "killed by " + e.Signal
	case e.Code != nil:
		return "exit " + strconv.Itoa(*e.Code)
	}
	return "unknown"
}

// StorePart is the store experiment.
type StorePart struct {
	World int         `json:"world"`
	Exits []Exit      `json:"exits"`
	Ranks []StoreRank `json:"ranks"`
	Error string      `json:"error,omitempty"`
}

// CoalesceRow is one way of reducing Count tensors of Bytes each: the
// median time of one group, on the host (issuing it) and in all (issuing
// and waiting), and on a GPU the kernels and copies one group launched.
type CoalesceRow struct {
	Method      string         `json:"method"`
	Count       int            `json:"count"`
	Bytes       int64          `json:"bytes"`
	Iters       int            `json:"iters,omitempty"`
	HostUS      float64        `json:"host_us,omitempty"`
	TotalUS     float64        `json:"total_us,omitempty"`
	GPUKernels  int            `json:"gpu_kernels,omitempty"`
	GPUCopies   int            `json:"gpu_copies,omitempty"`
	KernelNames map[string]int `json:"kernel_names,omitempty"`
	Error       string         `json:"error,omitempty"`
}

// CoalesceMethods are the ways the script reduces a group of tensors.
var CoalesceMethods = []string{"separate", "coalescing_manager", "all_reduce_coalesced", "flat"}

// CoalescePart is the coalescing experiment.
type CoalescePart struct {
	World int           `json:"world"`
	Op    string        `json:"op"`
	Rows  []CoalesceRow `json:"rows"`
	// AfterFailure is what an all_reduce of ones gave right after a
	// method failed with the group left mid-coalescing (nil when none did).
	AfterFailure *AfterFailure `json:"after_failure,omitempty"`
	Error        string        `json:"error,omitempty"`
}

// AfterFailure is the check the script makes when a coalescing method
// fails: one all_reduce of ones on the group, before the script clears the
// group's coalescing state. Expected is the world size; 1 means the
// collective never ran.
type AfterFailure struct {
	Method          string  `json:"method"`
	AllReduceOfOnes float64 `json:"all_reduce_of_ones"`
	Expected        float64 `json:"expected"`
	Returned        string  `json:"returned"`
}

// Silent says whether the all_reduce after the failure did nothing and
// said nothing.
func (a *AfterFailure) Silent() bool {
	return a != nil && a.AllReduceOfOnes != a.Expected
}

// Row returns the row of method for count tensors of bytes each, or nil.
func (p *CoalescePart) Row(method string, count int, bytes int64) *CoalesceRow {
	if p == nil {
		return nil
	}
	for i := range p.Rows {
		r := &p.Rows[i]
		if r.Method == method && r.Count == count && r.Bytes == bytes {
			return r
		}
	}
	return nil
}

// Counts and Sizes list the group sizes and tensor sizes measured, sorted.
func (p *CoalescePart) Counts() []int {
	seen := map[int]bool{}
	var out []int
	for _, r := range p.Rows {
		if !seen[r.Count] {
			seen[r.Count] = true
			out = append(out, r.Count)
		}
	}
	sort.Ints(out)
	return out
}

// Sizes lists the tensor sizes measured, in bytes, sorted.
func (p *CoalescePart) Sizes() []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, r := range p.Rows {
		if !seen[r.Bytes] {
			seen[r.Bytes] = true
			out = append(out, r.Bytes)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Mark is one thing a timeout rank reached, seconds from its start.
type Mark struct {
	TS    float64 `json:"t_s"`
	What  string  `json:"what"`
	Error string  `json:"error,omitempty"`
}

// TimeoutRank is one rank of a timeout run: how it ended, what it reached,
// and the lines of its output about the watchdog, errors and dumps.
type TimeoutRank struct {
	Rank  int      `json:"rank"`
	Exit  Exit     `json:"exit"`
	Marks []Mark   `json:"marks"`
	Log   []string `json:"log"`
}

// Reached says whether the rank reached a mark whose words start with
// prefix, and returns the first such mark.
func (r TimeoutRank) Reached(prefix string) (Mark, bool) {
	for _, m := range r.Marks {
		if strings.HasPrefix(m.What, prefix) {
			return m, true
		}
	}
	return Mark{}, false
}

// Last is the last mark the rank reached (zero when none).
func (r TimeoutRank) Last() Mark {
	if len(r.Marks) == 0 {
		return Mark{}
	}
	return r.Marks[len(r.Marks)-1]
}

// LogWith returns the first kept log line that contains s, or "".
func (r TimeoutRank) LogWith(s string) string {
	for _, l := range r.Log {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// Dump is one Flight Recorder file a timeout run left.
type Dump struct {
	File  string `json:"file"`
	Bytes int64  `json:"bytes"`
}

// TimeoutRun is one value of TORCH_NCCL_ASYNC_ERROR_HANDLING ("unset" when
// the variable was not set) and what came of it.
type TimeoutRun struct {
	Mode    string        `json:"mode"`
	Seconds float64       `json:"seconds"`
	Ranks   []TimeoutRank `json:"ranks"`
	FRDumps []Dump        `json:"fr_dumps"`
}

// TimeoutPart is the timeout experiment: the group's timeout and how long
// past it the collective was held.
type TimeoutPart struct {
	World    int          `json:"world"`
	TimeoutS float64      `json:"timeout_s"`
	StallS   float64      `json:"stall_s"`
	Runs     []TimeoutRun `json:"runs"`
	Error    string       `json:"error,omitempty"`
}

// Run returns the run of one mode, or nil.
func (p *TimeoutPart) Run(mode string) *TimeoutRun {
	if p == nil {
		return nil
	}
	for i := range p.Runs {
		if p.Runs[i].Mode == mode {
			return &p.Runs[i]
		}
	}
	return nil
}

// InductorCode is the call() Inductor wrote for one configuration and the
// collective, wait and compute calls in it, in order.
type InductorCode struct {
	Call  string   `json:"call"`
	Ops   []string `json:"ops"`
	Error string   `json:"error,omitempty"`
}

// CompilePart is the functional-collective experiment.
type CompilePart struct {
	World                int                     `json:"world"`
	EagerResultType      string                  `json:"eager_result_type"`
	DynamoGraph          string                  `json:"dynamo_graph"`
	DynamoOps            []string                `json:"dynamo_ops"`
	CompiledMatchesEager bool                    `json:"compiled_matches_eager"`
	Inductor             map[string]InductorCode `json:"inductor"`
	Error                string                  `json:"error,omitempty"`
}

// Result is one run of the script.
type Result struct {
	Run *probes.Run `json:"run"`
	// Backend is gloo or nccl.
	Backend  string         `json:"backend"`
	Versions map[string]any `json:"versions,omitempty"`
	Store    *StorePart     `json:"store,omitempty"`
	Coalesce *CoalescePart  `json:"coalesce,omitempty"`
	Timeout  *TimeoutPart   `json:"timeout,omitempty"`
	Compile  *CompilePart   `json:"compile,omitempty"`
	Errors   []string       `json:"errors,omitempty"`
}

// summary is summary.json as c10d_lab.py writes it.
type summary struct {
	Kind     string                     `json:"kind"`
	Command  []string                   `json:"command"`
	Date     string                     `json:"date"`
	Host     string                     `json:"host"`
	Settings map[string]string          `json:"settings"`
	Versions map[string]any             `json:"versions"`
	Env      map[string]string          `json:"env"`
	Parts    map[string]json.RawMessage `json:"parts"`
	Errors   []string                   `json:"errors"`
}

// Read decodes a summary.json.
func Read(r io.Reader) (*Result, error) {
	var s summary
	dec := json.NewDecoder(r)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("c10dlab: %w", err)
	}
	if s.Kind != Kind {
		return nil, fmt.Errorf("c10dlab: kind %q, not a c10d-lab summary", s.Kind)
	}
	res := &Result{Run: runOf(&s), Backend: s.Settings["backend"], Versions: s.Versions, Errors: s.Errors}
	var errs []error
	decode := func(name string, into any) bool {
		raw, ok := s.Parts[name]
		if !ok {
			return false
		}
		if err := json.Unmarshal(raw, into); err != nil {
			errs = append(errs, fmt.Errorf("c10dlab: part %s: %w", name, err))
			return false
		}
		return true
	}
	for name := range s.Parts {
		if !known(name) {
			errs = append(errs, fmt.Errorf("c10dlab: unknown part %q", name))
		}
	}
	if p := new(StorePart); decode("store", p) {
		res.Store = p
	}
	if p := new(CoalescePart); decode("coalesce", p) {
		res.Coalesce = p
		res.Run.Samples = append(res.Run.Samples, coalesceSamples(p)...)
	}
	if p := new(TimeoutPart); decode("timeout", p) {
		res.Timeout = p
	}
	if p := new(CompilePart); decode("compile", p) {
		res.Compile = p
	}
	return res, errors.Join(errs...)
}

func known(part string) bool {
	for _, p := range Parts {
		if p == part {
			return true
		}
	}
	return false
}

// Load reads dir/summary.json from fsys.
func Load(fsys fs.FS, dir string) (*Result, error) {
	f, err := fsys.Open(path.Join(dir, "summary.json"))
	if err != nil {
		return nil, fmt.Errorf("c10dlab: %w", err)
	}
	defer f.Close()
	return Read(f)
}

// runOf is the run's provenance as a probes.Run: the command a reader
// types to record it (commlab probe c10d ...), the versions.
func runOf(s *summary) *probes.Run {
	r := &probes.Run{Kind: Kind, Settings: map[string]string{}, Env: s.Env, Host: s.Host}
	r.Command = []string{"commlab", "probe", "c10d"}
	for _, k := range []string{"backend", "parts"} {
		if v := s.Settings[k]; v != "" {
			r.Command = append(r.Command, "--"+k, v)
		}
	}
	for k, v := range s.Settings {
		r.Settings[k] = v
	}
	if t, err := time.Parse(time.RFC3339Nano, s.Date); err == nil {
		r.Date = t
	}
	str := func(k string) string {
		if v, ok := s.Versions[k]; ok && v != nil {
			return fmt.Sprint(v)
		}
		return ""
	}
	backend := s.Settings["backend"]
	world := s.Settings["world"]
	if backend == "nccl" {
		r.GPUModel, r.Driver, r.CUDA, r.NCCL = str("gpu_model"), str("driver"), str("cuda"), str("nccl_version")
		if n, err := strconv.Atoi(str("gpu_count")); err == nil {
			r.GPUCount = n
		}
		r.Tool = "PyTorch " + str("torch")
	} else {
		r.Tool = fmt.Sprintf("PyTorch %s, gloo, %s CPU ranks on %s CPUs", str("torch"), world, str("host_cpus"))
	}
	return r
}

// coalesceSamples are the coalescing rows as samples: one group's time.
func coalesceSamples(p *CoalescePart) []probes.Sample {
	var out []probes.Sample
	for _, r := range p.Rows {
		if r.Error != "" {
			continue
		}
		out = append(out, probes.Sample{Op: "coalesce:" + r.Method, Bytes: r.Bytes * int64(r.Count), Count: int64(r.Count),
			Src: -1, Dst: -1, Ranks: p.World, Iters: r.Iters, MedianUS: r.TotalUS, Wrong: -1,
			Label: fmt.Sprintf("%d x %d B, host %.1f us", r.Count, r.Bytes, r.HostUS)})
	}
	return out
}

// Recorded names: the gloo run on CPU ranks, and the NCCL run on one H200.
const (
	RecordedCPU  = "torch-c10d-cpu"
	RecordedH200 = "torch-c10d-h200x1"
)

// Recorded loads the recorded run called name: its provenance
// (probes/recorded's name.json) and its summary (the folder name/). A name
// not recorded fails with recorded.ErrNotFound.
func Recorded(name string) (*Result, error) {
	run, err := recorded.Load(name)
	if err != nil {
		return nil, fmt.Errorf("c10dlab: %w", err)
	}
	res, err := Load(recorded.Files(), name)
	if res != nil {
		samples := res.Run.Samples
		res.Run = run
		if len(run.Samples) == 0 {
			res.Run.Samples = samples
		}
	}
	return res, err
}

// Config is a live run's settings.
type Config struct {
	// Backend is gloo (CPU ranks) or nccl (the GPUs here).
	Backend string
	// Parts lists the experiments; empty runs them all.
	Parts []string
	// Args are more of the script's own flags (--timeout, --modes, ...).
	Args []string
	// OutDir keeps summary.json there; empty means a temporary folder.
	OutDir string
	// Stdout and Stderr get the script's output (nil: discarded).
	Stdout, Stderr io.Writer
}

// Args returns the script's flags for cfg, --out excepted.
func (cfg Config) args() ([]string, error) {
	backend := cfg.Backend
	if backend == "" {
		backend = "gloo"
	}
	if backend != "gloo" && backend != "nccl" {
		return nil, fmt.Errorf("c10dlab: backend %q: want gloo or nccl", backend)
	}
	args := []string{"--backend", backend}
	if len(cfg.Parts) > 0 {
		for _, p := range cfg.Parts {
			if !known(p) {
				return nil, fmt.Errorf("c10dlab: part %q: want one of %s", p, strings.Join(Parts, ", "))
			}
		}
		args = append(args, "--parts", strings.Join(cfg.Parts, ","))
	}
	return append(args, cfg.Args...), nil
}

// Run runs the script live and reads what it wrote.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	args, err := cfg.args()
	if err != nil {
		return nil, err
	}
	dir := cfg.OutDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "commlab-c10d-")
		if err != nil {
			return nil, fmt.Errorf("c10dlab: %w", err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("c10dlab: %w", err)
	}
	stdout, stderr := cfg.Stdout, cfg.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	_, runErr := launch.C10dLab.Run(ctx, launch.Options{}, append([]string{"--out", dir}, args...), stdout, stderr)
	res, err := Load(os.DirFS(dir), ".")
	if res == nil {
		return nil, errors.Join(runErr, err)
	}
	if runErr != nil {
		res.Run.Error = runErr.Error()
	}
	return res, err
}

// Measurement is the chapter's view of a run: measure's banner and the
// result.
type Measurement struct {
	*measure.Measurement
	Result *Result
}

// Measure runs the experiments live when mode allows and this machine can
// (python3 with PyTorch; for NCCL also a GPU), else shows the recorded run
// called name; auto mode says in the banner why it fell back. A recorded
// name that is not (yet) recorded fails with recorded.ErrNotFound, so a
// chapter can say what awaits the recording.
func Measure(ctx context.Context, mode measure.Mode, cfg Config, name string) (*Measurement, error) {
	mode, err := measure.ParseMode(string(mode))
	if err != nil {
		return nil, err
	}
	rec := func(fallback string, lerr error) (*Measurement, error) {
		res, err := Recorded(name)
		if res == nil {
			return nil, err
		}
		return &Measurement{Measurement: &measure.Measurement{Run: res.Run, Recorded: name, Fallback: fallback, LiveError: lerr}, Result: res}, err
	}
	if mode == measure.ModeRecorded {
		return rec("", nil)
	}
	var lerr error
	reason := "no PyTorch here"
	if cfg.Backend == "nccl" {
		reason = "no PyTorch with a GPU here"
		lerr = launch.TorchCUDA(ctx)
	} else {
		lerr = launch.TorchAvailable(ctx)
	}
	var res *Result
	if lerr == nil {
		reason = "live run failed"
		res, lerr = Run(ctx, cfg)
		if lerr == nil && res != nil && len(res.Errors) > 0 {
			lerr = fmt.Errorf("c10dlab: the script reported: %s", strings.Join(res.Errors, "; "))
		}
	}
	if lerr == nil {
		return &Measurement{Measurement: &measure.Measurement{Run: res.Run, Live: true}, Result: res}, nil
	}
	if cerr := ctx.Err(); cerr != nil {
		return nil, fmt.Errorf("c10dlab: live run interrupted: %w", cerr)
	}
	if mode == measure.ModeLive {
		return nil, fmt.Errorf("c10dlab: live: %s: %w", reason, lerr)
	}
	return rec(reason+": "+oneLine(lerr.Error()), lerr)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + " ..."
	}
	return s
}
