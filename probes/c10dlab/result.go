package c10dlab

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/probes"
)

// What the script found, part by part, as summary.json holds it.

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
	return distinctSorted(p.Rows, func(r CoalesceRow) int { return r.Count })
}

// Sizes lists the tensor sizes measured, in bytes, sorted.
func (p *CoalescePart) Sizes() []int64 {
	return distinctSorted(p.Rows, func(r CoalesceRow) int64 { return r.Bytes })
}

// distinctSorted lists the values key takes over rows, each once, sorted.
func distinctSorted[T cmp.Ordered](rows []CoalesceRow, key func(CoalesceRow) T) []T {
	seen := map[T]bool{}
	var out []T
	for _, r := range rows {
		if k := key(r); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	slices.Sort(out)
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

// logClock matches the time of day c10d's log lines carry ("[E1202
// 06:55:05.390192474 ProcessGroupNCCL.cpp:689]"): month, day, clock.
var logClock = regexp.MustCompile(`\[[IWEF](\d{4} \d{2}:\d{2}:\d{2}\.\d+) `)

// LogSeconds returns when the first kept log line containing s was
// written, in seconds since midnight of its day: log lines carry the time of
// day, the marks seconds since the rank started, so gaps between log lines are
// read here and gaps between marks from the marks.
func (r TimeoutRank) LogSeconds(s string) (float64, bool) {
	m := logClock.FindStringSubmatch(r.LogWith(s))
	if m == nil {
		return 0, false
	}
	t, err := time.Parse("0102 15:04:05.999999999", m[1])
	if err != nil {
		return 0, false
	}
	return float64(t.Hour()*3600+t.Minute()*60+t.Second()) + float64(t.Nanosecond())/1e9, true
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
	World    int     `json:"world"`
	TimeoutS float64 `json:"timeout_s"`
	StallS   float64 `json:"stall_s"`
	// DumpWaitMS is TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC as the run set it
	// (the watchdog sleeps four times it before acting); 0 when the run
	// left PyTorch's default, 15000.
	DumpWaitMS float64 `json:"dump_wait_ms,omitempty"`
	// Concurrent is true when the modes ran side by side, each in its own
	// processes, rather than one after another.
	Concurrent bool         `json:"concurrent,omitempty"`
	Runs       []TimeoutRun `json:"runs"`
	Error      string       `json:"error,omitempty"`
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
	// Config is the torch._inductor.config patch the script applied (runs
	// before it named the configuration only).
	Config map[string]any `json:"config,omitempty"`
	Call   string         `json:"call"`
	Ops    []string       `json:"ops"`
	Error  string         `json:"error,omitempty"`
}

// InductorConfigs names the compile part's configurations in the script's
// order: the default, the reordering flag alone, the flag with its pass
// list, the FX overlap scheduler. Runs before the last two hold only the
// first two.
var InductorConfigs = []string{"default", "reorder_for_compute_comm_overlap", "reorder_passes", "overlap_scheduling"}

// UnderCollective returns the calls issued after the first collective and
// before the first wait_tensor: the work the generated code gives the
// collective to overlap with. Empty when the wait follows the collective
// at once, or when either is missing.
func (c InductorCode) UnderCollective() []string {
	start := -1
	for i, op := range c.Ops {
		switch {
		case start < 0 && strings.HasPrefix(op, "_c10d_functional.") && !strings.HasSuffix(op, "wait_tensor"):
			start = i
		case start >= 0 && strings.HasSuffix(op, "wait_tensor"):
			return append([]string(nil), c.Ops[start+1:i]...)
		}
	}
	return nil
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

// known says whether part is one of Parts.
func known(part string) bool {
	for _, p := range Parts {
		if p == part {
			return true
		}
	}
	return false
}

// PartsOf reads commlab probe c10d's --parts, a comma-separated list of
// Parts; empty: nil, every part.
func PartsOf(flag string) ([]string, error) {
	if flag == "" {
		return nil, nil
	}
	list := strings.Split(flag, ",")
	for _, p := range list {
		if !slices.Contains(Parts, p) {
			return nil, fmt.Errorf("--parts: %q is not one of %s", p, strings.Join(Parts, ", "))
		}
	}
	return list, nil
}
