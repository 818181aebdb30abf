package measure

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/child"
	"github.com/commlab/commlab/probes/cuda"
	"github.com/commlab/commlab/probes/nccl"
	"github.com/commlab/commlab/probes/recorded"
)

// Mode says where a measurement's numbers come from.
type Mode string

// The modes a parameters cell may name.
const (
	// ModeAuto measures live when the GPU and the library are present and
	// shows the recording otherwise, saying why in the banner.
	ModeAuto Mode = "auto"
	// ModeLive measures live and fails plainly when that is not possible.
	ModeLive Mode = "live"
	// ModeRecorded shows the recording without touching the GPU.
	ModeRecorded Mode = "recorded"
)

// ErrMode says a mode is none of auto, live and recorded.
var ErrMode = errors.New("measure: unknown mode")

// ParseMode reads a mode as a parameters cell holds it: "auto", "live" or
// "recorded", in any case, with spaces around ignored; empty means auto.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ModeAuto, nil
	case ModeAuto, ModeLive, ModeRecorded:
		return m, nil
	}
	return "", fmt.Errorf("%w %q: want auto, live or recorded", ErrMode, s)
}

// Measurement is one measured or recorded run and where it came from.
type Measurement struct {
	Run *probes.Run
	// Live is true when Run was measured just now on this machine.
	Live bool
	// Fallback says, in one line, why auto mode showed the recording:
	// "no GPU here: ...", "no NCCL here: ...", "live run failed: ...".
	// Empty when the mode asked for the recording or the run is live.
	Fallback string
	// LiveError is the live failure behind Fallback, whole.
	LiveError error
	// Recorded is the recorded run's name (probes/recorded) when not live.
	Recorded string
}

// Runner holds the settings of live measurements. The zero Runner is what
// the package functions use.
type Runner struct {
	// NCCLCommand is the command that starts the NCCL worker child
	// (child.Options.Command): an executable whose main calls child.Serve
	// for child.Verb, with its arguments. Nil means this executable when it
	// is the commlab binary; elsewhere the live NCCL path says that a
	// command is needed.
	NCCLCommand []string
}

// NCCL sweeps collectives through NCCL (see nccl.Config), live in a child
// process or from the recorded run named recorded, as mode says.
func NCCL(ctx context.Context, mode Mode, cfg nccl.Config, recorded string) (*Measurement, error) {
	return Runner{}.NCCL(ctx, mode, cfg, recorded)
}

// Bandwidth times copies (see cuda.BandwidthConfig), live in this process
// or from the recorded run named recorded, as mode says.
func Bandwidth(ctx context.Context, mode Mode, cfg cuda.BandwidthConfig, recorded string) (*Measurement, error) {
	return Runner{}.Bandwidth(ctx, mode, cfg, recorded)
}

// Latency times kernel launches and graph replays (see
// cuda.LatencyConfig), live in this process or from the recorded run named
// recorded, as mode says.
func Latency(ctx context.Context, mode Mode, cfg cuda.LatencyConfig, recorded string) (*Measurement, error) {
	return Runner{}.Latency(ctx, mode, cfg, recorded)
}

// Recorded shows the recorded run called name: for runs that exist only
// recorded here (two GPUs on a one-GPU machine, a tool not installed).
func Recorded(name string) (*Measurement, error) {
	r, err := load(name, "")
	if err != nil {
		return nil, err
	}
	return &Measurement{Run: r, Recorded: name}, nil
}

// NCCL is the package function NCCL with r's settings.
func (r Runner) NCCL(ctx context.Context, mode Mode, cfg nccl.Config, recorded string) (*Measurement, error) {
	return r.nccl(ctx, mode, recorded, child.Request{Probe: child.NCCL, NCCL: cfg})
}

// NCCLTopologyEdit runs chapter 4's topology exercise (nccl.MeasureTopologyEdit:
// dump NCCL's topology, apply edit, run again on the edited file), live or
// from the recorded run named recorded, as mode says.
func NCCLTopologyEdit(ctx context.Context, mode Mode, cfg nccl.Config, edit, recorded string) (*Measurement, error) {
	return Runner{}.NCCLTopologyEdit(ctx, mode, cfg, edit, recorded)
}

