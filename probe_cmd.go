package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/commlab/commlab/lab/doctor"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/cuda"
	"github.com/commlab/commlab/probes/fake"
	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/probes/nccl"
	"github.com/commlab/commlab/probes/nvml"
	"github.com/commlab/commlab/probes/parse/nccllog"
	"github.com/commlab/commlab/probes/parse/nccltests"
	"github.com/commlab/commlab/probes/parse/ncclxml"
	"github.com/commlab/commlab/probes/parse/nvbandwidth"
	"github.com/commlab/commlab/probes/rdma"
	"github.com/commlab/commlab/probes/sysfs"
	"github.com/commlab/commlab/probes/topograph"
	"github.com/commlab/commlab/units"
)

// This file holds the probe verbs: topo reads the machine (NVML, sysfs);
// bandwidth and latency measure through probes/cuda, nccl through
// probes/nccl; rdma-write builds and runs commlab's own verbs program
// (probes/rdma), and perftest runs ib_write_bw and its kin through it too;
// nccl-tests and nvbandwidth run the external tools through probes/launch
// and parse their outputs; torch runs the PyTorch
// reference that --compare reads.

// measureFlags are the output flags every measuring kind shares.
type measureFlags struct {
	json    *bool
	save    *string
	compare *string
	load    *string
}

func addMeasureFlags(fs *flag.FlagSet, compare bool) measureFlags {
	m := measureFlags{
		json: fs.Bool("json", false, "print the run as JSON"),
		save: fs.String("save", "", "also write the run to this JSON file"),
	}
	if compare {
		m.compare = fs.String("compare", "", "compare with a reference run (e.g. one that commlab probe torch wrote)")
		m.load = fs.String("load", "", "show a saved run instead of measuring")
	}
	return m
}

// sweepFlags are the flags of the probes that sweep message sizes over
// devices (bandwidth, nccl): --sizes or -b/-e/-f, and --devices.
type sweepFlags struct {
	sizes, lo, hi, devices *string
	factor                 *int64
}

// addSweepFlags declares them; noun names a size in the help ("copy size"),
// and ncclTests adds the nccl-tests flag each of -b/-e/-f mirrors.
func addSweepFlags(fs *flag.FlagSet, noun, lo, hi string, factor int64, ncclTests bool) sweepFlags {
	as := func(f string) string {
		if ncclTests {
			return " (nccl-tests -" + f + ")"
		}
		return ""
	}
	return sweepFlags{
		sizes:   fs.String("sizes", "", "comma-separated "+noun+"s (overrides -b/-e/-f)"),
		lo:      fs.String("b", lo, "smallest "+noun+as("b")),
		hi:      fs.String("e", hi, "largest "+noun+as("e")),
		factor:  fs.Int64("f", factor, "size multiplication factor"+as("f")),
		devices: fs.String("devices", "", "device indices (default all)"),
	}
}

// values are the sizes and device indices the flags ask for; nil devices
// means all.
func (f sweepFlags) values() (sizes []int64, devices []int, err error) {
	if sizes, err = sizeSweep(*f.sizes, *f.lo, *f.hi, *f.factor); err != nil {
		return nil, nil, err
	}
	if devices, err = parseInts(*f.devices); err != nil {
		return nil, nil, err
	}
	return sizes, devices, nil
}

// parseSize reads a positive size in units' grammar: 8, 4K, 1M, 8G and
// 1MiB are powers of 1024 (as nccl-tests reads -b/-e), 1MB is 10^6.
func parseSize(s string) (int64, error) {
	return units.ParsePositiveSize(s)
}

// sizeSweep builds the sizes from -b/-e/-f or an explicit --sizes list.
func sizeSweep(list, lo, hi string, factor int64) ([]int64, error) {
	if list != "" {
		return units.ParseSizeList(list)
	}
	a, err := parseSize(lo)
	if err != nil {
		return nil, err
	}
	b, err := parseSize(hi)
	if err != nil {
		return nil, err
	}
	return units.Sweep(a, b, factor)
}

