package main

// The command's flags: one flag set per verb (newFlags, which dispatch
// calls with the verb table's name and usage), flags anywhere among the
// other arguments (parseFlags), flags whose value is a quantity (a size, a
// bandwidth, a duration) parsed as they are set (quantityFlag), and one
// declaration of each flag that several verbs share, so that its name,
// help and default read the same everywhere: the output (--json, --save,
// --compare, --load), the message sizes (--sizes, -b/-e/-f) and devices
// (--devices), an RDMA port (--device, --ib-port, --gid-index), the two
// machines' sides (--server, --connect, --port, --server-host), and the
// script probes' --script, --recorded, --keep and --dry-run, and how often
// a timed probe repeats (--warmup, --iters). The
// launcher's flags are declared once by probes/launch (Options.AddFlags).

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/units"
)

// newFlags makes a verb's flag set, named as the command line names the
// verb ("commlab probe topo"); dispatch makes it from the verb table. -h
// prints the usage lines and the flags to stderr; a bad flag prints one
// line, "commlab probe topo: flag provided but not defined: -x"
// (parseFlags sees to it).
func newFlags(name string, stderr io.Writer, usage ...string) *flag.FlagSet {
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

// parseFlags parses args, flags anywhere among them, and returns the other
// arguments. When the verb must stop, ok is false and status is its exit
// status: 0 after -h (the usage was printed), 2 after a bad flag (one line
// said why; the usage is not repeated).
func parseFlags(fs *flag.FlagSet, args []string) (rest []string, status int, ok bool) {
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

// parseOnlyFlags is parseFlags for a verb that takes no other arguments.
func parseOnlyFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (status int, ok bool) {
	rest, status, ok := parseFlags(fs, args)
	if ok && len(rest) > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), rest[0])
		return 2, false
	}
	return status, ok
}

// fail prints "NAME: message" for the verb whose flag set is fs and
// returns status.
func fail(fs *flag.FlagSet, stderr io.Writer, status int, format string, a ...any) int {
	fmt.Fprintf(stderr, "%s: %s\n", fs.Name(), fmt.Sprintf(format, a...))
	return status
}

// verbName is the verb's own name, the last word of its flag set's name:
// "nccl-tests" for "commlab probe nccl-tests".
func verbName(fs *flag.FlagSet) string {
	name := fs.Name()
	return name[strings.LastIndex(name, " ")+1:]
}

// commandLine is the command line that ran the verb whose flag set is fs
// with args: "commlab probe rdma-write --sizes 4K".
func commandLine(fs *flag.FlagSet, args []string) []string {
	return append(strings.Fields(fs.Name()), args...)
}

