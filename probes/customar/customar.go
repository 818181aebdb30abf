package customar

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/launch"
)

// Kind is the probes.Run kind of a custom all-reduce run.
const Kind = "custom-allreduce"

// Op is the Sample.Op of a timed custom all-reduce; Label is the
// algorithm (OneShot or TwoShot).
const Op = "custom_all_reduce"

// Placements a run's Settings["placement"] names.
const (
	// PlacementSingle: one rank, no IPC; the kernels read their own
	// buffers (launch, one read, one write, a barrier with itself).
	PlacementSingle = "single"
	// PlacementSameGPU: several processes share one GPU through CUDA IPC;
	// without MPS they time-slice.
	PlacementSameGPU = "same-gpu"
	// PlacementP2P: one rank per GPU, peers reached by P2P access.
	PlacementP2P = "p2p"
)

// SameGPUNote is the note a same-GPU run carries.
const SameGPUNote = "ranks share one GPU through CUDA IPC; without MPS their contexts time-slice, so each flag " +
	"wait lasts about one time slice: this run proves the handle exchange, the kernels and the sums, not memory " +
	"ordering across GPUs, and its times measure time slicing, not the all-reduce"

// Program exit statuses.
const (
	exitUnavailable = 3
	exitTimeout     = 4
	exitWrong       = 5
)

// ErrTimeout is wrapped in the error of a run whose flag wait or host
// barrier passed its deadline: a peer did not arrive.
var ErrTimeout = errors.New("customar: a peer did not arrive in time")

// ErrWrongSum is wrapped in the error of a run whose output was checked
// and found wrong; the run and its samples are returned with it.
var ErrWrongSum = errors.New("customar: wrong sums")

// Config says what to run.
type Config struct {
	// Ranks is the number of processes; 0 means 2.
	Ranks int
	// SameGPU puts every rank on GPU Device (processes sharing one GPU);
	// otherwise rank r runs on GPU r modulo the GPUs present.
	SameGPU bool
	Device  int
	// MinBytes and MaxBytes bound the sizes, doubling; 0 means 8 B and
	// 8 MiB.
	MinBytes, MaxBytes int64
	// Iters calls are timed per size after Warmup untimed ones; 0 means
	// 20 and 5.
	Iters, Warmup int
	// Algos are OneShot and/or TwoShot; empty means both.
	Algos []string
	// Blocks and Threads are the kernels' grid; 0 means 36 and 512 (vLLM's
	// defaults).
	Blocks, Threads int
	// Timeout bounds each flag wait inside a kernel; 0 means 10 s. The
	// whole run is bounded by ctx.
	Timeout time.Duration
	// CacheDir and Arch are Build's; "" means the default cache and
	// nvcc's -arch=native.
	CacheDir, Arch string
}

func (c Config) withDefaults() Config {
	if c.Ranks <= 0 {
		c.Ranks = 2
	}
	if c.MinBytes <= 0 {
		c.MinBytes = 8
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = 8 << 20
	}
	c.Iters = probes.PositiveOr(c.Iters, 20)
	if c.Warmup < 0 {
		c.Warmup = 0
	} else if c.Warmup == 0 {
		c.Warmup = 5
	}
	if len(c.Algos) == 0 {
		c.Algos = []string{OneShot, TwoShot}
	}
	c.Blocks = probes.PositiveOr(c.Blocks, 36)
	c.Threads = probes.PositiveOr(c.Threads, 512)
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	return c
}

// Args are the program's flags for rank r of c (with defaults applied),
// the shared directory dir.
func (c Config) Args(r int, dir string) []string {
	c = c.withDefaults()
	a := []string{"--rank", strconv.Itoa(r), "--nranks", strconv.Itoa(c.Ranks)}
	if c.Ranks > 1 {
		a = append(a, "--dir", dir)
	}
	if c.SameGPU {
		a = append(a, "--device", strconv.Itoa(max(c.Device, 0)))
	}
	return append(a,
		"--min", strconv.FormatInt(c.MinBytes, 10), "--max", strconv.FormatInt(c.MaxBytes, 10),
		"--iters", strconv.Itoa(c.Iters), "--warmup", strconv.Itoa(c.Warmup),
		"--algos", strings.Join(c.Algos, ","),
		"--blocks", strconv.Itoa(c.Blocks), "--threads", strconv.Itoa(c.Threads),
		"--timeout-ms", strconv.FormatInt(max(1, c.Timeout.Milliseconds()), 10))
}

