// Package overlap runs and reads chapter 5's overlap micro-benchmark
// (probes/launch's bench_overlap.py): GEMMs on the compute stream under a
// collective on ProcessGroupNCCL's stream, the variants that break the
// overlap (.item(), a synchronize, a wait() in the wrong place, an
// allocation that makes the caching allocator free), and the core
// question's cases (when the async call returns, when wait() returns, what
// a modification of the input before wait() does).
//
// A run of the benchmark is a folder: summary.json (settings, versions,
// step times) and one gzipped torch.profiler trace per variant or case.
// Load reads such a folder from any fs.FS, the recorded ones
// (probes/recorded's Files) as well as a live run's; each trace goes
// through probes/parse/torchtrace, so the overlap fraction and the
// timestamps come from the traces, not from the script's own arithmetic.
// Measure is the chapter's live-or-recorded call: live when python3 imports
// torch and sees a GPU, the recording otherwise, with measure's banner.
//
// The package starts processes only through probes/launch and stores no
// runs.
package overlap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/probes/measure"
	"github.com/commlab/commlab/probes/parse/torchtrace"
	"github.com/commlab/commlab/probes/recorded"
)

// StepRange is the record_function annotation around each profiled step of a
// variant; Analyze windows use it.
const StepRange = "bench:step"

// Variant is one way of placing the collective and the GEMMs.
type Variant struct {
	// Set is the output folder the variant came from ("variants",
	// "variants-allreduce-avg"): one collective for all its variants.
	Set  string `json:"set"`
	Name string `json:"name"`
	What string `json:"what"`
	// Coll is the collective the set used (all_gather, reduce_scatter,
	// all_reduce).
	Coll string `json:"coll"`
	// StepMS is the median step time from CUDA events (unprofiled steps);
	// WallMS the median wall time with a synchronize at each end.
	StepMS  float64   `json:"step_ms"`
	WallMS  float64   `json:"wall_ms"`
	StepsMS []float64 `json:"steps_ms"`
	// AllocRetries counts the caching allocator's free-and-retry events
	// during the timed steps (torch.cuda.memory_stats num_alloc_retries).
	AllocRetries int `json:"alloc_retries"`
	// Trace is the trace's file name; Analysis its overlap inside the
	// profiled steps.
	Trace    string               `json:"trace"`
	Analysis *torchtrace.Analysis `json:"analysis,omitempty"`
	// Timeline is the trace's GPU activities inside the first profiled
	// step, for drawing.
	Timeline []torchtrace.Activity `json:"-"`
}

// Case is one core-question case, its times in microseconds from the
// trace's first event, on the profiler's one clock for CPU and GPU.
type Case struct {
	Name    string `json:"name"`
	What    string `json:"what"`
	Setting string `json:"setting"`
	Trace   string `json:"trace"`
	// CallStartUS and CallReturnUS bound the collective's Python call
	// (record_function "cq:call"); WaitStartUS and WaitReturnUS work.wait().
	CallStartUS  float64 `json:"call_start_us"`
	CallReturnUS float64 `json:"call_return_us"`
	WaitStartUS  float64 `json:"wait_start_us"`
	WaitReturnUS float64 `json:"wait_return_us"`
	// QueuedEndUS is when the GEMMs queued before the call finished on the
	// GPU (the collective waits for them).
	QueuedEndUS float64 `json:"queued_end_us"`
	// CommActivities counts the GPU activities the call launched, CommKinds
	// names them; CommStartUS and CommEndUS bound them (zero when none).
	CommActivities int     `json:"comm_activities"`
	CommKinds      string  `json:"comm_kinds,omitempty"`
	CommStartUS    float64 `json:"comm_start_us"`
	CommEndUS      float64 `json:"comm_end_us"`
	// AfterStartUS is when the first kernel issued after wait() started.
	AfterStartUS float64 `json:"after_start_us,omitempty"`
	// ModifyStartUS and ModifyEndUS bound the kernel that wrote the input
	// (the race cases); zero when the case has none.
	ModifyStartUS float64 `json:"modify_start_us,omitempty"`
	ModifyEndUS   float64 `json:"modify_end_us,omitempty"`
	// NewStartUS and NewEndUS bound the fill of the tensor allocated after
	// the input was dropped (the allocator cases); zero when none.
	NewStartUS float64 `json:"new_start_us,omitempty"`
	NewEndUS   float64 `json:"new_end_us,omitempty"`
	// Facts are what the script checked on the data (elements modified,
	// memory reused), as it wrote them.
	Facts map[string]any `json:"facts,omitempty"`
	Error string         `json:"error,omitempty"`
}

