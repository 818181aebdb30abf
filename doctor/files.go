package doctor

// This file reads the evidence files a user names (Files, ReadFiles):
// one reader per kind, run from one table; a file that is not there
// fails, one that reads only in part gives what it could and a Problem.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/commlab/commlab/parse/dmesg"
	"github.com/commlab/commlab/parse/flightrec"
	"github.com/commlab/commlab/parse/hanglab"
	"github.com/commlab/commlab/parse/lspci"
	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/parse/nccltests"
	"github.com/commlab/commlab/parse/nvidiasmi"
	"github.com/commlab/commlab/parse/rdmatools"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/units"
)

// Files names the evidence a user brings, one field per kind; any subset.
// Paths that take several files (NCCLLog, FlightRecorder, Dmesg) take a
// directory or a glob as well.
type Files struct {
	// Recorded is one of the lab's recorded machines (RecordedMachines).
	Recorded string
	// Topo is nvidia-smi topo -m output or commlab probe topo --json;
	// LSPCI lspci -vvv output.
	Topo, LSPCI string
	// NCCLLog is NCCL_DEBUG=INFO output (the job's stderr will do: the
	// lines PyTorch prints there are read too); NCCLRun and Bandwidth are
	// saved commlab runs.
	NCCLLog, NCCLRun, Bandwidth string
	// NCCLTests is nccl-tests output (text or -J JSON) or a saved commlab
	// probe nccl-tests run: the curve the collective checks read.
	NCCLTests string
	// FlightRecorder holds the ranks' dumps; Stacks their stack dumps
	// (py-spy dump or faulthandler text, one rank_N.txt or rankN.txt per
	// rank); Dmesg the nodes' kernel logs.
	FlightRecorder, Stacks, Dmesg string
	// RDMA is the nodes' show_gids, ibv_devinfo -v, ibstat or rdma link
	// output, one file per node (a directory or a glob).
	RDMA string
	// Counters is the nodes' NIC port counters: perfquery -x, ethtool -S
	// or `grep -H . /sys/class/infiniband/*/ports/*/*counters/*`, one
	// file per node; a port read twice in a file is a before and after.
	Counters string
	// Trace is a torch.profiler Chrome trace; Env the job's environment
	// (env output, NAME=VALUE lines); Torch the job's PyTorch version.
	Trace, Env, Torch string
	// RankRuns, NodeReports and Pairs are what a run across nodes leaves:
	// per-node commlab probe nccl runs, per-node doctor reports
	// (DIR/<host>/report.json), pairwise nccl-tests outputs (<a>+<b>.txt).
	RankRuns, NodeReports, Pairs string
}

// Any says whether any evidence is named.
func (f Files) Any() bool {
	for _, s := range []string{f.Recorded, f.Topo, f.LSPCI, f.NCCLLog, f.NCCLRun, f.Bandwidth, f.NCCLTests, f.FlightRecorder, f.Stacks, f.Dmesg, f.RDMA, f.Counters, f.Trace, f.Env, f.RankRuns, f.NodeReports, f.Pairs} {
		if s != "" {
			return true
		}
	}
	return false
}

// ReadFiles reads the evidence f names. A file that is not there fails
// (the path is wrong); a file that is there but reads only in part, or not
// at all, gives what could be read and a Problem naming the rest, so the
// report still says what the good parts show.
func ReadFiles(f Files) (*Evidence, error) {
	ev := &Evidence{}
	if f.Recorded != "" {
		rec, err := Recorded(f.Recorded)
		if err != nil {
			return nil, err
		}
		ev = rec
	}
	for _, r := range f.readers() {
		if r.path == "" {
			continue
		}
		if err := r.read(ev, r.path, f); err != nil {
			return nil, err
		}
	}
	if f.Torch != "" {
		ev.TorchVersion = f.Torch
		ev.AddInput("pytorch", "--torch", "PyTorch "+f.Torch)
	}
	return ev, nil
}

// evidenceReader reads the evidence at one path a user named (never "").
type evidenceReader struct {
	path string
	read func(ev *Evidence, p string, f Files) error
}

