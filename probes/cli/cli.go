// Package cli holds what the probe verbs of the commlab command share and
// the flag machinery every verb uses: one flag set per verb (NewFlags),
// flags anywhere among the other arguments (Parse), flags whose value is a
// quantity (a size, a bandwidth, a duration) parsed as they are set
// (QuantityFlag), and one declaration of each flag that several verbs
// share, so that its name, help and default read the same everywhere: the
// output (--json, --save, --compare, --load), the message sizes (--sizes,
// -b/-e/-f) and devices (--devices), an RDMA port (--device, --ib-port,
// --gid-index), the two machines' sides (--server, --connect, --port,
// --server-host), and the script probes' --script, --recorded, --keep and
// --dry-run, and how often a timed probe repeats (--warmup, --iters). The
// launcher's flags are declared once by probes/launch (Options.AddFlags).
//
// It also prints and saves what a probe verb produced: a run (FinishRun),
// an external tool's run and what was parsed of it (ToolRun), a script
// probe's result (ScriptProbe). It owns no measurement: the probes'
// packages measure; the command's verb table stays in the command.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"reflect"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/term"

	"github.com/commlab/commlab/parse/files"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/cuda"
	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/units"
)

// NewFlags makes a verb's flag set, named as the command line names the
// verb ("commlab probe topo"); dispatch makes it from the verb table. -h
// prints the usage lines and the flags to stderr; a bad flag prints one
// line, "commlab probe topo: flag provided but not defined: -x"
// (Parse sees to it).
func NewFlags(name string, stderr io.Writer, usage ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(prefixWriter{prefix: name + ": ", w: stderr})
	fs.Usage = func() {
		for _, l := range usage {
			fmt.Fprintln(stderr, l)
		}
		printDefaults(fs, stderr)
	}
	return fs
}

// printDefaults prints fs's flags as fs.PrintDefaults does, except that
// quantity flags read as the string flags a person types them as: "-bw string ... (default "400Gb/s")", where the flag
// package would print "-bw value ... (default 400Gb/s)".
func printDefaults(fs *flag.FlagSet, w io.Writer) {
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	shown.SetOutput(w)
	fs.VisitAll(func(f *flag.Flag) {
		if _, text := f.Value.(interface{ typedAsText() }); text {
			shown.String(f.Name, f.DefValue, f.Usage)
			return
		}
		shown.Var(f.Value, f.Name, f.Usage)
		shown.Lookup(f.Name).DefValue = f.DefValue
	})
	shown.PrintDefaults()
}

// prefixWriter writes every Write after prefix: the flag package reports
// a bad flag in one Write, which thus reads as the verb's other errors do.
type prefixWriter struct {
	prefix string
	w      io.Writer
}

func (p prefixWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, p.prefix); err != nil {
		return 0, err
	}
	return p.w.Write(b)
}

// Parse parses args, flags anywhere among them, and returns the other
// arguments. When the verb must stop, ok is false and status is its exit
// status: 0 after -h (the usage was printed), 2 after a bad flag (one line
// said why; the usage is not repeated).
func Parse(fs *flag.FlagSet, args []string) (rest []string, status int, ok bool) {
	usage := fs.Usage
	fs.Usage = func() {}
	rest, err := parseInterleaved(fs, args)
	fs.Usage = usage
	if errors.Is(err, flag.ErrHelp) {
		usage()
		return nil, 0, false
	}
	if err != nil {
		return nil, 2, false
	}
	return rest, 0, true
}

// parseInterleaved lets flags and positional arguments come in any order,
// as a person types them: `parse nccl-log a.log --json b.log`.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// ParseOnly is Parse for a verb that takes no other arguments.
func ParseOnly(fs *flag.FlagSet, args []string, stderr io.Writer) (status int, ok bool) {
	rest, status, ok := Parse(fs, args)
	if ok && len(rest) > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), rest[0])
		return 2, false
	}
	return status, ok
}

// Fail prints "NAME: message" for the verb whose flag set is fs and
// returns status.
func Fail(fs *flag.FlagSet, stderr io.Writer, status int, format string, a ...any) int {
	fmt.Fprintf(stderr, "%s: %s\n", fs.Name(), fmt.Sprintf(format, a...))
	return status
}