// StartedByReturn says whether the collective's GPU work had started when
// the call returned.
func (c Case) StartedByReturn() bool {
	return c.CommActivities > 0 && c.CommStartUS <= c.CallReturnUS
}

// FinishedByWaitReturn says whether the collective's GPU work had ended
// when wait() returned.
func (c Case) FinishedByWaitReturn() bool {
	return c.CommActivities > 0 && c.CommEndUS <= c.WaitReturnUS
}

// ModifyRacesComm says whether the kernel writing the input ran while the
// collective's GPU work did.
func (c Case) ModifyRacesComm() bool {
	return c.CommActivities > 0 && c.ModifyEndUS > 0 && c.ModifyStartUS < c.CommEndUS && c.ModifyEndUS > c.CommStartUS
}

// NewRacesComm says whether the fill of the tensor allocated after the
// input was dropped ran while the collective (or the side copy) did: a
// race only when the new tensor got the input's memory.
func (c Case) NewRacesComm() bool {
	return c.CommActivities > 0 && c.NewEndUS > 0 && c.NewStartUS < c.CommEndUS && c.NewEndUS > c.CommStartUS
}

// Result is one run of the benchmark: its provenance, the variants and the
// core-question cases (of every setting loaded).
type Result struct {
	Run *probes.Run `json:"run"`
	// Calibration holds, per variant set, one GEMM's and the collective's
	// time alone (gemm_ms, comm_ms), the GEMMs per step and their rates.
	Calibration map[string]map[string]float64 `json:"calibration,omitempty"`
	Variants    []Variant                     `json:"variants"`
	Cases       []Case                        `json:"cases"`
	Errors      []string                      `json:"errors,omitempty"`
}

// Variant returns the variant called name of the first set that has it,
// or nil.
func (r *Result) Variant(name string) *Variant {
	for i := range r.Variants {
		if r.Variants[i].Name == name {
			return &r.Variants[i]
		}
	}
	return nil
}

// VariantIn returns the variant called name of one set ("variants",
// "variants-allreduce-avg"), or nil.
func (r *Result) VariantIn(set, name string) *Variant {
	for i := range r.Variants {
		if r.Variants[i].Set == set && r.Variants[i].Name == name {
			return &r.Variants[i]
		}
	}
	return nil
}

// Sets returns the variant sets loaded, in order.
func (r *Result) Sets() []string {
	var out []string
	for _, v := range r.Variants {
		if len(out) == 0 || out[len(out)-1] != v.Set {
			out = append(out, v.Set)
		}
	}
	return out
}

// Case returns the case called name under setting ("default",
// "blocking-wait", "avoid-record-streams"), or nil.
func (r *Result) Case(name, setting string) *Case {
	for i := range r.Cases {
		if r.Cases[i].Name == name && r.Cases[i].Setting == setting {
			return &r.Cases[i]
		}
	}
	return nil
}

// summary is summary.json as bench_overlap.py writes it.
type summary struct {
	Kind        string             `json:"kind"`
	Command     []string           `json:"command"`
	Settings    map[string]string  `json:"settings"`
	Env         map[string]string  `json:"env"`
	Date        string             `json:"date"`
	Host        string             `json:"host"`
	GPUModel    string             `json:"gpu_model"`
	GPUCount    int                `json:"gpu_count"`
	CUDA        string             `json:"cuda"`
	Driver      string             `json:"driver"`
	NCCL        string             `json:"nccl"`
	Tool        string             `json:"tool"`
	Calibration map[string]float64 `json:"calibration"`
	Variants    []struct {
		Variant      string    `json:"variant"`
		What         string    `json:"what"`
		AllocRetries int       `json:"alloc_retries"`
		StepMS       []float64 `json:"step_ms_events"`
		Median       float64   `json:"step_ms_median"`
		WallMedian   float64   `json:"step_ms_wall_median"`
		Trace        string    `json:"trace"`
	} `json:"variants"`
	Cases  []map[string]any `json:"cases"`
	Errors []string         `json:"errors"`
}