func parseInts(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 0 {
			return nil, fmt.Errorf("bad device index %q", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// progressBar draws "[####....] 12/40 what" on a terminal and nothing
// elsewhere, so logs and pipes stay clean.
type progressBar struct {
	w  io.Writer
	on bool
}

func newProgressBar(w io.Writer) *progressBar {
	f, ok := w.(*os.File)
	return &progressBar{w: w, on: ok && term.IsTerminal(int(f.Fd()))}
}

func (p *progressBar) update(done, total int, what string) {
	if !p.on || total <= 0 {
		return
	}
	const width = 30
	fill := width * done / total
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %d/%d %s", strings.Repeat("#", fill), strings.Repeat(".", width-fill), done, total, what)
	if done >= total {
		fmt.Fprintln(p.w)
	}
}

// loaded returns the run named by --load, or nil when measuring. A run
// that cannot be loaded is bad input: the error says why.
func (mf measureFlags) loaded() (*probes.Run, error) {
	if mf.load == nil || *mf.load == "" {
		return nil, nil
	}
	return probes.LoadRun(*mf.load)
}

// inputs loads the runs --load and --compare name, before anything is
// measured.
func (mf measureFlags) inputs() (loaded, ref *probes.Run, err error) {
	if loaded, err = mf.loaded(); err != nil {
		return nil, nil, err
	}
	ref, err = mf.reference()
	return loaded, ref, err
}

// reference loads the run named by --compare, or nil when not comparing.
func (mf measureFlags) reference() (*probes.Run, error) {
	if mf.compare == nil || *mf.compare == "" {
		return nil, nil
	}
	return probes.LoadRun(*mf.compare)
}

// finishRun prints and saves a run, and compares it when asked.
func finishRun(run, ref *probes.Run, mf measureFlags, stdout, stderr io.Writer, printTable func(io.Writer, *probes.Run)) int {
	if *mf.save != "" {
		if err := run.Save(*mf.save); err != nil {
			fmt.Fprintln(stderr, "commlab probe:", err)
			return 1
		}
	}
	if *mf.json {
		if err := run.WriteJSON(stdout); err != nil {
			fmt.Fprintln(stderr, "commlab probe:", err)
			return 1
		}
	} else {
		fmt.Fprintln(stdout, "#", run.Provenance())
		if l2 := l2Line(run); l2 != "" {
			fmt.Fprintln(stdout, "#", l2)
		}
		for _, n := range run.Notes {
			fmt.Fprintln(stdout, "# note:", n)
		}
		printTable(stdout, run)
	}
	if ref != nil {
		w := stdout
		if *mf.json {
			w = stderr
		}
		writeComparison(w, probes.Compare(run, ref))
	}
	if run.Error != "" {
		fmt.Fprintln(stderr, "commlab probe: run stopped early:", run.Error)
		return 1
	}
	return 0
}

// l2Line says how large the GPUs' L2 cache is, where copies stop fitting
// in it; empty for runs that did not record it.
func l2Line(run *probes.Run) string {
	if run.L2Bytes() <= 0 {
		return ""
	}
	var sizes []string
	for _, f := range strings.Split(run.Settings[probes.SettingL2Bytes], ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return ""
		}
		sizes = append(sizes, units.FormatSize(n))
	}
	return "L2 cache per GPU: " + strings.Join(sizes, ", ") + " (copies whose buffers fit may not reach HBM)"
}

func runProbeBandwidth(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab probe bandwidth", stderr, "usage: commlab probe bandwidth [flags]")
	sf := addSweepFlags(fs, "copy size", "4K", "1G", 4, false)
	ops := fs.String("ops", strings.Join(cuda.AllCopyOps, ","), "copy operations to measure")
	warmup := fs.Int("warmup", 3, "untimed copies per size")
	iters := fs.Int("iters", 10, "copies per timed repetition")
	reps := fs.Int("reps", 7, "timed repetitions (median reported)")
	mf := addMeasureFlags(fs, true)
	if status, ok := parseOnlyFlags(fs, args, stderr); !ok {
		return status
	}
	cfg := cuda.BandwidthConfig{Warmup: *warmup, Iters: *iters, Reps: *reps, Ops: strings.Split(*ops, ",")}
	var err error
	if cfg.Sizes, cfg.Devices, err = sf.values(); err != nil {
		return fail(fs, stderr, 2, "%v", err)
	}
	for _, op := range cfg.Ops {
		if !slices.Contains(cuda.AllCopyOps, op) {
			return fail(fs, stderr, 2, "unknown operation %q (known: %s)", op, strings.Join(cuda.AllCopyOps, ", "))
		}
	}
	r, ref, err := mf.inputs()
	if err != nil {
		return fail(fs, stderr, exitBadInput, "%v", err)
	}
	if r != nil {
		return finishRun(r, ref, mf, stdout, stderr, printCopyTable)
	}
	cfg.Progress = newProgressBar(stderr).update
	run, err := cuda.MeasureBandwidth(cfg)
	if run == nil {
		return fail(fs, stderr, 1, "%v", err)
	}
	run.Command = append([]string{"commlab", "probe", "bandwidth"}, args...)
	return finishRun(run, ref, mf, stdout, stderr, printCopyTable)
}

func printCopyTable(w io.Writer, run *probes.Run) {
	fmt.Fprintf(w, "%-16s %5s %5s %12s %12s %10s %8s %6s\n", "op", "src", "dst", "bytes", "median(µs)", "GB/s", "spread%", "wrong")
	for _, s := range run.Samples {
		fmt.Fprintf(w, "%-16s %5s %5s %12d %12.2f %10.2f %8.1f %6d\n", s.Op, devName(s.Src), devName(s.Dst), s.Bytes, s.MedianUS, s.AlgBW, s.SpreadPct(), s.Wrong)
	}
}

func devName(d int) string {
	if d < 0 {
		return "host"
	}
	return "gpu" + strconv.Itoa(d)
}

func runProbeLatency(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab probe latency", stderr, "usage: commlab probe latency [flags]")
	device := fs.Int("device", 0, "device index")
	iters := fs.Int("iters", 200, "operations per repetition")
	reps := fs.Int("reps", 11, "repetitions (median reported)")
	graphK := fs.Int("graph-kernels", 100, "kernels captured in the replayed graph")
	mf := addMeasureFlags(fs, false)
	if status, ok := parseOnlyFlags(fs, args, stderr); !ok {
		return status
	}
	if *iters <= 0 || *reps <= 0 || *graphK <= 0 || *device < 0 {
		return fail(fs, stderr, 2, "--iters, --reps, --graph-kernels must be positive and --device not negative")
	}
	run, err := cuda.MeasureLatency(cuda.LatencyConfig{Device: *device, Iters: *iters, Reps: *reps, GraphKernels: *graphK, Progress: newProgressBar(stderr).update})
	if run == nil {
		return fail(fs, stderr, 1, "%v", err)
	}
	run.Command = append([]string{"commlab", "probe", "latency"}, args...)
	return finishRun(run, nil, mf, stdout, stderr, func(w io.Writer, r *probes.Run) {
		fmt.Fprintf(w, "%-26s %12s %10s %10s %s\n", "op", "median(µs)", "min(µs)", "max(µs)", "label")
		for _, s := range r.Samples {
			fmt.Fprintf(w, "%-26s %12.3f %10.3f %10.3f %s\n", s.Op, s.MedianUS, s.MinUS, s.MaxUS, s.Label)
		}
	})
}

func runProbeNCCL(args []string, stdout, stderr io.Writer) int {
	if nccl.IsWorker() {
		// The child side of MeasureInChild: the parent reads our run file.
		if err := nccl.ServeWorker(stderr); err != nil {
			fmt.Fprintln(stderr, "commlab probe nccl (worker):", err)
			return 1
		}
		return 0
	}
	fs := newFlags("commlab probe nccl", stderr, "usage: commlab probe nccl [flags]")
	colls := fs.String("coll", "all_reduce", "collectives, comma-separated: "+strings.Join(nccl.Collectives, ",")+" (or all; unpaired_send and stalled_stream hang on purpose)")
	sf := addSweepFlags(fs, "size", "8", "128M", 2, true)
	dtype := fs.String("dtype", "float32", "data type (int8 ... float8e5m2)")
	op := fs.String("op", "sum", "reduction: sum, prod, max, min, avg")
	root := fs.Int("root", 0, "root rank of broadcast and reduce")
	modes := fs.String("modes", "out,in", "out-of-place and/or in-place")
	warmup := fs.Int("warmup", 5, "untimed operations per size (nccl-tests -w)")
	iters := fs.Int("iters", 20, "operations per timed repetition (nccl-tests -n)")
	reps := fs.Int("reps", 5, "timed repetitions, median reported")
	check := fs.Bool("check", true, "check results (nccl-tests -c)")
	timeout := fs.Duration("timeout", 5*time.Minute, "abort a batch of operations not done in this time")
	blocking := fs.Bool("blocking", false, "blocking communicators, as nccl-tests and PyTorch use (a hang then ends the worker process instead of being aborted in-process)")
	algo := fs.String("algo", "", "set NCCL_ALGO")
	proto := fs.String("proto", "", "set NCCL_PROTO")
	nch := fs.Int("nchannels", 0, "set NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS")
	debug := fs.String("debug", "INFO", "NCCL_DEBUG level for the captured log (empty: none)")
	subsys := fs.String("debug-subsys", "INIT,GRAPH,ENV", "NCCL_DEBUG_SUBSYS")
	inProcess := fs.Bool("in-process", false, "measure in this process (NCCL_* settings of later runs are then ignored)")
	topoDump := fs.Bool("topo-dump", false, "keep NCCL's topology and graph dumps (NCCL_TOPO_DUMP_FILE, NCCL_GRAPH_DUMP_FILE) in the run")
	topoFile := fs.String("topo-file", "", "run with this topology instead of NCCL's own detection (NCCL_TOPO_FILE), kept in the run")
	topoEdit := fs.String("topo-edit", "", "run twice: dump the topology, edit it (`EDIT`: "+topoEditNames()+"), run again on the edited file, and print both graph searches")
	var env []string
	fs.Func("env", "NAME=VALUE for the run (repeatable)", func(kv string) error { env = append(env, kv); return nil })
	mf := addMeasureFlags(fs, true)
	if status, ok := parseOnlyFlags(fs, args, stderr); !ok {
		return status
	}
	cfg := nccl.Config{DType: *dtype, RedOp: *op, Root: *root, Warmup: *warmup, Iters: *iters, Reps: *reps,
		Check: *check, Timeout: *timeout, Blocking: *blocking, Env: map[string]string{}}
	bad := func(err error) int { return fail(fs, stderr, 2, "%v", err) }
	var err error
	if cfg.Sizes, cfg.Devices, err = sf.values(); err != nil {
		return bad(err)
	}
	if *colls == "all" {
		cfg.Collectives = nccl.Collectives
	} else {
		cfg.Collectives = strings.Split(*colls, ",")
	}
	for _, c := range cfg.Collectives {
		if !slices.Contains(nccl.Collectives, c) && c != nccl.UnpairedSend && c != nccl.StalledStream {
			return bad(fmt.Errorf("unknown collective %q", c))
		}
	}
	cfg.Modes = strings.Split(*modes, ",")
	for _, m := range cfg.Modes {
		if m != "out" && m != "in" {
			return bad(fmt.Errorf("mode %q: want out or in", m))
		}
	}
	if _, err := nccl.LookupDType(*dtype); err != nil {
		return bad(err)
	}
	if !slices.Contains(nccl.RedOps, *op) {
		return bad(fmt.Errorf("unknown reduction %q", *op))
	}
	if *warmup < 0 || *iters <= 0 || *reps <= 0 || *timeout <= 0 {
		return bad(errors.New("--iters, --reps and --timeout must be positive"))
	}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return bad(fmt.Errorf("--env %q: want NAME=VALUE", kv))
		}
		cfg.Env[k] = v
	}
	if *algo != "" {
		cfg.Env["NCCL_ALGO"] = *algo
	}
	if *proto != "" {
		cfg.Env["NCCL_PROTO"] = *proto
	}
	if *nch > 0 {
		cfg.Env["NCCL_MIN_NCHANNELS"], cfg.Env["NCCL_MAX_NCHANNELS"] = strconv.Itoa(*nch), strconv.Itoa(*nch)
	}
	if *debug != "" {
		cfg.Env["NCCL_DEBUG"] = *debug
		cfg.Env["NCCL_DEBUG_SUBSYS"] = *subsys
	}
	cfg.DumpTopology = *topoDump
	if *topoFile != "" {
		b, err := os.ReadFile(*topoFile)
		if err != nil {
			return fail(fs, stderr, exitBadInput, "%v", err)
		}
		cfg.TopoXML = string(b)
	}
	if *inProcess && (*topoDump || *topoFile != "" || *topoEdit != "") {
		return bad(errors.New("--topo-dump, --topo-file and --topo-edit need the child process NCCL reads its settings in (drop --in-process)"))
	}
	if *topoEdit != "" {
		if err := ncclxml.CheckEdit(*topoEdit); err != nil {
			return bad(err)
		}
	}
	if *topoEdit != "" && *topoFile != "" {
		return bad(errors.New("--topo-edit edits the topology NCCL dumps; it does not take --topo-file"))
	}
	r, ref, err := mf.inputs()
	if err != nil {
		return fail(fs, stderr, exitBadInput, "%v", err)
	}
	if r != nil {
		return finishRun(r, ref, mf, stdout, stderr, printNCCLTable)
	}
	if _, _, err := nccl.Version(); err != nil {
		return fail(fs, stderr, 1, "%v", err)
	}
	if _, err := cuda.Init(); err != nil {
		return fail(fs, stderr, 1, "%v", err)
	}
	pb := newProgressBar(stderr)
	cfg.Progress = pb.update
	var run *probes.Run
	if *inProcess {
		for k, v := range cfg.Env {
			os.Setenv(k, v)
		}
		run, err = nccl.Measure(cfg)
	} else {
		exe, xerr := os.Executable()
		if xerr != nil {
			return fail(fs, stderr, 1, "%v", xerr)
		}
		argv := []string{exe, "probe", "nccl"}
		if *topoEdit != "" {
			run, err = nccl.MeasureTopologyEdit(context.Background(), cfg, *topoEdit, argv)
			printGraphSearches(stdout, run)
		} else {
			run, err = nccl.MeasureInChild(context.Background(), cfg, argv)
		}
	}
	if run == nil {
		return fail(fs, stderr, 1, "%v", err)
	}
	run.Command = append([]string{"commlab", "probe", "nccl"}, args...)
	if err != nil && run.Error == "" {
		run.Error = err.Error()
	}
	return finishRun(run, ref, mf, stdout, stderr, printNCCLTable)
}

