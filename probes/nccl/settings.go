package nccl

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/commlab/commlab/parse/ncclxml"
)

// Settings are a sweep's settings as a person gives them, the flags of
// `commlab probe nccl`: Config checks them and turns them into a Config.
// DefaultSettings holds every default, for the flags and for callers that
// change one setting (the doctor's sweep, a child request).
type Settings struct {
	// Collectives are comma-separated names, or "all".
	Collectives string
	Sizes       []int64
	Devices     []int
	DType       string
	RedOp       string
	Root        int
	// Modes are "out" and/or "in", comma-separated.
	Modes               string
	Warmup, Iters, Reps int
	Check, Blocking     bool
	Timeout             time.Duration
	Algo, Proto         string
	Channels            int
	Debug, DebugSubsys  string
	// Env are NAME=VALUE settings for the run.
	Env []string
	// TopoDump, TopoFile (a file to read) and TopoEdit (an ncclxml edit)
	// need the child process; InProcess measures in this one.
	TopoDump  bool
	TopoFile  string
	TopoEdit  string
	InProcess bool
}

// AddFlags defines on fs the flags of `commlab probe nccl` that set s,
// each defaulting to s's value; the sweep's and the repeats' flags are
// the probe verbs' shared ones.
func (s *Settings) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&s.Collectives, "coll", s.Collectives, "collectives, comma-separated: "+strings.Join(Collectives, ",")+" (or all; unpaired_send and stalled_stream hang on purpose)")
	fs.StringVar(&s.DType, "dtype", s.DType, "data type (int8 ... float8e5m2)")
	fs.StringVar(&s.RedOp, "op", s.RedOp, "reduction: sum, prod, max, min, avg")
	fs.IntVar(&s.Root, "root", s.Root, "root rank of broadcast and reduce")
	fs.StringVar(&s.Modes, "modes", s.Modes, "out-of-place and/or in-place")
	fs.IntVar(&s.Reps, "reps", s.Reps, "timed repetitions, median reported")
	fs.BoolVar(&s.Check, "check", s.Check, "check results (nccl-tests -c)")
	fs.DurationVar(&s.Timeout, "timeout", s.Timeout, "abort a batch of operations not done in this time")
	fs.BoolVar(&s.Blocking, "blocking", s.Blocking, "blocking communicators, as nccl-tests and PyTorch use (a hang then ends the worker process instead of being aborted in-process)")
	fs.StringVar(&s.Algo, "algo", "", "set NCCL_ALGO")
	fs.StringVar(&s.Proto, "proto", "", "set NCCL_PROTO")
	fs.IntVar(&s.Channels, "nchannels", 0, "set NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS")
	fs.StringVar(&s.Debug, "debug", s.Debug, "NCCL_DEBUG level for the captured log (empty: none)")
	fs.StringVar(&s.DebugSubsys, "debug-subsys", s.DebugSubsys, "NCCL_DEBUG_SUBSYS")
	fs.BoolVar(&s.InProcess, "in-process", false, "measure in this process (NCCL_* settings of later runs are then ignored)")
	fs.BoolVar(&s.TopoDump, "topo-dump", false, "keep NCCL's topology and graph dumps (NCCL_TOPO_DUMP_FILE, NCCL_GRAPH_DUMP_FILE) in the run")
	fs.StringVar(&s.TopoFile, "topo-file", "", "run with this topology instead of NCCL's own detection (NCCL_TOPO_FILE), kept in the run")
	fs.StringVar(&s.TopoEdit, "topo-edit", "", "run twice: dump the topology, edit it (`EDIT`: "+EditNames()+"), run again on the edited file, and print both graph searches")
	fs.Func("env", "NAME=VALUE for the run (repeatable)", func(kv string) error { s.Env = append(s.Env, kv); return nil })
}

// DefaultSizes are the sweep's sizes when none are given: 8 B to 128 MiB
// by factors of 2 (the defaults of -b, -e and -f).
const (
	DefaultMinBytes = 8
	DefaultMaxBytes = 128 << 20
	DefaultFactor   = 2
	// DefaultDebugSubsys is NCCL_DEBUG_SUBSYS of the captured log.
	DefaultDebugSubsys = "INIT,GRAPH,ENV"
)