// Load reads the benchmark's output folders under dir in fsys: dir itself
// when it holds summary.json, else each sub-folder that does (a recorded
// run keeps variants/, cq-default/, cq-blocking-wait/, ...). A sub-folder's
// name after "cq-" is its cases' Setting; its variants' Set is its name.
// What parsed is returned with the errors of what did not.
func Load(fsys fs.FS, dir string) (*Result, error) {
	dirs := []string{dir}
	if _, err := fs.Stat(fsys, path.Join(dir, "summary.json")); err != nil {
		entries, rerr := fs.ReadDir(fsys, dir)
		if rerr != nil {
			return nil, fmt.Errorf("overlap: %w", rerr)
		}
		dirs = nil
		for _, e := range entries {
			if e.IsDir() {
				if _, err := fs.Stat(fsys, path.Join(dir, e.Name(), "summary.json")); err == nil {
					dirs = append(dirs, path.Join(dir, e.Name()))
				}
			}
		}
		if len(dirs) == 0 {
			return nil, fmt.Errorf("overlap: %s holds no summary.json, in itself or a sub-folder", dir)
		}
		// The variants' folders first (the run's provenance and settings
		// come from the first folder read), then the default settings'
		// cases, then the others.
		rank := func(d string) int {
			switch b := path.Base(d); {
			case strings.HasPrefix(b, "variants"):
				return 0
			case b == "cq-default":
				return 1
			}
			return 2
		}
		sort.Slice(dirs, func(i, j int) bool {
			if ri, rj := rank(dirs[i]), rank(dirs[j]); ri != rj {
				return ri < rj
			}
			return dirs[i] < dirs[j]
		})
	}
	res := &Result{}
	var errs []error
	for _, d := range dirs {
		if err := res.load(fsys, d, true); err != nil {
			errs = append(errs, err)
		}
	}
	return res, errors.Join(errs...)
}

// LoadVariants reads only the variants of one output folder.
func LoadVariants(fsys fs.FS, dir string) (*Result, error) {
	res := &Result{}
	err := res.load(fsys, dir, true)
	return res, err
}

func (res *Result) load(fsys fs.FS, dir string, variants bool) error {
	b, err := fs.ReadFile(fsys, path.Join(dir, "summary.json"))
	if err != nil {
		return fmt.Errorf("overlap: %w", err)
	}
	var s summary
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("overlap: %s: %w", path.Join(dir, "summary.json"), err)
	}
	if res.Run == nil {
		res.Run = runOf(&s)
	}
	for _, e := range s.Errors {
		res.Errors = append(res.Errors, path.Base(dir)+": "+e)
	}
	var errs []error
	if variants && len(s.Variants) > 0 {
		set := path.Base(dir)
		if set == "." {
			set = "variants"
		}
		if res.Calibration == nil {
			res.Calibration = map[string]map[string]float64{}
		}
		res.Calibration[set] = s.Calibration
		for _, v := range s.Variants {
			out := Variant{Set: set, Name: v.Variant, What: v.What, Coll: s.Settings["coll"], StepMS: v.Median, WallMS: v.WallMedian, StepsMS: v.StepMS,
				AllocRetries: v.AllocRetries, Trace: v.Trace}
			if v.Trace != "" {
				if err := out.analyze(fsys, path.Join(dir, v.Trace)); err != nil {
					errs = append(errs, err)
				}
			}
			res.Variants = append(res.Variants, out)
			res.Run.Samples = append(res.Run.Samples, sampleOf(out))
		}
	}
	setting := strings.TrimPrefix(path.Base(dir), "cq-")
	if setting == path.Base(dir) || setting == "" {
		setting = "default"
	}
	for _, m := range s.Cases {
		c := Case{Setting: setting, Facts: map[string]any{}}
		for k, v := range m {
			switch k {
			case "case":
				c.Name, _ = v.(string)
			case "what":
				c.What, _ = v.(string)
			case "trace":
				c.Trace, _ = v.(string)
			case "error":
				c.Error, _ = v.(string)
			default:
				if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
					v = int64(f) // counts of elements, not measurements
				}
				c.Facts[k] = v
			}
		}
		if c.Trace != "" {
			if err := c.read(fsys, path.Join(dir, c.Trace)); err != nil {
				errs = append(errs, err)
			}
		}
		res.Cases = append(res.Cases, c)
	}
	return errors.Join(errs...)
}