func topoEditNames() string {
	var names []string
	for _, e := range ncclxml.Edits {
		names = append(names, e.Name)
	}
	return strings.Join(names, ", ")
}

// printGraphSearches prints the graph search lines of a topology edit's
// two runs, the first run's above the edited one's.
func printGraphSearches(w io.Writer, run *probes.Run) {
	if run == nil {
		return
	}
	sides := []struct{ title, log string }{{"detected topology", "base-nccl-debug"}, {"edited topology", "nccl-debug"}}
	if _, edited := run.Logs["base-nccl-debug"]; !edited {
		// The edit did not apply: the run is the first one, on the detected topology.
		sides = sides[:1]
		sides[0].log = "nccl-debug"
	}
	for _, side := range sides {
		text, ok := run.Logs[side.log]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "# %s: graph searches (NCCL_DEBUG_SUBSYS must include GRAPH)\n", side.title)
		lg, _ := nccllog.Parse(strings.NewReader(text))
		if lg == nil || len(lg.GraphSearches) == 0 {
			fmt.Fprintln(w, "#   none in the log")
			continue
		}
		for _, g := range lg.GraphSearches {
			fmt.Fprintln(w, "#  ", g)
		}
	}
	for _, n := range run.Notes {
		if strings.HasPrefix(n, "NCCL_TOPO_FILE:") {
			fmt.Fprintln(w, "#", n)
		}
	}
}