// Validate checks c before anything starts.
func (c Config) Validate() error {
	c = c.withDefaults()
	if c.Ranks > 8 {
		return fmt.Errorf("customar: %d ranks: at most 8", c.Ranks)
	}
	if c.MinBytes%4 != 0 || c.MaxBytes%4 != 0 || c.MinBytes > c.MaxBytes {
		return fmt.Errorf("customar: sizes %d..%d: want multiples of 4 bytes (float32), min <= max", c.MinBytes, c.MaxBytes)
	}
	for _, a := range c.Algos {
		if a != OneShot && a != TwoShot {
			return fmt.Errorf("customar: algorithm %q: want %s or %s", a, OneShot, TwoShot)
		}
	}
	if c.Blocks > 64 || c.Threads > 1024 || c.Threads%32 != 0 {
		return fmt.Errorf("customar: grid %d x %d: at most 64 blocks of a multiple of 32 threads up to 1024", c.Blocks, c.Threads)
	}
	return nil
}

// Measure builds the program and runs it as c says.
func Measure(ctx context.Context, c Config) (*probes.Run, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	bin, err := Build(ctx, c.CacheDir, c.Arch)
	if err != nil {
		return nil, err
	}
	return MeasureWith(ctx, bin, c)
}

// MeasureWith starts c.Ranks processes of an already built program, waits
// for all of them and returns their run. A rank that fails makes the
// others fail too (their flag waits time out); the first failure in rank
// order is returned, with the run built from what the ranks printed.
func MeasureWith(ctx context.Context, bin string, c Config) (*probes.Run, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c = c.withDefaults()
	dir, err := os.MkdirTemp("", "commlab-customar-")
	if err != nil {
		return nil, fmt.Errorf("customar: %w", err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type rank struct {
		p              *launch.Process
		stdout, stderr launch.SyncBuffer
		code           int
		err            error
	}
	ranks := make([]*rank, c.Ranks)
	var wg sync.WaitGroup
	// The first rank to fail ends the others (they would wait for it until
	// their deadlines) and is the one whose error is returned.
	var mu sync.Mutex
	firstFail := -1
	for r := range ranks {
		rk := &rank{}
		ranks[r] = rk
		if rk.p, err = launch.Start(ctx, launch.Options{}, bin, c.Args(r, dir), &rk.stdout, &rk.stderr); err != nil {
			mu.Lock()
			started := firstFail >= 0 // a started rank failed first and cancelled this start: its error is the one to report
			mu.Unlock()
			cancel()
			wg.Wait()
			if !started {
				return nil, fmt.Errorf("customar: rank %d: %w", r, err)
			}
			ranks = ranks[:r]
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, err := rk.p.Wait()
			mu.Lock()
			defer mu.Unlock()
			rk.code, rk.err = code, err
			// Wrong sums end a rank only after every rank has finished:
			// nobody waits for it.
			if (err != nil || (code != 0 && code != exitWrong)) && firstFail < 0 {
				firstFail = r
				cancel()
			}
		}()
	}
	wg.Wait()
	logs := make([]string, len(ranks))
	for r, rk := range ranks {
		logs[r] = rk.stdout.String() + rk.stderr.String()
	}
	run, perr := FromLogs(logs)
	if run != nil {
		if b, err := os.ReadFile(driverVersionFile); err == nil {
			run.Driver = driverRelease(string(b))
		}
		run.Command = append([]string{bin}, c.Args(0, dir)...)
		run.Settings["command_rank_r"] = launch.ShellJoin(run.Command) + " (each rank r with --rank r)"
		run.Settings["program"] = bin
	}
	order := make([]int, 0, len(ranks))
	if firstFail >= 0 {
		order = append(order, firstFail)
	}
	for r := range ranks {
		if r != firstFail {
			order = append(order, r)
		}
	}
	for _, r := range order {
		rk := ranks[r]
		switch {
		case rk.err != nil:
			return run, fmt.Errorf("customar: rank %d: %w", r, rk.err)
		case rk.code == exitUnavailable:
			return run, fmt.Errorf("customar: %w: %s", probes.ErrUnavailable, reason(rk.stderr.String(), "unavailable"))
		case rk.code == exitTimeout:
			return run, fmt.Errorf("%w: rank %d: %s", ErrTimeout, r, reason(rk.stderr.String(), "timed out"))
		case rk.code == exitWrong:
			return run, fmt.Errorf("%w: rank %d: %s", ErrWrongSum, r, reason(rk.stderr.String(), "wrong sums"))
		case rk.code != 0:
			return run, fmt.Errorf("customar: rank %d exited with status %d: %s", r, rk.code, reason(rk.stderr.String(), "no message"))
		}
	}
	return run, perr
}

// reason is the program's last stderr line without its prefixes.
func reason(stderr, def string) string {
	s := strings.TrimSpace(stderr)
	if i := strings.LastIndex(s, "\n"); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimPrefix(s, Program.Name+": ")
	if f := strings.Fields(s); len(f) > 2 && f[0] == "rank" && strings.HasSuffix(f[1], ":") {
		s = strings.TrimSpace(strings.TrimPrefix(s, f[0]+" "+f[1]))
	}
	s = strings.TrimPrefix(s, "unavailable: ")
	if s == "" {
		return def
	}
	return s
}

// FromLogs builds a run from every rank's output (logs[r] is rank r's
// stdout, or stdout and stderr together): per algorithm and size one
// sample, whose time is the slowest rank's mean per call and whose Wrong
// counts the ranks whose check failed (-1 when no rank checked it). Date is
// now; callers that rebuild a recorded run set Date and Driver from its
// provenance (ReadProvenance).
func FromLogs(logs []string) (*probes.Run, error) {
	if len(logs) == 0 {
		return nil, fmt.Errorf("customar: no rank logs")
	}
	outs := make([]*Output, len(logs))
	for r, l := range logs {
		o, err := Parse(l)
		if err != nil {
			return nil, fmt.Errorf("customar: rank %d: %w", r, err)
		}
		outs[r] = o
	}
	first := outs[0]
	run := &probes.Run{Kind: Kind, Date: time.Now().UTC(), GPUModel: first.GPU,
		Tool: "commlab " + Program.Name + " " + Program.Hash(),
		Settings: map[string]string{"source_sha256": Program.Hash(), "ranks": strconv.Itoa(len(logs)),
			"timing": "CUDA events around iters back-to-back calls on each rank; a sample's time is the slowest rank's mean per call",
			"dtype":  "float32", "check": "every element of every rank's output after one call, against the exact sum"},
		Logs: map[string]string{}}
	if first.Runtime > 0 {
		run.CUDA = cudaVersion(first.Runtime)
	}
	for k, v := range first.Launch {
		run.Settings[k] = v
	}
	buses := map[string]bool{}
	for r, o := range outs {
		run.Logs["rank"+strconv.Itoa(r)] = logs[r]
		if o.Bus != "" {
			buses[o.Bus] = true
		}
		if o.NRanks != 0 && o.NRanks != len(logs) {
			return run, fmt.Errorf("customar: rank %d says %d ranks, have %d logs", r, o.NRanks, len(logs))
		}
		if o.Rank >= 0 && o.Rank != r {
			return run, fmt.Errorf("customar: log %d is rank %d's", r, o.Rank)
		}
		for _, e := range o.Errors {
			if run.Error == "" {
				run.Error = e
			}
		}
	}
	run.GPUCount = max(1, len(buses))
	switch {
	case len(logs) == 1:
		run.Settings["placement"] = PlacementSingle
		run.Notes = append(run.Notes, "one rank, no IPC: the kernels read the rank's own buffer; launch, one read, one write and a barrier with itself")
	case len(buses) <= 1:
		run.Settings["placement"] = PlacementSameGPU
		run.Notes = append(run.Notes, SameGPUNote)
	default:
		run.Settings["placement"] = PlacementP2P
	}
	type key struct {
		algo  string
		bytes int64
	}
	type agg struct {
		times   []float64
		iters   int
		checked int
		wrong   int
		order   int
	}
	all := map[key]*agg{}
	get := func(k key) *agg {
		a := all[k]
		if a == nil {
			a = &agg{order: len(all)}
			all[k] = a
		}
		return a
	}
	for _, o := range outs {
		for _, res := range o.Results {
			a := get(key{res.Algo, res.Bytes})
			a.times = append(a.times, res.USec)
			a.iters = res.Iters
		}
		for _, ch := range o.Checks {
			a := get(key{ch.Algo, ch.Bytes})
			a.checked++
			if !ch.OK {
				a.wrong++
			}
		}
	}
	keys := make([]key, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return all[keys[i]].order < all[keys[j]].order })
	n := len(logs)
	for _, k := range keys {
		a := all[k]
		if len(a.times) == 0 {
			continue // checked but not timed: the run stopped between
		}
		slowest := a.times[0]
		for _, t := range a.times[1:] {
			slowest = max(slowest, t)
		}
		s := probes.Sample{Op: Op, Label: k.algo, Bytes: k.bytes, Count: k.bytes / 4,
			Src: first.Device, Dst: first.Device, Ranks: n, Iters: a.iters, Wrong: -1}
		if a.checked > 0 {
			s.Wrong = int64(a.wrong)
		}
		s.SetTimes([]float64{slowest})
		if n > 1 {
			s.BusBW = s.AlgBW * 2 * float64(n-1) / float64(n)
		}
		run.Samples = append(run.Samples, s)
	}
	return run, nil
}

// driverVersionFile is where the NVIDIA kernel module says its version.
const driverVersionFile = "/proc/driver/nvidia/version"

// driverRelease reads the driver release ("580.159.04") from the text of
// /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX x86_64 Kernel
// Module  580.159.04  Thu ..."); "" when it is not there. The program's
// own cudaDriverGetVersion gives only the CUDA API version (13000).
func driverRelease(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "NVRM version:") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if strings.Count(f, ".") >= 1 && f[0] >= '0' && f[0] <= '9' {
				return f
			}
		}
	}
	return ""
}