// readers are the paths f names and their readers, in the order
// ReadFiles runs them: a saved run's NCCL log is read only when no log is
// named, and the per-node reports add to the per-node runs' times.
func (f Files) readers() []evidenceReader {
	return []evidenceReader{
		{f.Topo, oneFile(readTopo)},
		{f.LSPCI, oneFile(readLSPCI)},
		{f.Bandwidth, readBandwidth},
		{f.NCCLRun, readNCCLRun},
		{f.NCCLLog, readNCCLLog},
		{f.NCCLTests, oneFile(readNCCLTests)},
		{f.FlightRecorder, readFlightRecorder},
		{f.Stacks, readStacks},
		{f.Dmesg, readDmesg},
		{f.RDMA, readRDMA},
		{f.Counters, readCounters},
		{f.Env, oneFile(readEnv)},
		{f.Trace, readTrace},
		{f.RankRuns, readRankRuns},
		{f.NodeReports, readNodeReports},
		{f.Pairs, readPairs},
	}
}

// readFile reads a file a user named: not being there is an error.
func readFile(p string) ([]byte, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("doctor: %w", err)
	}
	return b, nil
}

// oneFile is a reader of one file: not being there fails; what it holds,
// however little of it reads, goes to read, which notes what it could not.
func oneFile(read func(ev *Evidence, p string, data []byte)) func(*Evidence, string, Files) error {
	return func(ev *Evidence, p string, _ Files) error {
		data, err := readFile(p)
		if err != nil {
			return err
		}
		read(ev, p, data)
		return nil
	}
}

// eachFile reads files in order; one that is not there fails.
func eachFile(files []string, read func(name string, data []byte)) error {
	for _, name := range files {
		data, err := readFile(name)
		if err != nil {
			return err
		}
		read(name, data)
	}
	return nil
}

// eachInput hands read every file p names (a file, or a folder's files).
func eachInput(p string, read func(name string, data []byte)) error {
	files, err := globOrFile(p)
	if err != nil {
		return err
	}
	return eachFile(files, read)
}

// filesIn lists the files under dir that match pattern, sorted; none is
// an error wrapping os.ErrNotExist that says what was looked for.
func filesIn(dir, pattern, want string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("doctor: %s: %s: %w", dir, want, os.ErrNotExist)
	}
	sort.Strings(files)
	return files, nil
}

// mustExist fails when a path a user named is not there.
func mustExist(p string) error {
	if _, err := os.Stat(p); err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	return nil
}

func readTopo(ev *Evidence, p string, data []byte) {
	var t *probes.Topology
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		t = &probes.Topology{}
		if err := json.Unmarshal(data, t); err != nil {
			ev.AddProblem("topology", p, "not a commlab topology JSON: "+err.Error())
			return
		}
	} else {
		m, err := nvidiasmi.ParseTopoMatrixString(string(data))
		if m != nil {
			t = m.Topology()
		}
		if t == nil || len(t.GPUs) == 0 {
			ev.AddProblem("topology", p, "not nvidia-smi topo -m output: "+errString(err))
			return
		}
		if err != nil {
			ev.AddProblem("topology", p, "read in part: "+err.Error())
		}
	}
	ev.Topology = t
	ev.AddInput("topology", p, t.Source)
}

func readLSPCI(ev *Evidence, p string, data []byte) {
	rep, err := lspci.Parse(bytes.NewReader(data))
	if rep == nil || len(rep.Devices) == 0 {
		ev.AddProblem("pci", p, "no PCI function read: "+errString(err))
		return
	}
	if err != nil {
		ev.AddProblem("pci", p, "read in part: "+err.Error())
	}
	ev.PCI = rep.Facts()
	ev.AddInput("pci", p, fmt.Sprintf("%d functions", len(rep.Devices)))
}

func loadRun(ev *Evidence, what, p string) *probes.Run {
	data, err := readFile(p)
	if err != nil {
		ev.AddProblem(what, p, err.Error())
		return nil
	}
	run, err := probes.ReadRun(bytes.NewReader(data))
	if err != nil {
		ev.AddProblem(what, p, "not a saved commlab run: "+err.Error())
		return nil
	}
	return run
}