func printNCCLTable(w io.Writer, run *probes.Run) {
	fmt.Fprintf(w, "%-15s %12s %12s %-9s %-4s %12s %10s %10s %8s %6s\n", "collective", "size", "count", "type", "mode", "time(µs)", "algbw", "busbw", "spread%", "wrong")
	for _, s := range run.Samples {
		wrong := strconv.FormatInt(s.Wrong, 10)
		if s.Wrong < 0 {
			wrong = "N/A"
		}
		fmt.Fprintf(w, "%-15s %12d %12d %-9s %-4s %12.2f %10.2f %10.2f %8.1f %6s\n", s.Op, s.Bytes, s.Count, s.DType, placement(s.InPlace), s.MedianUS, s.AlgBW, s.BusBW, s.SpreadPct(), wrong)
	}
}

// writeComparison prints the comparison of a run with a reference run.
func writeComparison(w io.Writer, cs []probes.Comparison) {
	if len(cs) == 0 {
		fmt.Fprintln(w, "# comparison: no samples in common")
		return
	}
	pass := 0
	fmt.Fprintf(w, "# comparison with the reference (ratio = ours / reference time)\n%-16s %12s %-4s %12s %12s %8s %-10s %s\n", "op", "bytes", "mode", "ours(µs)", "ref(µs)", "ratio", "criteria", "verdict")
	for _, c := range cs {
		v := "FAIL"
		if c.Pass {
			v, pass = "ok", pass+1
		}
		fmt.Fprintf(w, "%-16s %12d %-4s %12.3f %12.3f %8.4f %-10s %s\n", c.Op, c.Bytes, placement(c.InPlace), c.OursUS, c.RefUS, c.Ratio, c.Criteria, v)
	}
	fmt.Fprintf(w, "# %d of %d within criteria\n", pass, len(cs))
}

// placement names a collective's mode column: in-place or out-of-place.
func placement(inPlace bool) string {
	if inPlace {
		return "in"
	}
	return "out"
}

// toolParser reads a tool's output into the run (its samples, tool and
// library versions) and returns what it parsed, for --json and summary.
type toolParser struct {
	parse   func(out string, run *probes.Run) (any, error)
	summary func(w io.Writer, parsed any)
}

// toolArgs splits the arguments at "--": commlab's flags, then the tool's.
func toolArgs(args []string) (ours, tool []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

// toolRun runs an external tool through probes/launch (through the user's
// launcher when asked) and hands its output to p.
func toolRun(kind, defaultProgram string, args []string, stdout, stderr io.Writer, p toolParser) int {
	fs := newFlags("commlab probe "+kind, stderr, "usage: commlab probe "+kind+" [flags] [-- tool arguments]")
	tool := launch.Tool{Kind: kind}
	fs.StringVar(&tool.Program, "tool", defaultProgram, "the tool's binary (name on PATH or path)")
	reparse := fs.String("load", "", "parse again the output kept in a saved run instead of running the tool")
	tool.AddFlags(fs)
	dryRun := fs.Bool("dry-run", false, "print the command instead of running it")
	mf := addMeasureFlags(fs, false)
	args, tool.Args = toolArgs(args)
	rest, status, ok := parseFlags(fs, args)
	if !ok {
		return status
	}
	if len(rest) > 0 {
		return fail(fs, stderr, 2, "unexpected argument %q (tool arguments go after --)", rest[0])
	}
	if *reparse != "" {
		if len(tool.Args) > 0 {
			return fail(fs, stderr, 2, "--load takes no tool arguments")
		}
		return reparseToolRun(fs, *reparse, mf, stdout, stderr, p)
	}
	cmdline, err := tool.Command()
	if err != nil {
		return fail(fs, stderr, 2, "%v", err)
	}
	if *dryRun {
		fmt.Fprintln(stdout, launch.ShellJoin(cmdline))
		return 0
	}
	run, err := tool.Run(context.Background())
	if errors.Is(err, launch.ErrNotInstalled) {
		return fail(fs, stderr, 1, "%v; install it or pass --tool PATH", err)
	}
	if err != nil {
		return fail(fs, stderr, 1, "%v", err)
	}
	if info, err := cuda.Open(); err == nil {
		info.Describe(run)
	}
	parsed, perr := p.parse(run.Logs["output"], run)
	return finishToolRun(fs, run, parsed, perr, mf, stdout, stderr, p)
}

// reparseToolRun parses again the output a saved run kept, so a run
// recorded before a parser fix gains what the fix reads; the run's
// provenance (command, date, machine) stays as recorded.
func reparseToolRun(fs *flag.FlagSet, path string, mf measureFlags, stdout, stderr io.Writer, p toolParser) int {
	kind := strings.TrimPrefix(fs.Name(), "commlab probe ")
	run, err := probes.LoadRun(path)
	if err != nil {
		return fail(fs, stderr, exitBadInput, "%v", err)
	}
	out, ok := run.Logs["output"]
	if run.Kind != kind || !ok {
		return fail(fs, stderr, exitBadInput, "%s is a %q run without the tool's output; nothing to parse again", path, run.Kind)
	}
	run.Samples = nil
	var notes []string
	for _, n := range run.Notes {
		if !strings.HasPrefix(n, "parse: ") {
			notes = append(notes, n)
		}
	}
	run.Notes = notes
	parsed, perr := p.parse(out, run)
	return finishToolRun(fs, run, parsed, perr, mf, stdout, stderr, p)
}

// finishToolRun records a parse error in the run, saves and prints it.
func finishToolRun(fs *flag.FlagSet, run *probes.Run, parsed any, perr error, mf measureFlags, stdout, stderr io.Writer, p toolParser) int {
	if perr != nil {
		run.Notes = append(run.Notes, "parse: "+perr.Error())
	}
	if *mf.save != "" {
		if err := run.Save(*mf.save); err != nil {
			return fail(fs, stderr, 1, "%v", err)
		}
	}
	if *mf.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"run": run, "parsed": parsed}); err != nil {
			return fail(fs, stderr, 1, "%v", err)
		}
	} else if parsed != nil {
		p.summary(stdout, parsed)
	}
	if perr != nil {
		fail(fs, stderr, 1, "parse: %v", perr)
	}
	if run.Error != "" {
		return fail(fs, stderr, 1, "%s", run.Error)
	}
	if perr != nil {
		return 1
	}
	return 0
}

