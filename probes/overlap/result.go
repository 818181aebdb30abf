package overlap

import (
	"github.com/commlab/commlab/parse/torchtrace"
	"github.com/commlab/commlab/probes"
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
	return r.variant(func(v *Variant) bool { return v.Name == name })
}

// VariantIn returns the variant called name of one set ("variants",
// "variants-allreduce-avg"), or nil.
func (r *Result) VariantIn(set, name string) *Variant {
	return r.variant(func(v *Variant) bool { return v.Set == set && v.Name == name })
}

// variant returns the first variant that match accepts, or nil.
func (r *Result) variant(match func(*Variant) bool) *Variant {
	for i := range r.Variants {
		if match(&r.Variants[i]) {
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