// NCCLTopologyEdit is the package function NCCLTopologyEdit with r's settings.
func (r Runner) NCCLTopologyEdit(ctx context.Context, mode Mode, cfg nccl.Config, edit, recorded string) (*Measurement, error) {
	return r.nccl(ctx, mode, recorded, child.Request{Probe: child.NCCL, NCCL: cfg, TopologyEdit: edit})
}

// nccl runs req in a child process (child.Run) when a live run can
// happen: a GPU, every device the run names (a two-GPU run on a one-GPU
// machine shows its recording, saying why), NCCL and the child.
func (r Runner) nccl(ctx context.Context, mode Mode, recorded string, req child.Request) (*Measurement, error) {
	devices := req.NCCL.Devices
	return choose(ctx, "nccl", mode, recorded, func() (*probes.Run, string, error) {
		count, err := cudaInit()
		if err != nil {
			if cuda.IsUnavailable(err) {
				return nil, noGPU, err
			}
			return nil, failed, err
		}
		if need := slices.Max(append([]int{-1}, devices...)) + 1; need > count {
			return nil, fewGPUs, fmt.Errorf("this run needs devices %s and this machine has %d GPU(s)", deviceList(devices), count)
		}
		if _, _, err := ncclVersion(); err != nil {
			if errors.Is(err, probes.ErrUnavailable) {
				return nil, noNCCL, err
			}
			return nil, failed, err
		}
		run, err := runChild(ctx, req, child.Options{Command: r.NCCLCommand})
		if errors.Is(err, child.ErrNoChild) {
			return nil, noWorker, err
		}
		return run, failed, err
	})
}

// Bandwidth is the package function Bandwidth with r's settings.
func (r Runner) Bandwidth(ctx context.Context, mode Mode, cfg cuda.BandwidthConfig, recorded string) (*Measurement, error) {
	return choose(ctx, "bandwidth", mode, recorded, func() (*probes.Run, string, error) {
		run, err := inProcess(ctx, func() (*probes.Run, error) { return measureBandwidth(cfg) })
		return run, cudaReason(run, err), err
	})
}

// Latency is the package function Latency with r's settings.
func (r Runner) Latency(ctx context.Context, mode Mode, cfg cuda.LatencyConfig, recorded string) (*Measurement, error) {
	return choose(ctx, "latency", mode, recorded, func() (*probes.Run, string, error) {
		run, err := inProcess(ctx, func() (*probes.Run, error) { return measureLatency(cfg) })
		return run, cudaReason(run, err), err
	})
}

// Why a live run did not happen; the first words of Fallback.
const (
	noGPU    = "no GPU here"
	fewGPUs  = "too few GPUs here"
	noNCCL   = "no NCCL here"
	noWorker = "no NCCL worker"
	failed   = "live run failed"
)

// deviceList writes device indices as a person does: "0, 1".
func deviceList(devices []int) string {
	parts := make([]string, len(devices))
	for i, d := range devices {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, ", ")
}

// cudaReason is why an in-process live run did not happen: no GPU when
// CUDA could not be opened because it is absent (no run was begun), a
// failed live run otherwise.
func cudaReason(run *probes.Run, err error) string {
	if run == nil && cuda.IsUnavailable(err) {
		return noGPU
	}
	return failed
}

// The calls the live paths make; tests replace them.
var (
	cudaInit         = cuda.Init
	ncclVersion      = nccl.Version
	runChild         = child.Run
	measureBandwidth = cuda.MeasureBandwidth
	measureLatency   = cuda.MeasureLatency
)