// runProbeTorch runs the PyTorch reference that commlab carries, or writes
// it out with --script.
func runProbeTorch(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab probe torch", stderr,
		"usage: commlab probe torch [--launcher none|torchrun] [--per-node N] [--nodes N] [--dry-run] -- --out RUN.json [bench_torch.py flags]",
		"       commlab probe torch --script > bench_torch.py",
		"Runs the PyTorch reference (copies and collectives timed as commlab times them) and writes a run for --compare.",
		"bench_torch.py flags: --what copy,nccl --out FILE --copy-min B --copy-max B --nccl-min B --nccl-max B --colls LIST --warmup N --iters N --reps N")
	var o launch.Options
	o.AddFlags(fs)
	dryRun := fs.Bool("dry-run", false, "print the command instead of running it")
	script := fs.Bool("script", false, "write bench_torch.py to stdout instead of running it")
	args, scriptArgs := toolArgs(args)
	rest, status, ok := parseFlags(fs, args)
	if !ok {
		return status
	}
	scriptArgs = append(rest, scriptArgs...)
	switch {
	case *script:
		stdout.Write(launch.TorchBench.Source())
		return 0
	case *dryRun:
		cmdline, err := launch.TorchBench.Command(o, launch.TorchBench.Name, scriptArgs)
		if err != nil {
			return fail(fs, stderr, 2, "%v", err)
		}
		fmt.Fprintln(stdout, launch.ShellJoin(cmdline))
		return 0
	}
	if _, err := launch.TorchBench.Command(o, launch.TorchBench.Name, scriptArgs); err != nil {
		return fail(fs, stderr, 2, "%v", err)
	}
	// An interrupt or a timeout's SIGTERM stops the script too.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := launch.TorchBench.Run(ctx, o, scriptArgs, stdout, stderr); err != nil {
		return fail(fs, stderr, 1, "%v", err)
	}
	return 0
}

func runProbeNCCLTests(args []string, stdout, stderr io.Writer) int {
	return toolRun("nccl-tests", "all_reduce_perf", args, stdout, stderr, toolParser{parse: func(out string, run *probes.Run) (any, error) {
		res, err := nccltests.Parse(strings.NewReader(out))
		if res == nil {
			return nil, err
		}
		// Older outputs do not name the test: the binary's name does.
		prog := filepath.Base(run.Settings["tool"])
		fallback := strings.TrimSuffix(strings.TrimSuffix(prog, "_mpi"), "_perf")
		for _, r := range res.Runs {
			if r.Collective == "" {
				r.Collective = fallback
			}
			if v := r.LibraryVersion(); v != "" {
				run.NCCL = v
			}
			run.Tool = strings.TrimSpace("nccl-tests " + r.TestsVersion)
			n := r.Params.NGpus * max(r.Params.NThread, 1)
			if len(r.Devices) > 0 {
				n = len(r.Devices)
			}
			run.Samples = append(run.Samples, doctor.NCCLTestsSamples(r, n)...)
		}
		return res, err
	}, summary: func(w io.Writer, v any) {
		res := v.(*nccltests.Result)
		for _, r := range res.Runs {
			if len(r.Rows) == 0 {
				fmt.Fprintf(w, "%s: no results\n", r.Collective)
				continue
			}
			fmt.Fprintf(w, "%s: %d sizes, avg busbw %.2f GB/s\n", r.Collective, len(r.Rows), r.AvgBusBW)
		}
	}})
}

func runProbeNVBandwidth(args []string, stdout, stderr io.Writer) int {
	return toolRun("nvbandwidth", "nvbandwidth", args, stdout, stderr, toolParser{parse: func(out string, run *probes.Run) (any, error) {
		rep, err := nvbandwidth.Parse(strings.NewReader(out))
		if rep == nil {
			return nil, err
		}
		run.Tool = strings.TrimSpace("nvbandwidth " + rep.Version)
		for _, tc := range rep.Testcases {
			if tc.IsLatency() {
				continue
			}
			for _, c := range tc.Cells() {
				run.Samples = append(run.Samples, probes.Sample{Op: tc.Name, Src: c.Row, Dst: c.Col, AlgBW: c.Value, BusBW: c.Value, Wrong: -1, Label: nvbandwidthLabel(tc)})
			}
		}
		return rep, err
	}, summary: func(w io.Writer, v any) {
		for _, tc := range v.(*nvbandwidth.Report).Testcases {
			line := fmt.Sprintf("%-45s %-8s sum %.2f %s", tc.Name, tc.Status, tc.Sum, tc.Unit)
			if tc.DirectionNote != "" {
				line += " (" + tc.DirectionNote + ")"
			}
			fmt.Fprintln(w, line)
		}
	}})
}