// toolArgs splits the arguments at "--": commlab's flags, then the tool's
// (or the embedded script's).
func toolArgs(args []string) (ours, tool []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

// outputFlags are the output flags of every verb that produces a run:
// --json and --save, and for the probes that measure here --compare and
// --load.
type outputFlags struct {
	json    *bool
	save    *string
	compare *string
	load    *string
}

func addOutputFlags(fs *flag.FlagSet, compare bool) outputFlags {
	m := outputFlags{
		json: fs.Bool("json", false, "print the result as JSON"),
		save: fs.String("save", "", "also write the run to this JSON file"),
	}
	if compare {
		m.compare = fs.String("compare", "", "compare with a reference run (e.g. one that commlab probe torch wrote)")
		m.load = fs.String("load", "", "show a saved run instead of measuring")
	}
	return m
}

// loaded returns the run named by --load, or nil when measuring. A run
// that cannot be loaded is bad input: the error says why.
func (mf outputFlags) loaded() (*probes.Run, error) {
	if mf.load == nil || *mf.load == "" {
		return nil, nil
	}
	return probes.LoadRun(*mf.load)
}

// inputs loads the runs --load and --compare name, before anything is
// measured.
func (mf outputFlags) inputs() (loaded, ref *probes.Run, err error) {
	if loaded, err = mf.loaded(); err != nil {
		return nil, nil, err
	}
	ref, err = mf.reference()
	return loaded, ref, err
}

// reference loads the run named by --compare, or nil when not comparing.
func (mf outputFlags) reference() (*probes.Run, error) {
	if mf.compare == nil || *mf.compare == "" {
		return nil, nil
	}
	return probes.LoadRun(*mf.compare)
}

// quantity is a flag whose value is a quantity (a bandwidth, a duration, a
// size) in text, parsed as it is set: a bad value is refused by flag
// parsing, naming the flag (`invalid value "25GB" for flag -bw: ...`). It
// keeps the text as given, which -h shows as the default and messages
// repeat; the text is empty while the flag is unset with no default.
type quantity[T any] struct {
	text  string
	value T
	parse func(string) (T, error)
}

func (q *quantity[T]) String() string { return q.text }

func (q *quantity[T]) Set(s string) error {
	v, err := q.parse(s)
	if err != nil {
		return err
	}
	q.text, q.value = s, v
	return nil
}

// typedAsText marks the flags -h shows as the string flags a person types
// (printDefaults).
func (q *quantity[T]) typedAsText() {}

// quantityFlag declares the flag name, whose value parse reads, with the
// default value (empty: none); a default that does not parse is a
// programming error.
func quantityFlag[T any](fs *flag.FlagSet, name, value, usage string, parse func(string) (T, error)) *quantity[T] {
	q := &quantity[T]{parse: parse}
	if value != "" {
		if err := q.Set(value); err != nil {
			panic(fmt.Sprintf("flag -%s: bad default %q: %v", name, value, err))
		}
	}
	fs.Var(q, name, usage)
	return q
}

// sizeRange is -b and -e, the smallest and largest message size.
type sizeRange struct{ lo, hi *quantity[int64] }

// addSizeRange declares -b and -e; noun names a size in the help ("write
// size"), mirrors the tool whose flags they copy ("nccl-tests", or "").
func addSizeRange(fs *flag.FlagSet, noun, lo, hi, mirrors string) sizeRange {
	return sizeRange{
		lo: quantityFlag(fs, "b", lo, "smallest "+noun+mirrorNote(mirrors, "b"), units.ParsePositiveSize),
		hi: quantityFlag(fs, "e", hi, "largest "+noun+mirrorNote(mirrors, "e"), units.ParsePositiveSize),
	}
}

func mirrorNote(tool, flag string) string {
	if tool == "" {
		return ""
	}
	return " (" + tool + " -" + flag + ")"
}

// sizeFlags are a sweep's sizes: --sizes, or -b/-e with the factor -f.
type sizeFlags struct {
	sizeRange
	list   *quantity[[]int64]
	factor *int64
}

func addSizeFlags(fs *flag.FlagSet, noun, lo, hi string, factor int64, mirrors string) sizeFlags {
	return sizeFlags{
		list:      quantityFlag(fs, "sizes", "", "comma-separated "+noun+"s (overrides -b/-e/-f)", units.ParseSizeList),
		sizeRange: addSizeRange(fs, noun, lo, hi, mirrors),
		factor:    fs.Int64("f", factor, "size multiplication factor"+mirrorNote(mirrors, "f")),
	}
}

// values are the sizes the flags ask for: the --sizes list, else the
// sweep from -b to -e by -f.
func (f sizeFlags) values() ([]int64, error) {
	if f.list.text != "" {
		return f.list.value, nil
	}
	return units.Sweep(f.lo.value, f.hi.value, *f.factor)
}

// sweepFlags are the flags of the probes that sweep message sizes over
// the GPUs here (bandwidth, nccl): the sizes and --devices.
type sweepFlags struct {
	sizeFlags
	devices *string
}

func addSweepFlags(fs *flag.FlagSet, noun, lo, hi string, factor int64, mirrors string) sweepFlags {
	return sweepFlags{
		sizeFlags: addSizeFlags(fs, noun, lo, hi, factor, mirrors),
		devices:   fs.String("devices", "", "device indices (default all)"),
	}
}

// values are the sizes and device indices the flags ask for; nil devices
// means all.
func (f sweepFlags) values() (sizes []int64, devices []int, err error) {
	if sizes, err = f.sizeFlags.values(); err != nil {
		return nil, nil, err
	}
	if devices, err = parseInts(*f.devices); err != nil {
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

// addRepeatFlags declares how often a timed probe repeats each size,
// --warmup untimed NOUNs and --iters timed ones, for a probe that times
// NOUNs ("copies", "writes"), with their defaults; batched probes time
// --iters NOUNs per repetition (of --reps, the probe's own), the others
// --iters NOUNs per size. mirrors names the tool whose -w and -n they copy.
func addRepeatFlags(fs *flag.FlagSet, warmup, iters *int, noun string, warmupDef, itersDef int, batched bool, mirrors string) {
	itersUsage := "timed " + noun + " per size"
	if batched {
		itersUsage = noun + " per timed repetition" + mirrorNote(mirrors, "n")
	}
	fs.IntVar(warmup, "warmup", warmupDef, "untimed "+noun+" per size"+mirrorNote(mirrors, "w"))
	fs.IntVar(iters, "iters", itersDef, itersUsage)
}

// addRDMAPortFlags declares the RDMA port a program uses: --device,
// --ib-port and --gid-index.
func addRDMAPortFlags(fs *flag.FlagSet, device *string, ibPort, gidIndex *int) {
	fs.StringVar(device, "device", "", "RDMA device, as ibv_devices lists it (default: the program's choice; rdma-write takes the first with an ACTIVE port)")
	fs.IntVar(ibPort, "ib-port", 0, "device port (0: the program's choice; rdma-write takes the first ACTIVE one)")
	fs.IntVar(gidIndex, "gid-index", -1, "GID index for RoCE, as show_gids lists them (-1: the program's choice; rdma-write uses the LID on InfiniBand, RoCE v2 with an IPv4 address on RoCE)")
}

// sides are a two-machine program's sides: both here by default, or one
// per machine with --server and --connect.
type sides struct{ listen, connect *string }

// addSidesFlags declares --server, --connect, --port and --server-host.
func addSidesFlags(fs *flag.FlagSet, listen, connect *string, port *int, serverHost *string) sides {
	fs.StringVar(listen, "server", "", "run only the server here, listening on HOST:PORT or :PORT")
	fs.StringVar(connect, "connect", "", "run only the client here, against the server at HOST:PORT")
	fs.IntVar(port, "port", 0, "TCP port when both sides run here (default: a free one)")
	fs.StringVar(serverHost, "server-host", "", "host the launched client connects to (default: this host's name)")
	return sides{listen, connect}
}

// check refuses both sides named at once.
func (s sides) check() error {
	if *s.listen != "" && *s.connect != "" {
		return errors.New("--server and --connect name the two machines' sides: give one")
	}
	return nil
}

// addCacheDirFlag declares where commlab's own programs are built.
func addCacheDirFlag(fs *flag.FlagSet, dir *string) {
	fs.StringVar(dir, "cache-dir", "", "where commlab's own programs are built (default: the user cache directory)")
}

// addDryRunFlag declares --dry-run.
func addDryRunFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("dry-run", false, "print the commands instead of running them")
}

// addScriptFlag declares --script for a probe that runs the embedded
// script name.
func addScriptFlag(fs *flag.FlagSet, name string) *bool {
	return fs.Bool("script", false, "write "+name+" to stdout instead of running it")
}

// addRecordedFlag declares --recorded for a probe with recordings, name
// the one shown by default.
func addRecordedFlag(fs *flag.FlagSet, name string) *bool {
	return fs.Bool("recorded", false, "show the recorded run ("+name+", or the name given)")
}