func runOf(s *summary) *probes.Run {
	settings := map[string]string{}
	for k, v := range s.Settings {
		if k != "out" { // where the script wrote, on the machine that ran it
			settings[k] = v
		}
	}
	r := &probes.Run{Kind: "torch-overlap", Command: s.Command, Settings: settings, Env: s.Env, Host: s.Host,
		GPUModel: s.GPUModel, GPUCount: s.GPUCount, Driver: s.Driver, CUDA: s.CUDA, NCCL: s.NCCL, Tool: s.Tool}
	if t, err := time.Parse(time.RFC3339Nano, s.Date); err == nil {
		r.Date = t.UTC()
	}
	if s.GPUCount == 1 {
		r.Notes = append(r.Notes, "one rank: NCCL runs each collective as a device copy or a one-rank kernel (launch and copy floor), not a ring")
	}
	return r
}

// sampleOf is a variant as a probes.Sample: its step times.
func sampleOf(v Variant) probes.Sample {
	s := probes.Sample{Op: "step:" + v.Name, Src: -1, Dst: -1, Wrong: -1, Label: "set=" + v.Set}
	us := make([]float64, len(v.StepsMS))
	for i, ms := range v.StepsMS {
		us[i] = ms * 1e3
	}
	s.SetTimes(us)
	if v.Analysis != nil {
		s.Label += " overlap_fraction=" + strconv.FormatFloat(v.Analysis.OverlapFraction, 'f', 3, 64)
	}
	return s
}

func readTrace(fsys fs.FS, name string) (*torchtrace.Trace, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("overlap: %w", err)
	}
	defer f.Close()
	tr, err := torchtrace.Parse(f)
	if err != nil {
		return tr, fmt.Errorf("overlap: %s: %w", name, err)
	}
	return tr, nil
}

func (v *Variant) analyze(fsys fs.FS, name string) error {
	tr, err := readTrace(fsys, name)
	if tr == nil || (err != nil && len(tr.Activities) == 0) {
		return err
	}
	an, aerr := tr.Analyze(torchtrace.Options{Within: StepRange, Device: -1})
	if aerr != nil {
		return errors.Join(err, fmt.Errorf("overlap: %s: %w", name, aerr))
	}
	v.Analysis = an
	if steps := tr.Ranges(StepRange); len(steps) > 0 {
		w := an.Windows[0]
		for _, a := range tr.Activities {
			if a.EndUS > w.StartUS && a.StartUS < w.EndUS && a.Device == an.Device {
				v.Timeline = append(v.Timeline, a)
			}
		}
	}
	return err
}

// span bounds the GPU work launched inside the first range called name;
// zeros when there is none.
func span(tr *torchtrace.Trace, name string) (start, end float64) {
	r, ok := first(tr, name)
	if !ok {
		return 0, 0
	}
	for _, a := range tr.LaunchedIn(r) {
		if end == 0 || a.StartUS < start {
			start = a.StartUS
		}
		end = math.Max(end, a.EndUS)
	}
	return start, end
}

// first returns the first range called name, and whether there is one.
func first(tr *torchtrace.Trace, name string) (torchtrace.Range, bool) {
	rs := tr.Ranges(name)
	if len(rs) == 0 {
		return torchtrace.Range{}, false
	}
	return rs[0], true
}

func (c *Case) read(fsys fs.FS, name string) error {
	tr, err := readTrace(fsys, name)
	if tr == nil || (err != nil && len(tr.Activities) == 0) {
		return err
	}
	call, ok := first(tr, "cq:call")
	if !ok {
		// The side-stream case issues a copy of its own instead.
		if call, ok = first(tr, "cq:side_copy"); !ok {
			return fmt.Errorf("overlap: %s: no cq:call or cq:side_copy range", name)
		}
	}
	c.CallStartUS, c.CallReturnUS = call.StartUS, call.EndUS
	if w, ok := first(tr, "cq:wait"); ok {
		c.WaitStartUS, c.WaitReturnUS = w.StartUS, w.EndUS
	}
	if q, ok := first(tr, "cq:gemms_before"); ok {
		for _, a := range tr.LaunchedIn(q) {
			c.QueuedEndUS = math.Max(c.QueuedEndUS, a.EndUS)
		}
	}
	kinds := map[string]bool{}
	for _, a := range tr.LaunchedIn(call) {
		if c.CommActivities == 0 || a.StartUS < c.CommStartUS {
			c.CommStartUS = a.StartUS
		}
		c.CommEndUS = math.Max(c.CommEndUS, a.EndUS)
		c.CommActivities++
		kinds[a.Name] = true
	}
	var ks []string
	for k := range kinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	c.CommKinds = strings.Join(ks, "; ")
	if r, ok := first(tr, "cq:after_wait"); ok {
		for _, a := range tr.LaunchedIn(r) {
			if c.AfterStartUS == 0 || a.StartUS < c.AfterStartUS {
				c.AfterStartUS = a.StartUS
			}
		}
	}
	c.ModifyStartUS, c.ModifyEndUS = span(tr, "cq:modify")
	c.NewStartUS, c.NewEndUS = span(tr, "cq:new_tensor")
	return err
}