// namedRun reads the saved run a user named as what: not being there
// fails; not reading as a run is a problem, and gives nil.
func namedRun(ev *Evidence, what, p string) (*probes.Run, error) {
	if err := mustExist(p); err != nil {
		return nil, err
	}
	run := loadRun(ev, what, p)
	if run != nil {
		ev.AddInput(what, p, RunProvenance(run))
	}
	return run, nil
}

func readBandwidth(ev *Evidence, p string, _ Files) error {
	run, err := namedRun(ev, "bandwidth", p)
	if run != nil {
		ev.Bandwidth = run
	}
	return err
}

func readNCCLRun(ev *Evidence, p string, f Files) error {
	run, err := namedRun(ev, "nccl sweep", p)
	if run == nil {
		return err
	}
	ev.NCCL = run
	if lg := run.Logs["nccl-debug"]; lg != "" && f.NCCLLog == "" {
		readLogText(ev, []byte(lg), p+" (nccl-debug)")
	}
	return nil
}

// readNCCLLog reads NCCL_DEBUG output; several files (one per rank) read
// as one log. The same text often is the job's stderr: PyTorch's
// ProcessGroupNCCL settings and a torchrun banner in it are read too.
// The files stream through the parser: a large job's gigabyte of log is
// never held whole.
func readNCCLLog(ev *Evidence, p string, _ Files) error {
	files, err := globOrFile(p)
	if err != nil {
		return err
	}
	readers := make([]io.Reader, 0, 2*len(files))
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("doctor: %w", err)
		}
		defer f.Close()
		readers = append(readers, f, strings.NewReader("\n"))
	}
	readLog(ev, io.MultiReader(readers...), p)
	if ev.NCCLLog != nil {
		ev.Inputs[len(ev.Inputs)-1].Note = fmt.Sprintf("%d file(s), %d NCCL lines", len(files), ev.NCCLLog.NCCLLines)
	}
	return nil
}

// readLogText reads a job's log held in memory.
func readLogText(ev *Evidence, text []byte, name string) {
	readLog(ev, bytes.NewReader(text), name)
}

// readLog reads a job's log: NCCL's lines, and what PyTorch printed. The
// PyTorch lines are picked out as the text streams past (jobLogLines), so
// memory follows the parsed log, not the text.
func readLog(ev *Evidence, r io.Reader, name string) {
	var torch jobLogLines
	lg, err := nccllog.Parse(io.TeeReader(r, &torch))
	torch.flush()
	switch {
	case lg == nil || lg.NCCLLines == 0:
		ev.AddProblem("nccl log", name, "no NCCL line (NCCL_DEBUG=INFO prints them): "+errString(err))
	default:
		if err != nil {
			ev.AddProblem("nccl log", name, "read in part: "+err.Error())
		}
		ev.NCCLLog, ev.NCCLLogName = lg, name
		ev.AddInput("nccl log", name, fmt.Sprintf("%d NCCL lines", lg.NCCLLines))
	}
	text := torch.kept.String()
	if s := TorchSettingsFromLog(text); len(s) > 0 {
		if ev.TorchSettings == nil {
			ev.TorchSettings = map[string]string{}
		}
		for k, v := range s {
			ev.TorchSettings[k] = v
		}
		ev.TorchSettingsSource = name
		ev.AddInput("pytorch settings", name, fmt.Sprintf("%d settings ProcessGroupNCCL printed at init", len(s)))
	}
	if l, why := launcherFromLog(text); l != "" && ev.Launcher == "" {
		ev.Launcher, ev.LauncherWhy = l, why+" in "+name
	}
}

func readNCCLTests(ev *Evidence, p string, data []byte) {
	if run, err := probes.ReadRun(bytes.NewReader(data)); err == nil && run.Kind != "" {
		ev.NCCLTests = run
		ev.AddInput("nccl-tests", p, RunProvenance(run))
		return
	}
	res, perr := nccltests.Parse(bytes.NewReader(data))
	run := RunFromNCCLTests(res, p)
	if run == nil {
		ev.AddProblem("nccl-tests", p, "no nccl-tests row: "+errString(perr))
		return
	}
	if perr != nil {
		ev.AddProblem("nccl-tests", p, "read in part: "+perr.Error())
	}
	ev.NCCLTests = run
	ev.AddInput("nccl-tests", p, fmt.Sprintf("%d sizes of %s", len(run.Samples), run.Samples[0].Op))
}