// nvbandwidthLabel is a sample's label: the testcase's description and,
// for a bidirectional one, what its number is (one direction while the
// reverse runs, or both added), so no one reads a one-way rate as a total.
func nvbandwidthLabel(tc nvbandwidth.Testcase) string {
	if tc.DirectionNote == "" {
		return tc.Description
	}
	return tc.Description + " [" + tc.DirectionNote + "]"
}

// runProbePerftest runs a perftest tool (probes/rdma.Perftest): the
// server and then the client here by default, one side per machine with
// --server and --connect, or the client through the user's launcher.
func runProbePerftest(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab probe perftest", stderr,
		"usage: commlab probe perftest [flags] [-- tool arguments]           server and client here (loopback through the NIC)",
		"       commlab probe perftest --server :PORT [flags]                 machine A: the server",
		"       commlab probe perftest --connect A:PORT [flags]               machine B: the client, which reports",
		"Runs perftest's "+strings.Join(rdma.PerftestTools, ", ")+" (package perftest) and parses the client's report.")
	cfg := rdma.PerftestConfig{}
	fs.StringVar(&cfg.Tool, "tool", "ib_write_bw", "the perftest tool: "+strings.Join(rdma.PerftestTools, ", ")+" (a name on PATH or a path)")
	fs.StringVar(&cfg.Device, "device", "", "RDMA device, perftest -d (default: perftest's first)")
	fs.IntVar(&cfg.IBPort, "ib-port", 0, "device port, perftest -i")
	fs.IntVar(&cfg.GIDIndex, "gid-index", -1, "GID index for RoCE, perftest -x (show_gids lists them; -1: none)")
	fs.IntVar(&cfg.UseCUDA, "use-cuda", -1, "CUDA device of both buffers, perftest --use_cuda=N (-1: host memory)")
	sizes := fs.String("sizes", "", "comma-separated message sizes, one run each (overrides -b/-e/-f)")
	lo := fs.String("b", "", "smallest message size (default: the tool's, 65536)")
	hi := fs.String("e", "", "largest message size")
	factor := fs.Int64("f", 2, "size multiplication factor")
	fs.BoolVar(&cfg.All, "all", false, "every size from 2 bytes to 8 MiB in one run (perftest -a)")
	fs.IntVar(&cfg.Iters, "iters", 0, "iterations per size, perftest -n (default: the tool's)")
	fs.BoolVar(&cfg.ReportGbits, "report-gbits", false, "the tool prints Gb/s (--report_gbits); samples are GB/s either way")
	fs.StringVar(&cfg.Listen, "server", "", "run only the server here, listening on HOST:PORT or :PORT")
	fs.StringVar(&cfg.Connect, "connect", "", "run only the client here, against the server at HOST:PORT")
	fs.IntVar(&cfg.Port, "port", 0, "perftest -p when both sides run here (default: a free one)")
	fs.StringVar(&cfg.ServerHost, "server-host", "", "host the launched client connects to (default: this host's name)")
	fs.StringVar(&cfg.CacheDir, "cache-dir", "", "where the device check builds rdma_write (default: the user cache directory)")
	fs.DurationVar(&cfg.Timeout, "timeout", 2*time.Minute, "how long one server and client pair may take")
	reparse := fs.String("load", "", "parse again the output kept in a saved run instead of running the tool")
	dryRun := fs.Bool("dry-run", false, "print the server's and client's commands instead of running them")
	cfg.Launch.AddFlags(fs)
	mf := addMeasureFlags(fs, false)
	args, cfg.Extra = toolArgs(args)
	if status, ok := parseOnlyFlags(fs, args, stderr); !ok {
		return status
	}
	printTable := func(w io.Writer, r *probes.Run) {
		if d := r.Settings["device"]; d != "" {
			fmt.Fprintf(w, "# %s, %s, MTU %s, memory %s\n", d, r.Settings["link_type"], r.Settings["mtu"], r.Settings["memory"])
		}
		fmt.Fprintf(w, "%-14s %12s %10s %12s %10s %s\n", "op", "bytes", "iters", "time(µs)", "GB/s", "memory")
		for _, s := range r.Samples {
			fmt.Fprintf(w, "%-14s %12d %10d %12.3f %10.3f %s\n", s.Op, s.Bytes, s.Iters, s.MedianUS, s.AlgBW, s.Label)
		}
	}
	if *reparse != "" {
		if len(cfg.Extra) > 0 {
			return fail(fs, stderr, 2, "--load takes no tool arguments")
		}
		run, err := probes.LoadRun(*reparse)
		if err != nil {
			return fail(fs, stderr, exitBadInput, "%v", err)
		}
		if run.Kind != rdma.PerftestKind {
			return fail(fs, stderr, exitBadInput, "%s is a %q run, not a perftest run", *reparse, run.Kind)
		}
		if _, err := rdma.PerftestReparse(run); err != nil {
			return fail(fs, stderr, 1, "%v", err)
		}
		return finishRun(run, nil, mf, stdout, stderr, printTable)
	}
	if *sizes != "" || *lo != "" || *hi != "" {
		if *lo == "" {
			*lo = *hi
		}
		if *hi == "" {
			*hi = *lo
		}
		var err error
		if cfg.Sizes, err = sizeSweep(*sizes, *lo, *hi, *factor); err != nil {
			return fail(fs, stderr, 2, "%v", err)
		}
	}
	if cfg.Iters < 0 || cfg.Timeout <= 0 || cfg.UseCUDA < -1 {
		return fail(fs, stderr, 2, "--iters must not be negative, --timeout must be positive, --use-cuda a CUDA device or -1")
	}
	if cfg.Listen != "" && cfg.Connect != "" {
		return fail(fs, stderr, 2, "--server and --connect name the two machines' sides: give one")
	}
	if cfg.All && len(cfg.Sizes) > 0 {
		return fail(fs, stderr, 2, "--all runs every size: give it or sizes, not both")
	}
	if _, err := cfg.Check(); err != nil && !errors.Is(err, probes.ErrUnavailable) {
		return fail(fs, stderr, 2, "%v", err)
	}
	if *dryRun {
		size := int64(0)
		if len(cfg.Sizes) > 0 {
			size = cfg.Sizes[0]
		}
		port := cfg.Port
		if port == 0 {
			port = 18515
		}
		fmt.Fprintln(stdout, "server:", launch.ShellJoin(append([]string{cfg.Tool}, cfg.ServerArgs(size, port)...)))
		client, err := launch.Command(cfg.Launch, cfg.Tool, cfg.ClientArgs("127.0.0.1", size, port))
		if err != nil {
			return fail(fs, stderr, 2, "%v", err)
		}
		fmt.Fprintln(stdout, "client:", launch.ShellJoin(client))
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	run, err := rdma.Perftest(ctx, cfg)
	if run == nil {
		return fail(fs, stderr, 1, "%v", err)
	}
	run.Command = append([]string{"commlab", "probe", "perftest"}, args...)
	if info, cerr := cuda.Open(); cerr == nil {
		info.Describe(run)
	}
	if err != nil {
		run.Error = err.Error()
	}
	return finishRun(run, nil, mf, stdout, stderr, printTable)
}