// DefaultSettings are the settings of `commlab probe nccl` without flags;
// Sizes is left empty (the flags' sweep fills it).
func DefaultSettings() Settings {
	return Settings{Collectives: "all_reduce", DType: "float32", RedOp: "sum", Modes: "out,in", Warmup: 5, Iters: 20, Reps: 5,
		Check: true, Timeout: 5 * time.Minute, Debug: "INFO", DebugSubsys: DefaultDebugSubsys}
}

// ErrSettings marks settings NCCL would not take; errors reading
// TopoFile wrap the file system's error instead.
var ErrSettings = errors.New("nccl: bad settings")

// Config checks s and returns the Config it asks for. Its messages name
// the flags of `commlab probe nccl`.
func (s Settings) Config() (Config, error) {
	bad := func(format string, a ...any) (Config, error) {
		return Config{}, settingsError(fmt.Sprintf(format, a...))
	}
	cfg := Config{DType: s.DType, RedOp: s.RedOp, Root: s.Root, Warmup: s.Warmup, Iters: s.Iters, Reps: s.Reps,
		Check: s.Check, Timeout: s.Timeout, Blocking: s.Blocking, Env: map[string]string{}, Sizes: s.Sizes, Devices: s.Devices}
	if s.Collectives == "all" {
		cfg.Collectives = Collectives
	} else {
		cfg.Collectives = strings.Split(s.Collectives, ",")
	}
	for _, c := range cfg.Collectives {
		if !slices.Contains(Collectives, c) && c != UnpairedSend && c != StalledStream {
			return bad("unknown collective %q", c)
		}
	}
	cfg.Modes = strings.Split(s.Modes, ",")
	for _, m := range cfg.Modes {
		if m != "out" && m != "in" {
			return bad("mode %q: want out or in", m)
		}
	}
	if _, err := LookupDType(s.DType); err != nil {
		return Config{}, err
	}
	if !slices.Contains(RedOps, s.RedOp) {
		return bad("unknown reduction %q", s.RedOp)
	}
	if s.Warmup < 0 || s.Iters <= 0 || s.Reps <= 0 || s.Timeout <= 0 {
		return bad("--iters, --reps and --timeout must be positive")
	}
	for _, kv := range s.Env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return bad("--env %q: want NAME=VALUE", kv)
		}
		cfg.Env[k] = v
	}
	if s.Algo != "" {
		cfg.Env["NCCL_ALGO"] = s.Algo
	}
	if s.Proto != "" {
		cfg.Env["NCCL_PROTO"] = s.Proto
	}
	if s.Channels > 0 {
		cfg.Env["NCCL_MIN_NCHANNELS"], cfg.Env["NCCL_MAX_NCHANNELS"] = strconv.Itoa(s.Channels), strconv.Itoa(s.Channels)
	}
	if s.Debug != "" {
		cfg.Env["NCCL_DEBUG"] = s.Debug
		cfg.Env["NCCL_DEBUG_SUBSYS"] = s.DebugSubsys
	}
	cfg.DumpTopology = s.TopoDump
	if s.TopoFile != "" {
		b, err := os.ReadFile(s.TopoFile)
		if err != nil {
			return Config{}, err
		}
		cfg.TopoXML = string(b)
	}
	if s.InProcess && (s.TopoDump || s.TopoFile != "" || s.TopoEdit != "") {
		return bad("--topo-dump, --topo-file and --topo-edit need the child process NCCL reads its settings in (drop --in-process)")
	}
	if s.TopoEdit != "" {
		if err := ncclxml.CheckEdit(s.TopoEdit); err != nil {
			return Config{}, err
		}
		if s.TopoFile != "" {
			return bad("--topo-edit edits the topology NCCL dumps; it does not take --topo-file")
		}
	}
	return cfg, nil
}

// settingsError is a message of Config that wraps ErrSettings without
// repeating its text.
type settingsError string

func (e settingsError) Error() string { return string(e) }
func (e settingsError) Unwrap() error { return ErrSettings }

// EditNames lists the topology edits --topo-edit takes.
func EditNames() string {
	var names []string
	for _, e := range ncclxml.Edits {
		names = append(names, e.Name)
	}
	return strings.Join(names, ", ")
}