func readFlightRecorder(ev *Evidence, p string, _ Files) error {
	files, err := globOrFile(p)
	if err != nil {
		return err
	}
	set, err := flightrec.LoadSet(files)
	if err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	ev.FlightRecorder = set.Dumps
	ranks := make([]int, 0, len(set.Dumps))
	for _, d := range set.Dumps {
		ranks = append(ranks, d.Rank)
	}
	note := fmt.Sprintf("%d dumps, ranks %s", len(set.Dumps), flightrec.RankRanges(ranks))
	if len(set.Dumps) == 0 {
		note = "no dump"
	}
	if n := len(set.Skipped); n > 0 {
		note += fmt.Sprintf("; %d file(s) left out", n)
	}
	ev.AddInput("flight recorder", p, note)
	for _, s := range set.Skipped {
		if strings.HasPrefix(s.Reason, "a second dump") || strings.HasPrefix(s.Reason, "not a Flight Recorder dump") {
			ev.AddInput("flight recorder", s.File, "left out: "+s.Reason)
			continue
		}
		ev.AddProblem("flight recorder", s.File, s.Reason)
	}
	for _, d := range set.Damaged {
		ev.AddProblem("flight recorder", p, "read in part: "+d)
	}
	for _, n := range set.Notes {
		ev.AddInput("flight recorder", p, n)
	}
	return nil
}

func readStacks(ev *Evidence, p string, _ Files) error {
	st, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	var stacks []hanglab.Stack
	var skipped []string
	if st.IsDir() {
		stacks, skipped = hanglab.LoadStacks(os.DirFS(p), ".")
	} else {
		stacks = oneStack(os.DirFS(filepath.Dir(p)), filepath.Base(p))
	}
	ev.Stacks = stacks
	ev.AddInput("stacks", p, fmt.Sprintf("%d rank(s)", len(stacks)))
	for _, s := range skipped {
		ev.AddProblem("stacks", p, s)
	}
	return nil
}

// oneStack reads one stack file, the rank from its name.
func oneStack(fsys fs.FS, name string) []hanglab.Stack {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil
	}
	r := flightrec.RankFromName(name)
	return []hanglab.Stack{hanglab.ParseStack(max(r, 0), string(b))}
}

func readDmesg(ev *Evidence, p string, _ Files) error {
	return eachInput(p, func(name string, data []byte) {
		l, err := dmesg.Parse(bytes.NewReader(data))
		if err != nil {
			ev.AddProblem("kernel log", name, err.Error())
			if l == nil || l.Lines == 0 {
				return
			}
		}
		k := KernelLog{Name: name, Log: l}
		for _, e := range l.Events {
			if e.Host != "" {
				k.Host = e.Host
				break
			}
		}
		ev.Kernel = append(ev.Kernel, k)
		ev.AddInput("kernel log", name, fmt.Sprintf("%d lines, %d GPU or NIC events", l.Lines, len(l.Events)))
	})
}

func readRDMA(ev *Evidence, p string, _ Files) error {
	return eachInput(p, func(name string, data []byte) {
		r, err := rdmatools.Parse(bytes.NewReader(data))
		if err != nil {
			ev.AddProblem("rdma tool output", name, err.Error())
			if r == nil || len(r.Devices) == 0 && len(r.GIDs) == 0 {
				return
			}
		}
		o := RDMAOutput{Name: strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)), Report: r}
		for _, d := range r.Devices {
			if d.Host != "" {
				o.Host = d.Host
				break
			}
		}
		ev.RDMA = append(ev.RDMA, o)
		ev.AddInput("rdma tool output", name, fmt.Sprintf("%s: %d device(s), %d GID(s)", r.Tool, len(r.Devices), len(r.AllGIDs())))
	})
}

func readEnv(ev *Evidence, p string, data []byte) {
	env := EnvFromText(string(data))
	if len(env) == 0 {
		ev.AddProblem("environment", p, "no NAME=VALUE line")
	}
	ev.Env, ev.EnvSource = env, p
	ev.AddInput("environment", p, fmt.Sprintf("%d variables", len(env)))
	if l, why := launcherFromEnv(env); l != "" {
		ev.Launcher, ev.LauncherWhy = l, why
	}
	if s := TorchSettingsFromLog(string(data)); len(s) > 0 && ev.TorchSettings == nil {
		ev.TorchSettings, ev.TorchSettingsSource = s, p
	}
}