// VerbName is the verb's own name, the last word of its flag set's name:
// "nccl-tests" for "commlab probe nccl-tests".
func VerbName(fs *flag.FlagSet) string {
	name := fs.Name()
	return name[strings.LastIndex(name, " ")+1:]
}

// CommandLine is the command line that ran the verb whose flag set is fs
// with args: "commlab probe rdma-write --sizes 4K".
func CommandLine(fs *flag.FlagSet, args []string) []string {
	return append(strings.Fields(fs.Name()), args...)
}

// ToolArgs splits the arguments at "--": commlab's flags, then the tool's
// (or the embedded script's).
func ToolArgs(args []string) (ours, tool []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

// OutputFlags are the output flags of every verb that produces a run:
// --json and --save, and for the probes that measure here --compare and
// --load.
type OutputFlags struct {
	JSON    *bool
	Save    *string
	Compare *string
	Load    *string
}

func AddOutputFlags(fs *flag.FlagSet, compare bool) OutputFlags {
	m := OutputFlags{
		JSON: fs.Bool("json", false, "print the result as JSON"),
		Save: fs.String("save", "", "also write the run to this JSON file"),
	}
	if compare {
		m.Compare = fs.String("compare", "", "compare with a reference run (e.g. one that commlab probe torch wrote)")
		m.Load = fs.String("load", "", "show a saved run instead of measuring")
	}
	return m
}

// loaded returns the run named by --load, or nil when measuring. A run
// that cannot be loaded is bad input: the error says why.
func (mf OutputFlags) loaded() (*probes.Run, error) {
	if mf.Load == nil || *mf.Load == "" {
		return nil, nil
	}
	return probes.LoadRun(*mf.Load)
}

// inputs loads the runs --load and --compare name, before anything is
// measured.
func (mf OutputFlags) Inputs() (loaded, ref *probes.Run, err error) {
	if loaded, err = mf.loaded(); err != nil {
		return nil, nil, err
	}
	ref, err = mf.reference()
	return loaded, ref, err
}

// reference loads the run named by --compare, or nil when not comparing.
func (mf OutputFlags) reference() (*probes.Run, error) {
	if mf.Compare == nil || *mf.Compare == "" {
		return nil, nil
	}
	return probes.LoadRun(*mf.Compare)
}

// Quantity is a flag whose value is a quantity (a bandwidth, a duration, a
// size) in text, parsed as it is set: a bad value is refused by flag
// parsing, naming the flag (`invalid value "25GB" for flag -bw: ...`). It
// keeps the text as given, which -h shows as the default and messages
// repeat; the text is empty while the flag is unset with no default.
type Quantity[T any] struct {
	Text  string
	Value T
	Parse func(string) (T, error)
}

func (q *Quantity[T]) String() string { return q.Text }

func (q *Quantity[T]) Set(s string) error {
	v, err := q.Parse(s)
	if err != nil {
		return err
	}
	q.Text, q.Value = s, v
	return nil
}

// typedAsText marks the flags -h shows as the string flags a person types
// (printDefaults).
func (q *Quantity[T]) typedAsText() {}

// QuantityFlag declares the flag name, whose value parse reads, with the
// default value (empty: none); a default that does not parse is a
// programming error.
func QuantityFlag[T any](fs *flag.FlagSet, name, value, usage string, parse func(string) (T, error)) *Quantity[T] {
	q := &Quantity[T]{Parse: parse}
	if value != "" {
		if err := q.Set(value); err != nil {
			panic(fmt.Sprintf("flag -%s: bad default %q: %v", name, value, err))
		}
	}
	fs.Var(q, name, usage)
	return q
}

// SizeRange is -b and -e, the smallest and largest message size.
type SizeRange struct{ Lo, Hi *Quantity[int64] }

// AddSizeRange declares -b and -e; noun names a size in the help ("write
// size"), mirrors the tool whose flags they copy ("nccl-tests", or "").
func AddSizeRange(fs *flag.FlagSet, noun, lo, hi, mirrors string) SizeRange {
	return SizeRange{
		Lo: QuantityFlag(fs, "b", lo, "smallest "+noun+mirrorNote(mirrors, "b"), units.ParsePositiveSize),
		Hi: QuantityFlag(fs, "e", hi, "largest "+noun+mirrorNote(mirrors, "e"), units.ParsePositiveSize),
	}
}

func mirrorNote(tool, flag string) string {
	if tool == "" {
		return ""
	}
	return " (" + tool + " -" + flag + ")"
}

// SizeFlags are a sweep's sizes: --sizes, or -b/-e with the factor -f.
type SizeFlags struct {
	SizeRange
	List   *Quantity[[]int64]
	Factor *int64
}

func AddSizeFlags(fs *flag.FlagSet, noun, lo, hi string, factor int64, mirrors string) SizeFlags {
	return SizeFlags{
		List:      QuantityFlag(fs, "sizes", "", "comma-separated "+noun+"s (overrides -b/-e/-f)", units.ParseSizeList),
		SizeRange: AddSizeRange(fs, noun, lo, hi, mirrors),
		Factor:    fs.Int64("f", factor, "size multiplication factor"+mirrorNote(mirrors, "f")),
	}
}

// values are the sizes the flags ask for: the --sizes list, else the
// sweep from -b to -e by -f.
func (f SizeFlags) Values() ([]int64, error) {
	if f.List.Text != "" {
		return f.List.Value, nil
	}
	return units.Sweep(f.Lo.Value, f.Hi.Value, *f.Factor)
}

// OptionalValues are Values when a size flag was given, a lone -b or -e
// standing for both ends; nil when none was (flags declared with no
// defaults: the tool then runs its own).
func (f SizeFlags) OptionalValues() ([]int64, error) {
	if f.List.Text == "" && f.Lo.Text == "" && f.Hi.Text == "" {
		return nil, nil
	}
	if f.Lo.Text == "" {
		*f.Lo = *f.Hi
	}
	if f.Hi.Text == "" {
		*f.Hi = *f.Lo
	}
	return f.Values()
}

// SweepFlags are the flags of the probes that sweep message sizes over
// the GPUs here (bandwidth, nccl): the sizes and --devices.
type SweepFlags struct {
	SizeFlags
	Devices *string
}

func AddSweepFlags(fs *flag.FlagSet, noun, lo, hi string, factor int64, mirrors string) SweepFlags {
	return SweepFlags{
		SizeFlags: AddSizeFlags(fs, noun, lo, hi, factor, mirrors),
		Devices:   fs.String("devices", "", "device indices (default all)"),
	}
}

// values are the sizes and device indices the flags ask for; nil devices
// means all.
func (f SweepFlags) Values() (sizes []int64, devices []int, err error) {
	if sizes, err = f.SizeFlags.Values(); err != nil {
		return nil, nil, err
	}
	if devices, err = parseInts(*f.Devices); err != nil {
		return nil, nil, err
	}
	return sizes, devices, nil
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

// AddRepeatFlags declares how often a timed probe repeats each size,
// --warmup untimed NOUNs and --iters timed ones, for a probe that times
// NOUNs ("copies", "writes"), with their defaults; batched probes time
// --iters NOUNs per repetition (of --reps, the probe's own), the others
// --iters NOUNs per size. mirrors names the tool whose -w and -n they copy.
func AddRepeatFlags(fs *flag.FlagSet, warmup, iters *int, noun string, warmupDef, itersDef int, batched bool, mirrors string) {
	itersUsage := "timed " + noun + " per size"
	if batched {
		itersUsage = noun + " per timed repetition" + mirrorNote(mirrors, "n")
	}
	fs.IntVar(warmup, "warmup", warmupDef, "untimed "+noun+" per size"+mirrorNote(mirrors, "w"))
	fs.IntVar(iters, "iters", itersDef, itersUsage)
}

// AddRDMAPortFlags declares the RDMA port a program uses: --device,
// --ib-port and --gid-index.
func AddRDMAPortFlags(fs *flag.FlagSet, device *string, ibPort, gidIndex *int) {
	fs.StringVar(device, "device", "", "RDMA device, as ibv_devices lists it (default: the program's choice; rdma-write takes the first with an ACTIVE port)")
	fs.IntVar(ibPort, "ib-port", 0, "device port (0: the program's choice; rdma-write takes the first ACTIVE one)")
	fs.IntVar(gidIndex, "gid-index", -1, "GID index for RoCE, as show_gids lists them (-1: the program's choice; rdma-write uses the LID on InfiniBand, RoCE v2 with an IPv4 address on RoCE)")
}

// AddSidesFlags declares a two-machine program's sides, both here by
// default or one per machine: --server, --connect, --port and
// --server-host (the probe's CheckFlags refuses both sides at once).
func AddSidesFlags(fs *flag.FlagSet, listen, connect *string, port *int, serverHost *string) {
	fs.StringVar(listen, "server", "", "run only the server here, listening on HOST:PORT or :PORT")
	fs.StringVar(connect, "connect", "", "run only the client here, against the server at HOST:PORT")
	fs.IntVar(port, "port", 0, "TCP port when both sides run here (default: a free one)")
	fs.StringVar(serverHost, "server-host", "", "host the launched client connects to (default: this host's name)")
}

// AddCacheDirFlag declares where commlab's own programs are built.
func AddCacheDirFlag(fs *flag.FlagSet, dir *string) {
	fs.StringVar(dir, "cache-dir", "", "where commlab's own programs are built (default: the user cache directory)")
}

// AddDryRunFlag declares --dry-run.
func AddDryRunFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("dry-run", false, "print the commands instead of running them")
}

// AddScriptFlag declares --script for a probe that runs the embedded
// script name.
func AddScriptFlag(fs *flag.FlagSet, name string) *bool {
	return fs.Bool("script", false, "write "+name+" to stdout instead of running it")
}

// AddRecordedFlag declares --recorded for a probe with recordings, name
// the one shown by default.
func AddRecordedFlag(fs *flag.FlagSet, name string) *bool {
	return fs.Bool("recorded", false, "show the recorded run ("+name+", or the name given)")
}

// ProgressBar draws "[####....] 12/40 what" on a terminal and nothing
// elsewhere, so logs and pipes stay clean.
type ProgressBar struct {
	w  io.Writer
	on bool
}

func NewProgressBar(w io.Writer) *ProgressBar {
	f, ok := w.(*os.File)
	return &ProgressBar{w: w, on: ok && term.IsTerminal(int(f.Fd()))}
}

func (p *ProgressBar) Update(done, total int, what string) {
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

// FinishRun prints and saves a run, and compares it when asked.
func FinishRun(run, ref *probes.Run, mf OutputFlags, stdout, stderr io.Writer, printTable func(io.Writer, *probes.Run)) int {
	if *mf.Save != "" {
		if err := run.Save(*mf.Save); err != nil {
			fmt.Fprintln(stderr, "commlab probe:", err)
			return 1
		}
	}
	if *mf.JSON {
		if err := run.WriteJSON(stdout); err != nil {
			fmt.Fprintln(stderr, "commlab probe:", err)
			return 1
		}
	} else {
		probes.WriteRunText(stdout, run, printTable)
	}
	if ref != nil {
		w := stdout
		if *mf.JSON {
			w = stderr
		}
		probes.WriteComparison(w, probes.Compare(run, ref))
	}
	if run.Error != "" {
		fmt.Fprintln(stderr, "commlab probe: run stopped early:", run.Error)
		return 1
	}
	return 0
}

// MeasureRun runs measure until it returns or an interrupt (or a
// timeout's SIGTERM) cancels it, and completes the run with the command
// line that made it and the error that stopped it early. A probe that
// measured nothing fails: the run is nil and status its exit status.
func MeasureRun(fs *flag.FlagSet, stderr io.Writer, args []string, measure func(context.Context) (*probes.Run, error)) (run *probes.Run, status int) {
	ctx, stop := Interruptible()
	defer stop()
	run, err := measure(ctx)
	if run == nil {
		return nil, Fail(fs, stderr, 1, "%v", err)
	}
	run.Command = CommandLine(fs, args)
	if err != nil {
		run.Error = err.Error()
	}
	return run, 0
}

// DescribeMachine records this machine's GPUs, driver and CUDA in run,
// when CUDA opens.
func DescribeMachine(run *probes.Run) {
	if info, err := cuda.Open(); err == nil {
		info.Describe(run)
	}
}

// DescribeDriver records this machine's driver release in run, when CUDA
// opens: for a run whose ranks' placement already set the GPUs.
func DescribeDriver(run *probes.Run) {
	if info, err := cuda.Open(); err == nil && info.DriverRelease != "" {
		run.Driver = info.DriverRelease
	}
}

// ToolParser reads a tool's output into the run (its samples, tool and
// library versions) and returns what it parsed, for --json and summary;
// summary is not called when parse returned a nil pointer.
type ToolParser struct {
	Parse   func(out string, run *probes.Run) (any, error)
	Summary func(w io.Writer, parsed any)
}

// ToolRun runs an external tool through probes/launch (through the user's
// launcher when asked) and hands its output to p. The run's kind is the
// verb's name.
func ToolRun(fs *flag.FlagSet, defaultProgram string, args []string, stdout, stderr io.Writer, p ToolParser) int {
	tool := launch.Tool{Kind: VerbName(fs)}
	fs.StringVar(&tool.Program, "tool", defaultProgram, "the tool's binary (name on PATH or path)")
	reparse := fs.String("load", "", "parse again the output kept in a saved run instead of running the tool")
	tool.AddFlags(fs)
	dryRun := AddDryRunFlag(fs)
	mf := AddOutputFlags(fs, false)
	args, tool.Args = ToolArgs(args)
	rest, status, ok := Parse(fs, args)
	if !ok {
		return status
	}
	if len(rest) > 0 {
		return Fail(fs, stderr, 2, "unexpected argument %q (tool arguments go after --)", rest[0])
	}
	if *reparse != "" {
		if len(tool.Args) > 0 {
			return Fail(fs, stderr, 2, "--load takes no tool arguments")
		}
		run, parsed, lerr, perr := launch.Reparse(*reparse, tool.Kind, p.Parse)
		if lerr != nil {
			return Fail(fs, stderr, ExitBadInput, "%v", lerr)
		}
		return FinishToolRun(fs, run, parsed, perr, mf, stdout, stderr, p)
	}
	cmdline, err := tool.Command()
	if err != nil {
		return Fail(fs, stderr, 2, "%v", err)
	}
	if *dryRun {
		fmt.Fprintln(stdout, launch.ShellJoin(cmdline))
		return 0
	}
	run, err := tool.Run(context.Background())
	if errors.Is(err, launch.ErrNotInstalled) {
		return Fail(fs, stderr, 1, "%v; install it or pass --tool PATH", err)
	}
	if err != nil {
		return Fail(fs, stderr, 1, "%v", err)
	}
	DescribeMachine(run)
	parsed, perr := launch.ParseInto(p.Parse, run.Logs["output"], run)
	return FinishToolRun(fs, run, parsed, perr, mf, stdout, stderr, p)
}

// FinishToolRun saves and prints a tool's run and what was parsed of it.
func FinishToolRun(fs *flag.FlagSet, run *probes.Run, parsed any, perr error, mf OutputFlags, stdout, stderr io.Writer, p ToolParser) int {
	if *mf.Save != "" {
		if err := run.Save(*mf.Save); err != nil {
			return Fail(fs, stderr, 1, "%v", err)
		}
	}
	if *mf.JSON {
		if err := EncodeIndented(stdout, map[string]any{"run": run, "parsed": parsed}); err != nil {
			return Fail(fs, stderr, 1, "%v", err)
		}
	} else if parsed != nil && !reflect.ValueOf(parsed).IsNil() {
		p.Summary(stdout, parsed)
	}
	if perr != nil {
		Fail(fs, stderr, 1, "parse: %v", perr)
	}
	if run.Error != "" {
		return Fail(fs, stderr, 1, "%s", run.Error)
	}
	if perr != nil {
		return 1
	}
	return 0
}

// ScriptProbeFlags are the flags of a probe whose script writes a folder
// of results: --script, --recorded, --keep, --load and the output flags.
type ScriptProbeFlags struct {
	Output           OutputFlags
	Script, Recorded *bool
	Keep, Load       *string
}

func AddScriptProbeFlags(fs *flag.FlagSet, script, recorded string) ScriptProbeFlags {
	return ScriptProbeFlags{
		Keep:     fs.String("keep", "", "keep the script's outputs (summary.json, and the traces it writes) in this folder"),
		Load:     fs.String("load", "", "read a folder the script wrote instead of running it"),
		Recorded: AddRecordedFlag(fs, recorded),
		Output:   AddOutputFlags(fs, false),
		Script:   AddScriptFlag(fs, script),
	}
}

// ScriptResult is what a script probe read: the value --json prints, its
// readable summary, its run (what --save writes) and the errors the script
// itself reported.
type ScriptResult struct {
	Value   any
	Summary func(io.Writer) error
	Run     *probes.Run
	Errors  []string
}

// ScriptProbe is what sets one script probe apart: the script --script
// prints, how it reads a recording (--recorded NAME) or a folder the script
// wrote (--load DIR), and how it runs the script.
type ScriptProbe struct {
	Script launch.Script
	// recording is the recording --recorded shows without a NAME.
	Recording string
	// what names the script in the errors it reported ("benchmark").
	What string
	// unreadable is the exit status when a recording or folder does not
	// read at all; 0 leaves it to FinishScriptProbe (1).
	Unreadable int
	Recorded   func(name string) (*ScriptResult, error)
	Load       func(dir string) (*ScriptResult, error)
	// dryRun prints the commands a run would start; nil where the probe
	// has no --dry-run.
	DryRun func() int
	// run checks the run's flags and runs the script; status is the exit
	// status of a check that failed (res and err then unused).
	Run func(rest []string) (status int, res *ScriptResult, err error)
}

// main does what the flags ask: print the script, print the commands,
// read a recording or a folder, or run the script; then it prints what it
// read (FinishScriptProbe).
func (p ScriptProbe) Main(fs *flag.FlagSet, sf ScriptProbeFlags, dryRun bool, rest []string, stdout, stderr io.Writer) int {
	var res *ScriptResult
	var err error
	switch {
	case *sf.Script:
		stdout.Write(p.Script.Source())
		return 0
	case dryRun && p.DryRun != nil:
		return p.DryRun()
	case *sf.Recorded:
		name := p.Recording
		if len(rest) > 0 {
			name = rest[0]
		}
		res, err = p.Recorded(name)
	case *sf.Load != "":
		res, err = p.Load(*sf.Load)
	default:
		var status int
		if status, res, err = p.Run(rest); status != 0 {
			return status
		}
	}
	if p.Unreadable != 0 && (*sf.Recorded || *sf.Load != "") && err != nil && res == nil {
		return Fail(fs, stderr, p.Unreadable, "%v", err)
	}
	return FinishScriptProbe(fs, sf.Output, res, err, p.What, stdout, stderr)
}

// FinishScriptProbe prints what a script probe read (JSON or its summary)
// and saves its run, then returns the exit status: 1 when running or
// reading failed (err), the run stopped early, or the script (what)
// reported errors.
func FinishScriptProbe(fs *flag.FlagSet, out OutputFlags, res *ScriptResult, err error, what string, stdout, stderr io.Writer) int {
	if res != nil {
		if *out.JSON {
			if werr := files.WriteJSON(stdout, res.Value); werr != nil {
				return Fail(fs, stderr, 1, "%v", werr)
			}
		} else if werr := res.Summary(stdout); werr != nil {
			return Fail(fs, stderr, 1, "%v", werr)
		}
		if *out.Save != "" && res.Run != nil {
			if serr := res.Run.Save(*out.Save); serr != nil {
				return Fail(fs, stderr, 1, "%v", serr)
			}
		}
	}
	if err != nil {
		return Fail(fs, stderr, 1, "%v", err)
	}
	if res != nil && res.Run != nil && res.Run.Error != "" {
		return Fail(fs, stderr, 1, "%s", res.Run.Error)
	}
	if res != nil && len(res.Errors) > 0 {
		return Fail(fs, stderr, 1, "the %s reported %d error(s): %s", what, len(res.Errors), strings.Join(res.Errors, "; "))
	}
	return 0
}

// Exit statuses: 2 for bad input (a usage error, a missing or malformed
// file, a bad flag value), 1 when the input was good but the work failed
// (a cell, a probe, a tool), 0 otherwise.
const (
	ExitFailed   = 1
	ExitBadInput = 2
)

// EncodeIndented prints v as indented JSON, HTML characters escaped as
// encoding/json does by default (parse's writeJSON keeps them: logs hold
// < and >).
func EncodeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Interruptible is the context of a verb that runs something long: an
// interrupt, or the SIGTERM a timeout sends, cancels it, and whatever it
// started stops too.
func Interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