// choose runs live or loads the recording, as mode says. live returns the
// run, the reason to give if it failed, and the failure.
func choose(ctx context.Context, kind string, mode Mode, name string, live func() (*probes.Run, string, error)) (*Measurement, error) {
	mode, err := ParseMode(string(mode))
	if err != nil {
		return nil, err
	}
	// A wrong name fails on every machine, not only on those without a GPU.
	if name != "" {
		if _, err := lookup(name); err != nil {
			return nil, err
		}
	}
	if mode == ModeRecorded {
		if name == "" {
			return nil, fmt.Errorf("measure: recorded %s: no recorded run named", kind)
		}
		r, err := load(name, kind)
		if err != nil {
			return nil, err
		}
		return &Measurement{Run: r, Recorded: name}, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("measure: %s: %w", kind, err)
	}
	run, reason, lerr := live()
	if lerr == nil {
		return &Measurement{Run: run, Live: true}, nil
	}
	if cerr := ctx.Err(); cerr != nil {
		// An interrupt stops the cell: no recording in its place.
		if errors.Is(lerr, cerr) {
			return nil, fmt.Errorf("measure: live %s: interrupted: %w", kind, lerr)
		}
		return nil, fmt.Errorf("measure: live %s: interrupted: %w (%w)", kind, cerr, lerr)
	}
	if mode == ModeLive {
		return nil, fmt.Errorf("measure: live %s: %s: %w", kind, reason, lerr)
	}
	fallback := reason + ": " + oneLine(lerr.Error())
	if name == "" {
		return nil, fmt.Errorf("measure: %s: %s, and no recorded run is named to show instead: %w", kind, reason, lerr)
	}
	r, err := load(name, kind)
	if err != nil {
		return nil, fmt.Errorf("%w (after %s)", err, fallback)
	}
	return &Measurement{Run: r, Recorded: name, Fallback: fallback, LiveError: lerr}, nil
}

// kinds are the recorded kinds each measurement may show.
var kinds = map[string][]string{
	"nccl":      {"nccl", "nccl-tests"},
	"bandwidth": {"bandwidth"},
	"latency":   {"latency"},
	// customar.Kind
	"custom-allreduce": {"custom-allreduce"},
}

// load reads the recorded run called name; a non-empty kind must match.
func load(name, kind string) (*probes.Run, error) {
	name, err := lookup(name)
	if err != nil {
		return nil, err
	}
	r, err := recorded.Load(name)
	if err != nil {
		return nil, fmt.Errorf("measure: %w", err)
	}
	if want, ok := kinds[kind]; ok {
		match := false
		for _, k := range want {
			match = match || r.Kind == k
		}
		if !match {
			return nil, fmt.Errorf("measure: recorded run %q is a %s run, not %s", name, r.Kind, strings.Join(want, " or "))
		}
	}
	return r, nil
}

// lookup returns name as probes/recorded lists it, or an error naming the
// recorded runs closest to it.
func lookup(name string) (string, error) {
	name = strings.TrimSuffix(strings.TrimSpace(name), ".json")
	all := recorded.List()
	for _, n := range all {
		if n == name {
			return n, nil
		}
	}
	if near := closest(name, all); len(near) > 0 {
		return "", fmt.Errorf("measure: %w: %q; did you mean %s?", recorded.ErrNotFound, name, strings.Join(near, ", "))
	}
	return "", fmt.Errorf("measure: %w: %q (have %s)", recorded.ErrNotFound, name, strings.Join(all, ", "))
}

// closest returns up to five names within a small edit distance of name
// (case ignored), nearest first.
func closest(name string, names []string) []string {
	limit := 2 + len(name)/4
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, n := range names {
		if d := distance(strings.ToLower(name), strings.ToLower(n)); d <= limit {
			cs = append(cs, cand{n, d})
		}
	}
	// Insertion sort: the list is short and stays in name order on ties.
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].d < cs[j-1].d; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	var out []string
	for i := 0; i < len(cs) && i < 5; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// busy is held while an in-process measurement uses the GPU, also one an
// interrupt stopped waiting for.
var busy = make(chan struct{}, 1)

// inProcess runs f on the GPU in this process, and stops waiting for it
// when ctx ends: CUDA work cannot be cancelled, so f finishes in the
// background and the next measurement waits for it.
func inProcess(ctx context.Context, f func() (*probes.Run, error)) (*probes.Run, error) {
	select {
	case busy <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for an earlier measurement to leave the GPU: %w", ctx.Err())
	}
	type result struct {
		run *probes.Run
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() { <-busy }()
		run, err := f()
		done <- result{run, err}
	}()
	select {
	case r := <-done:
		return r.run, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("stopped waiting; the work already on the GPU finishes in the background: %w", ctx.Err())
	}
}

// oneLine joins a message's lines and cuts it to a banner's length.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const maxRunes = 300
	if r := []rune(s); len(r) > maxRunes {
		s = string(r[:maxRunes]) + "…"
	}
	return s
}