func readTrace(ev *Evidence, p string, _ Files) error {
	fh, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	defer fh.Close()
	v, err := TraceOverlap(fh, filepath.Base(p))
	if err != nil {
		ev.AddProblem("torch trace", p, err.Error())
		return nil
	}
	ev.Framework = append(ev.Framework, v)
	ev.AddInput("torch trace", p, "1 overlap verdict")
	return nil
}

func readRankRuns(ev *Evidence, p string, _ Files) error {
	files, err := filesIn(p, "*.json", "no *.json runs")
	if err != nil {
		return err
	}
	var runs []*probes.Run
	for _, name := range files {
		if run := loadRun(ev, "per-node runs", name); run != nil {
			runs = append(runs, run)
		}
	}
	ev.RankTimes = RankTimesFromRuns(runs, "all_reduce")
	ev.AddInput("per-node runs", p, fmt.Sprintf("%d runs", len(runs)))
	return nil
}

func readNodeReports(ev *Evidence, p string, _ Files) error {
	files, err := filesIn(p, filepath.Join("*", "report.json"), "no */report.json")
	if err != nil {
		return err
	}
	var reps []*Report
	var hosts []string
	err = eachFile(files, func(name string, data []byte) {
		rep, err := ReadReport(bytes.NewReader(data))
		if err != nil {
			ev.AddProblem("per-node reports", name, err.Error())
			return
		}
		if rep.Host == "" {
			rep.Host = filepath.Base(filepath.Dir(name)) // the node's folder names it
		}
		reps = append(reps, rep)
		hosts = append(hosts, filepath.Base(filepath.Dir(name)))
	})
	if err != nil {
		return err
	}
	ev.RankTimes = append(ev.RankTimes, RankTimesFromReports(reps)...)
	ev.NodeReports = append(ev.NodeReports, reps...)
	ev.AddInput("per-node reports", p, fmt.Sprintf("%d nodes: %s", len(reps), strings.Join(hosts, ", ")))
	return nil
}

func readPairs(ev *Evidence, p string, _ Files) error {
	files, err := filesIn(p, "*+*.txt", "no <a>+<b>.txt pairwise outputs")
	if err != nil {
		return err
	}
	times := map[string]float64{}
	what := ""
	err = eachFile(files, func(name string, data []byte) {
		res, err := nccltests.Parse(bytes.NewReader(data))
		if res == nil || len(res.Runs) == 0 || len(res.Runs[0].Rows) == 0 {
			ev.AddProblem("pairwise runs", name, "no nccl-tests row (the pair failed to run?): "+errString(err))
			return
		}
		rows := res.Runs[0].Rows
		last := rows[len(rows)-1]
		times[strings.TrimSuffix(filepath.Base(name), ".txt")] = last.OutOfPlace.TimeUs
		what = fmt.Sprintf("%s %s between two nodes", res.Runs[0].Collective, units.FormatSize(last.SizeBytes))
	})
	if err != nil {
		return err
	}
	ev.RankTimes = append(ev.RankTimes, NodeTimesFromPairs(times, what)...)
	ev.AddInput("pairwise runs", p, fmt.Sprintf("%d pairs", len(times)))
	return nil
}

// globOrFile lists a directory's regular files, a glob's matches, or the
// one file; nothing matching is an error wrapping os.ErrNotExist.
func globOrFile(p string) ([]string, error) {
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("doctor: %w", err)
		}
		var out []string
		for _, e := range entries {
			if e.Type().IsRegular() {
				out = append(out, filepath.Join(p, e.Name()))
			}
		}
		return out, nil
	}
	files, err := filepath.Glob(p)
	if err != nil {
		return nil, fmt.Errorf("doctor: %s: %w", p, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("doctor: %s: %w", p, os.ErrNotExist)
	}
	sort.Strings(files)
	return files, nil
}

func errString(err error) string {
	if err == nil {
		return "nothing recognised"
	}
	return err.Error()
}