// topoSource is where probe topo reads from; tests replace it.
var topoSource = func(fakeName string) (probes.Source, error) {
	if fakeName != "" {
		return fake.ByName(fakeName)
	}
	return nvml.New(sysfs.New(os.DirFS("/"))), nil
}

func runProbeTopo(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab probe topo", stderr, "usage: commlab probe topo [--json] [--dot] [--svg FILE] [--fake NAME]")
	jsonOut := fs.Bool("json", false, "print the topology as JSON")
	svgPath := fs.String("svg", "", "also draw the topology as SVG into `FILE`")
	dotOut := fs.Bool("dot", false, "print the topology as Graphviz DOT")
	fakeName := fs.String("fake", "", "read a fake machine instead of this one: "+strings.Join(fake.Names(), ", "))
	if status, ok := parseOnlyFlags(fs, args, stderr); !ok {
		return status
	}
	src, err := topoSource(*fakeName)
	if err != nil {
		return fail(fs, stderr, 2, "%v", err)
	}
	ctx := context.Background()
	topo, err := src.Topology(ctx)
	if err != nil {
		if !errors.Is(err, probes.ErrUnavailable) {
			return fail(fs, stderr, 1, "%v", err)
		}
		// A laptop or a CPU-only server: say so, and show what sysfs gave.
		fmt.Fprintf(stderr, "no NVIDIA driver/GPU on this machine: %v\n", err)
		if topo == nil || (len(topo.GPUs) == 0 && len(topo.NICs) == 0 && len(topo.NUMANodes) == 0) {
			fmt.Fprintln(stderr, "commlab probe topo: sysfs gave nothing either; nothing to show")
			return 1
		}
		fmt.Fprintln(stderr, "showing what sysfs gave.")
	}
	if *svgPath != "" {
		if err := topograph.WriteSVG(ctx, topo, *svgPath); err != nil {
			return fail(fs, stderr, 1, "%v", err)
		}
	}
	switch {
	case *jsonOut:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(topo); err != nil {
			return fail(fs, stderr, 1, "%v", err)
		}
	case *dotOut:
		fmt.Fprint(stdout, topograph.DOT(topo))
	default:
		writeTopologyText(stdout, topo)
	}
	return 0
}

// writeTopologyText prints what a person reads: a summary, the matrix as
// nvidia-smi draws it, then one line per GPU and NIC.
func writeTopologyText(w io.Writer, t *probes.Topology) {
	fmt.Fprint(w, t.Summary())
	if len(t.GPUs) > 0 && len(t.Devices) > 0 {
		fmt.Fprintln(w)
		fmt.Fprint(w, t.Matrix())
	}
	if len(t.GPUs) > 0 {
		fmt.Fprintln(w, "\nGPUs:")
	}
	for _, g := range t.GPUs {
		active := 0
		for _, l := range g.NVLinks {
			if l.Active {
				active++
			}
		}
		line := fmt.Sprintf("  %s %s", g.ID(), topoOrDash(g.Name))
		if g.BusID != "" {
			line += " at " + g.BusID
		}
		if g.MemoryBytes > 0 {
			line += fmt.Sprintf(", %.1f GiB", float64(g.MemoryBytes)/(1<<30))
		}
		if g.ComputeCapability != "" {
			line += ", sm " + g.ComputeCapability
		}
		if g.PCIe.GenCurrent > 0 {
			line += fmt.Sprintf(", PCIe %s = %.1f GB/s", g.PCIe, g.PCIe.GBps())
		}
		if g.NUMANode >= 0 {
			line += fmt.Sprintf(", NUMA %d", g.NUMANode)
		}
		if len(g.NVLinks) > 0 {
			line += fmt.Sprintf(", NVLink %d/%d active", active, len(g.NVLinks))
		}
		if nics, level := t.NearestNICs(g.ID()); len(nics) > 0 {
			line += fmt.Sprintf(", nearest NIC %s (%s)", strings.Join(nics, ","), level)
		}
		fmt.Fprintln(w, line)
	}
	if len(t.NICs) > 0 {
		fmt.Fprintln(w, "\nNICs:")
	}
	for _, n := range t.NICs {
		line := fmt.Sprintf("  %s %s", n.ID(), n.Name)
		if n.BusID != "" {
			line += " at " + n.BusID
		}
		if n.NUMANode >= 0 {
			line += fmt.Sprintf(", NUMA %d", n.NUMANode)
		}
		for _, p := range n.Ports {
			line += fmt.Sprintf(", port %d %s %s %s", p.Port, topoOrDash(p.State), topoOrDash(p.LinkLayer), topoOrDash(p.Rate))
		}
		fmt.Fprintln(w, line)
	}
	if len(t.GPUs) > 0 {
		writeNICPaths(w, t)
	}
	gd := t.GPUDirect
	if gd.DMABuf != "" || gd.PeerMem || gd.NvidiaVersion != "" {
		fmt.Fprintf(w, "\nGPUDirect RDMA: nvidia_peermem %s; DMA-BUF: %s\n", topoLoaded(gd.PeerMem, gd.PeerMemVersion), topoOrDash(gd.DMABuf))
	}
}