// RecordedName is the recorded run of the benchmark on one H200.
const RecordedName = "torch-overlap-h200x1"

// Recorded loads the recorded run called name (probes/recorded) with its
// traces.
func Recorded(name string) (*Result, error) {
	run, err := recorded.Load(name)
	if err != nil {
		return nil, fmt.Errorf("overlap: %w", err)
	}
	res, err := Load(recorded.Files(), name)
	if res != nil && res.Run != nil {
		// The stored run carries the recording's provenance (the command
		// that recorded it, the script's checksum).
		samples := res.Run.Samples
		res.Run = run
		if len(run.Samples) == 0 {
			res.Run.Samples = samples
		}
	}
	return res, err
}

// Step is one invocation of the script in a live run: its output folder's
// name (the variants' Set, or "cq-" and the cases' Setting), its flags and
// its environment.
type Step struct {
	Name string
	Args []string
	Env  []string
}

// Steps are what Run does when Config.What is empty: the same folders as
// the recording (record_overlap.sh), so a live run reads like it.
var Steps = []Step{
	{Name: "variants", Args: []string{"--what", "variants"}},
	{Name: "variants-allreduce-avg", Args: []string{"--what", "variants", "--coll", "all_reduce"}},
	{Name: "cq-default", Args: []string{"--what", "cq"}, Env: []string{"TORCH_CPP_LOG_LEVEL=INFO"}},
	{Name: "cq-blocking-wait", Args: []string{"--what", "cq"}, Env: []string{"TORCH_CPP_LOG_LEVEL=INFO", "TORCH_NCCL_BLOCKING_WAIT=1"}},
	{Name: "cq-avoid-record-streams", Args: []string{"--what", "cq"}, Env: []string{"TORCH_CPP_LOG_LEVEL=INFO", "TORCH_NCCL_AVOID_RECORD_STREAMS=1"}},
}

// logMarks pick ProcessGroupNCCL's lines worth keeping from a step's
// output: the settings it read and what it said about them (the same
// choice import_overlap.sh makes for a recording).
var logMarks = []string{"environments", "options", "Eagerly", "non-blocking", "Warning", "NO watchdog"}

// keptLog returns the lines of out that ProcessGroupNCCL logged about its
// settings.
func keptLog(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, "ProcessGroupNCCL") {
			continue
		}
		for _, m := range logMarks {
			if strings.Contains(line, m) {
				keep = append(keep, strings.TrimRight(line, "\r"))
				break
			}
		}
	}
	return strings.Join(keep, "\n")
}

// Config is a live run's settings.
type Config struct {
	// Launch is how to start the script: python3 (Launcher "none") on one
	// GPU, or torchrun with PerNode GPUs.
	Launch launch.Options
	// What is "variants", "cq" or "variants,cq" for one invocation of the
	// script; empty runs Steps, one invocation each.
	What string
	// Args are more of the script's own flags (--bytes, --gemm, --variants,
	// ...).
	Args []string
	// OutDir keeps the script's outputs (summary.json, the traces) there;
	// empty means a temporary folder, removed after reading.
	OutDir string
	// Stdout and Stderr get the script's output (nil: discarded).
	Stdout, Stderr io.Writer
}