// cudaVersion turns 13000 into "13.0".
func cudaVersion(v int) string {
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}

// Provenance is what a recording script's provenance file says about the
// machine (probes/gpubench/ch7.sh writes one).
type Provenance struct {
	Date   time.Time
	GPU    string
	Driver string
}

// ReadProvenance reads the "date_utc: ..." line and the first data row of
// the "nvidia-smi --query-gpu=name,driver_version,..." table of a
// provenance file. Fields it cannot find stay zero.
func ReadProvenance(text string) Provenance {
	var p Provenance
	sc := bufio.NewScanner(strings.NewReader(text))
	inSMI, header := false, false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "date_utc:"):
			if t, err := time.Parse(time.RFC3339, strings.TrimSpace(strings.TrimPrefix(line, "date_utc:"))); err == nil {
				p.Date = t.UTC()
			}
		case strings.HasPrefix(line, "--- nvidia-smi --query-gpu=name,driver_version"):
			inSMI, header = p.GPU == "", false
		case strings.HasPrefix(line, "---"):
			inSMI = false
		case inSMI && !header:
			header = true // the csv header row
		case inSMI:
			f := strings.Split(line, ",")
			if len(f) >= 2 {
				p.GPU, p.Driver = strings.TrimSpace(f[0]), strings.TrimSpace(f[1])
			}
			inSMI = false
		}
	}
	return p
}

// Apply sets run's date, driver and GPU from p where p has them.
func (p Provenance) Apply(run *probes.Run) {
	if !p.Date.IsZero() {
		run.Date = p.Date
	}
	if p.Driver != "" {
		run.Driver = p.Driver
	}
	if p.GPU != "" {
		run.GPUModel = p.GPU
	}
}