// writeNICPaths prints the NIC each GPU would use under NCCL's defaults
// (NCCL_NET_GDR_LEVEL unset, PXN on), as probes.NICPaths models it.
func writeNICPaths(w io.Writer, t *probes.Topology) {
	paths := t.NICPaths(probes.LevelUnknown)
	if len(t.NICs) == 0 {
		fmt.Fprintf(w, "\nGPU -> NIC: %s\n", paths)
		return
	}
	fmt.Fprintln(w, "\nGPU -> NIC (modelled from the matrix as NCCL picks; NCCL_NET_GDR_LEVEL=PXB, PXN on; ceiling one way):")
	for _, l := range strings.Split(paths.String(), "\n") {
		fmt.Fprintln(w, "  "+l)
	}
}

func topoLoaded(ok bool, version string) string {
	if !ok {
		return "not loaded"
	}
	if version != "" {
		return "loaded (" + version + ")"
	}
	return "loaded"
}

func topoOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// runProbeRDMAWrite builds and runs commlab's own RDMA WRITE program
// (probes/rdma): both sides here by default (a loopback through the NIC),
// or one side per machine with --server and --connect.
func runProbeRDMAWrite(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("commlab probe rdma-write", stderr,
		"usage: commlab probe rdma-write [flags]                      both sides here (loopback through the NIC)",
		"       commlab probe rdma-write --server :PORT [flags]       machine A: the target buffer",
		"       commlab probe rdma-write --connect A:PORT [flags]     machine B: posts and times the writes",
		"Builds probes/rdma's rdma_write.c (cc, libibverbs) into a cache and times RDMA WRITEs of each size.")
	cfg := rdma.Config{}
	fs.StringVar(&cfg.Device, "device", "", "RDMA device (default: the first with an ACTIVE port)")
	fs.IntVar(&cfg.IBPort, "ib-port", 0, "device port (default: the first ACTIVE one)")
	fs.IntVar(&cfg.GIDIndex, "gid-index", -1, "GID index for RoCE (show_gids lists them; -1: LID on InfiniBand, 0 on RoCE)")
	sizes := fs.String("sizes", "", "comma-separated write sizes (overrides -b/-e/-f)")
	lo := fs.String("b", "8", "smallest write size")
	hi := fs.String("e", "8M", "largest write size")
	factor := fs.Int64("f", 2, "size multiplication factor")
	fs.IntVar(&cfg.Iters, "iters", 1000, "timed writes per size")
	fs.IntVar(&cfg.Warmup, "warmup", 10, "untimed writes per size")
	gpu := fs.Bool("gpu", false, "register GPU memory (cuMemAlloc; dma-buf, else nvidia-peermem) instead of host memory")
	gpuIndex := fs.Int("gpu-index", 0, "CUDA device of --gpu")
	fs.StringVar(&cfg.Listen, "server", "", "run only the server here, listening on HOST:PORT or :PORT")
	fs.StringVar(&cfg.Connect, "connect", "", "run only the client here, against the server at HOST:PORT")
	fs.IntVar(&cfg.Port, "port", 0, "TCP port of the exchange when both sides run here (default: a free one)")
	fs.StringVar(&cfg.ServerHost, "server-host", "", "host the launched client connects to (default: this host's name)")
	fs.BoolVar(&cfg.OOBOnly, "oob-only", false, "only exchange connection info over TCP (no device): checks the two machines reach each other")
	fs.StringVar(&cfg.CacheDir, "cache-dir", "", "where the program is built (default: the user cache directory)")
	fs.DurationVar(&cfg.Timeout, "timeout", 30*time.Second, "how long one side waits for the other")
	cfg.Launch.AddFlags(fs)
	mf := addMeasureFlags(fs, false)
	if status, ok := parseOnlyFlags(fs, args, stderr); !ok {
		return status
	}
	var err error
	if cfg.Sizes, err = sizeSweep(*sizes, *lo, *hi, *factor); err != nil {
		return fail(fs, stderr, 2, "%v", err)
	}
	if cfg.Iters <= 0 || cfg.Warmup < 0 || cfg.Timeout <= 0 || *gpuIndex < 0 {
		return fail(fs, stderr, 2, "--iters and --timeout must be positive, --warmup and --gpu-index not negative")
	}
	if cfg.Listen != "" && cfg.Connect != "" {
		return fail(fs, stderr, 2, "--server and --connect name the two machines' sides: give one")
	}
	if _, err := launch.Command(cfg.Launch, rdma.ProgramName, nil); err != nil {
		return fail(fs, stderr, 2, "%v", err)
	}
	cfg.GPU = -1
	if *gpu {
		cfg.GPU = *gpuIndex
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	run, err := rdma.Measure(ctx, cfg)
	if run == nil {
		return fail(fs, stderr, 1, "%v", err)
	}
	run.Command = append([]string{"commlab", "probe", "rdma-write"}, args...)
	if info, cerr := cuda.Open(); cerr == nil {
		info.Describe(run)
	}
	if err != nil {
		run.Error = err.Error()
	}
	return finishRun(run, nil, mf, stdout, stderr, func(w io.Writer, r *probes.Run) {
		if cfg.OOBOnly {
			for _, side := range []string{"server", "client"} {
				for _, l := range strings.Split(r.Logs[side], "\n") {
					if strings.HasPrefix(l, "oob ") {
						fmt.Fprintf(w, "%-6s %s\n", side, l)
					}
				}
			}
			return
		}
		if d := r.Settings["device"]; d != "" {
			fmt.Fprintf(w, "# %s port %s, %s, MTU %s, memory %s\n", d, r.Settings["port"], r.Settings["link_layer"], r.Settings["active_mtu"], r.Settings["memory"])
		}
		fmt.Fprintf(w, "%-10s %12s %8s %12s %10s %s\n", "op", "bytes", "iters", "time(µs)", "GB/s", "memory")
		for _, s := range r.Samples {
			fmt.Fprintf(w, "%-10s %12d %8d %12.3f %10.3f %s\n", s.Op, s.Bytes, s.Iters, s.MedianUS, s.AlgBW, s.Label)
		}
	})
}