// Run runs the benchmark live into a temporary folder and reads it.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	dir := cfg.OutDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "commlab-overlap-out-")
		if err != nil {
			return nil, fmt.Errorf("overlap: %w", err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("overlap: %w", err)
	}
	stdout, stderr := cfg.Stdout, cfg.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	steps := []Step{{Name: ".", Args: []string{"--what", cfg.What}}}
	if cfg.What == "" {
		steps = Steps
	}
	var commands []string
	var runErrs []error
	logs := map[string]string{}
	for _, st := range steps {
		o := cfg.Launch
		o.Env = append(append([]string(nil), o.Env...), st.Env...)
		args := append(append([]string{"--out", filepath.Join(dir, st.Name)}, st.Args...), cfg.Args...)
		var captured bytes.Buffer
		cmdline, err := launch.OverlapBench.Run(ctx, o, args, io.MultiWriter(stdout, &captured), io.MultiWriter(stderr, &captured))
		if kept := keptLog(captured.String()); kept != "" {
			logs[st.Name] = kept
		}
		commands = append(commands, strings.TrimSpace(strings.Join(st.Env, " ")+" "+launch.ShellJoin(cmdline)))
		if err != nil {
			runErrs = append(runErrs, fmt.Errorf("%s: %w", st.Name, err))
			if ctx.Err() != nil {
				break
			}
		}
	}
	runErr := errors.Join(runErrs...)
	res, err := Load(os.DirFS(dir), ".")
	if res != nil && res.Run != nil {
		res.Run.Command = []string{strings.Join(commands, "; ")}
		if len(logs) > 0 {
			if res.Run.Logs == nil {
				res.Run.Logs = map[string]string{}
			}
			for k, v := range logs {
				res.Run.Logs[k] = v
			}
		}
		if runErr != nil {
			res.Run.Error = runErr.Error()
		}
	}
	if res == nil || res.Run == nil {
		return nil, errors.Join(runErr, err)
	}
	return res, err
}

// Measurement is the chapter's view of a run: measure's banner (live or
// recorded, with the provenance) and the result.
type Measurement struct {
	*measure.Measurement
	Result *Result
}

// Measure runs the benchmark live when mode allows and this machine can
// (python3 with PyTorch that sees a GPU), else shows the recorded run
// called name; auto mode says in the banner why it fell back.
func Measure(ctx context.Context, mode measure.Mode, cfg Config, name string) (*Measurement, error) {
	mode, err := measure.ParseMode(string(mode))
	if err != nil {
		return nil, err
	}
	rec := func(fallback string, lerr error) (*Measurement, error) {
		res, err := Recorded(name)
		if res == nil || res.Run == nil {
			return nil, err
		}
		return &Measurement{Measurement: &measure.Measurement{Run: res.Run, Recorded: name, Fallback: fallback, LiveError: lerr}, Result: res}, err
	}
	if mode == measure.ModeRecorded {
		return rec("", nil)
	}
	reason := "no PyTorch with a GPU here"
	lerr := launch.TorchCUDA(ctx)
	var res *Result
	if lerr == nil {
		reason = "live run failed"
		res, lerr = Run(ctx, cfg)
		if lerr == nil && res != nil && len(res.Errors) > 0 {
			lerr = fmt.Errorf("overlap: the benchmark reported: %s", strings.Join(res.Errors, "; "))
		}
	}
	if lerr == nil {
		return &Measurement{Measurement: &measure.Measurement{Run: res.Run, Live: true}, Result: res}, nil
	}
	if cerr := ctx.Err(); cerr != nil {
		return nil, fmt.Errorf("overlap: live run interrupted: %w", cerr)
	}
	if mode == measure.ModeLive {
		return nil, fmt.Errorf("overlap: live: %s: %w", reason, lerr)
	}
	fallback := reason + ": " + oneLine(lerr.Error())
	if errors.Is(lerr, launch.ErrNoTorch) {
		fallback = oneLine(strings.TrimPrefix(lerr.Error(), "launch: "))
	}
	return rec(fallback, lerr)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// Setting is one name and value ProcessGroupNCCL logged at creation.
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// LoggedSettings reads the settings out of ProcessGroupNCCL's INFO log
// lines ("... environments: NAME: VALUE, NAME (what it is): VALUE, ..." and
// "... initialization options: ..."), in the order logged, and returns
// them with the other lines kept whole after their "] " prefix (warnings,
// "TORCH_NCCL_BLOCKING_WAIT is enabled, NO watchdog thread is created.").
func LoggedSettings(log string) (settings []Setting, messages []string) {
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		body := line
		if i := strings.LastIndex(line, "] "); i >= 0 {
			body = line[i+2:]
		}
		head, list, ok := strings.Cut(body, "environments: ")
		if !ok {
			head, list, ok = strings.Cut(body, "options: ")
		}
		if !ok || strings.Contains(head, ":") {
			messages = append(messages, body)
			continue
		}
		for _, kv := range strings.Split(list, ", ") {
			k, v, found := strings.Cut(kv, ": ")
			if !found {
				continue
			}
			if i := strings.Index(k, " ("); i > 0 {
				k = k[:i]
			}
			settings = append(settings, Setting{Name: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
		}
	}
	return settings, messages
}
