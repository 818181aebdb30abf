package main

// `commlab parse <format> FILE... [--json]`: readable summaries of what
// nccl-tests, NCCL_DEBUG, NCCL's topology XML, nvidia-smi, nvbandwidth,
// perftest, the RDMA tools (ibstat, ibv_devinfo, show_gids, rdma link) and
// Flight Recorder print, or the parsed data as JSON. The
// parsers and their summaries live in parse/*; this file reads the
// files and prints. A file that fails to parse still shows what was read;
// the command then exits 1 with the error naming the file and line.

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/flightrec"
	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/parse/nccltests"
	"github.com/commlab/commlab/parse/ncclxml"
	"github.com/commlab/commlab/parse/nvbandwidth"
	"github.com/commlab/commlab/parse/nvidiasmi"
	"github.com/commlab/commlab/parse/perftest"
	"github.com/commlab/commlab/parse/rdmatools"
	"github.com/commlab/commlab/parse/torchtrace"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/published"
	"github.com/commlab/commlab/probes/topograph"
)

// parseVerbs are the formats `commlab parse` understands, each a verb of
// the command table; parseVerb gives them one shape: files, flags among
// them, --json.
var parseVerbs = []verb{
	parseVerb("flight-recorder", "PyTorch Flight Recorder dumps (pickle or JSON, one per rank; directories allowed)", runParseFlightRecorder),
	formatVerb("nccl-log", "NCCL_DEBUG=INFO logs (many ranks and hosts per file)", "log", nccllog.Parse),
	formatVerb("nccl-tests", "nccl-tests text output (any version, NCCL_DEBUG lines allowed) or its -J JSON file", "result", nccltests.Parse),
	formatVerb("nccl-xml", "NCCL_TOPO_DUMP_FILE / NCCL_GRAPH_DUMP_FILE XML", "document", ncclxml.Parse),
	formatVerb("nvbandwidth", "nvbandwidth text or -j JSON output", "report", nvbandwidth.Parse),
	formatVerb("perftest", "perftest ib_*_bw / ib_*_lat reports and --out_json files", "report", perftest.Parse),
	formatVerb("rdma", "ibstat, ibv_devinfo [-v], show_gids or rdma link output (which one is detected)", "report", rdmatools.Parse),
	formatVerb("ibstat", "ibstat output (infiniband-diags)", "report", rdmatools.ParseIBStat),
	formatVerb("ibv-devinfo", "ibv_devinfo or ibv_devinfo -v output (rdma-core), or its GID lines", "report", rdmatools.ParseIBVDevinfo),
	formatVerb("show-gids", "show_gids tables (MLNX_OFED)", "report", rdmatools.ParseShowGIDs),
	formatVerb("rdma-link", "rdma link show output (iproute2)", "report", rdmatools.ParseRDMALink),
	parseVerb("smi", "nvidia-smi -q reports", runParseSMI),
	{name: "torch-trace", summary: "torch.profiler Chrome traces (JSON or .json.gz): per-stream GPU intervals, communication under compute, overlap_fraction", usage: parseTorchTraceUsage, run: runParseTorchTrace},
	parseVerb("topo", "nvidia-smi topo -m matrices", runParseTopo),
}

// formatVerb is parseVerb for a simple format: parseOne reads one file
// into a value that summarises itself, shown under key in --json.
func formatVerb[T summarizer](name, summary, key string, parseOne func(io.Reader) (T, error)) verb {
	return parseVerb(name, summary, func(files []string, jsonOut bool, stdout io.Writer) error {
		return runFormat(files, jsonOut, stdout, key, parseOne)
	})
}

// parseVerb makes the verb for one format: run parses the named files and
// writes either a readable summary or, with jsonOut, the parsed numbers as
// JSON.
func parseVerb(name, summary string, run func(files []string, jsonOut bool, stdout io.Writer) error) verb {
	usage := []string{"usage: commlab parse " + name + " FILE... [--json]"}
	return verb{name: name, summary: summary, usage: usage, run: func(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
		jsonOut := fs.Bool("json", false, "print the parsed data as JSON")
		files, status, ok := parseFlags(fs, args)
		if !ok {
			return status
		}
		if len(files) == 0 {
			return fail(fs, stderr, exitBadInput, "no input files")
		}
		if err := run(files, *jsonOut, stdout); err != nil {
			return fail(fs, stderr, statusOf(err), "%v", err)
		}
		return 0
	}}
}

// stdin is what the file "-" reads; tests replace it.
var stdin io.Reader = os.Stdin

// readInput reads a whole input file, or standard input for "-".
func readInput(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(name)
}

// inputName is how messages name an input: "(stdin)" for "-".
func inputName(name string) string {
	if name == "-" {
		return "(stdin)"
	}
	return name
}

// parseEach opens every file ("-" is standard input, for a pipe such as
// `NCCL_DEBUG=INFO prog 2>&1 | commlab parse nccl-log -`), hands it to
// parse and collects the per-file errors, prefixed with the file name,
// without stopping: what parsed is still shown.
func parseEach(files []string, parseOne func(name string, r io.Reader) error) error {
	var errs []error
	for _, name := range files {
		if name == "-" {
			if err := parseOne("(stdin)", stdin); err != nil {
				errs = append(errs, fmt.Errorf("(stdin): %w", err))
			}
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		err = parseOne(name, f)
		f.Close()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// writeJSON prints v indented, without HTML escaping (logs hold < and >).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// errText is an error's message, or "" for none (the JSON "error" field).
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// parsedFile is one input's outcome as --json prints it: the file, the
// parse error if any, and what parsed (kept even with an error) under the
// format's own key ("result", "log", "report", ...).
type parsedFile struct {
	file, err, key string
	value          any
}

func (p parsedFile) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteString(`{"file":`)
	if err := enc.Encode(p.file); err != nil {
		return nil, err
	}
	if p.err != "" {
		b.WriteString(`,"error":`)
		if err := enc.Encode(p.err); err != nil {
			return nil, err
		}
	}
	b.WriteString(`,"` + p.key + `":`)
	if err := enc.Encode(p.value); err != nil {
		return nil, err
	}
	b.WriteString("}")
	return b.Bytes(), nil
}

// summarizer is what every simple format's parsed result is: it writes the
// readable text `commlab parse` prints.
type summarizer interface {
	WriteSummary(w io.Writer, name string) error
}

// runFormat is the whole of a simple `commlab parse` format: parse every
// file, then print the list as JSON, or each file's summary.
func runFormat[T summarizer](files []string, jsonOut bool, stdout io.Writer, key string, parseOne func(io.Reader) (T, error)) error {
	var out []parsedFile
	var shown []parsedFile // the files with something to summarise
	var values []T
	err := parseEach(files, func(name string, r io.Reader) error {
		v, perr := parseOne(r)
		f := parsedFile{file: name, err: errText(perr), key: key, value: v}
		out = append(out, f)
		if !errors.Is(perr, parse.ErrFormat) { // not this format: nothing to summarise
			shown, values = append(shown, f), append(values, v)
		}
		return perr
	})
	if jsonOut {
		if werr := writeJSON(stdout, out); werr != nil {
			return werr
		}
		return err
	}
	for i := range shown {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if werr := values[i].WriteSummary(stdout, shown[i].file); werr != nil {
			return werr
		}
	}
	return err
}

func runParseFlightRecorder(files []string, jsonOut bool, stdout io.Writer) error {
	paths, err := expandDumpPaths(files)
	if err != nil {
		return err
	}
	var dumps []*flightrec.Dump
	var errs []error
	for _, p := range paths {
		var d *flightrec.Dump
		if p == "-" {
			d, err = flightrec.ParseDump(stdin, "(stdin)")
		} else {
			d, err = flightrec.LoadDump(p)
		}
		errs = append(errs, err)
		// An input that is not a dump at all (no format recognised) adds
		// nothing to the analysis: it is only reported.
		if d != nil && d.Format != "" {
			dumps = append(dumps, d)
		}
	}
	loadErr := errors.Join(errs...)
	if len(dumps) == 0 {
		return loadErr
	}
	analysis := flightrec.Analyze(dumps)
	if jsonOut {
		if err := writeJSON(stdout, struct {
			Dumps    []*flightrec.Dump   `json:"dumps"`
			Analysis *flightrec.Analysis `json:"analysis"`
		}{dumps, analysis}); err != nil {
			return err
		}
	} else if err := flightrec.WriteSummary(stdout, dumps, analysis); err != nil {
		return err
	}
	return loadErr
}

// expandDumpPaths replaces a directory by the files in it, so a whole
// TORCH_NCCL_DEBUG_INFO_TEMP_FILE directory can be passed at once.
func expandDumpPaths(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if a == "-" {
			out = append(out, a)
			continue
		}
		info, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, a)
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, e := range entries {
			if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
				names = append(names, filepath.Join(a, e.Name()))
			}
		}
		sort.Strings(names)
		if len(names) == 0 {
			return nil, fmt.Errorf("%s: no dump files in directory", a)
		}
		out = append(out, names...)
	}
	return out, nil
}

// parsedTopo is one file's result in --json output; Error holds the parse
// error when only part of the file was read.
type parsedTopo struct {
	File     string                `json:"file"`
	Matrix   *nvidiasmi.TopoMatrix `json:"matrix,omitempty"`
	Topology *probes.Topology      `json:"topology,omitempty"`
	Error    string                `json:"error,omitempty"`
}

type parsedSMI struct {
	File   string           `json:"file"`
	Report *nvidiasmi.Query `json:"report"`
	Error  string           `json:"error,omitempty"`
}

// runParseTopo reads `nvidia-smi topo -m` files and prints each as the
// topology it describes.
func runParseTopo(files []string, jsonOut bool, stdout io.Writer) error {
	return runNVIDIASMI(files, jsonOut, stdout, func(file, text string) (any, func(io.Writer), error) {
		m, perr := nvidiasmi.ParseTopoMatrixString(text)
		r := parsedTopo{File: file, Error: errText(perr)}
		if errors.Is(perr, parse.ErrFormat) || len(m.Devices) == 0 {
			return r, nil, perr
		}
		r.Matrix, r.Topology = m, published.TopologyFromMatrix(m)
		return r, func(w io.Writer) { fmt.Fprint(w, topograph.Text(r.Topology)) }, perr
	})
}

func runParseSMI(files []string, jsonOut bool, stdout io.Writer) error {
	return runNVIDIASMI(files, jsonOut, stdout, func(file, text string) (any, func(io.Writer), error) {
		q, perr := nvidiasmi.ParseQueryString(text)
		r := parsedSMI{File: file, Report: q, Error: errText(perr)}
		if len(q.GPUs) == 0 {
			return r, nil, perr
		}
		return r, func(w io.Writer) { fmt.Fprint(w, q.Summary()) }, perr
	})
}

// runNVIDIASMI parses each file whole with parseOne, which returns the
// file's --json value and, when there is something to show, the writer of
// its text. Text output names each file ("== FILE") when there are
// several; JSON is one object for one file and an array for several. A
// file that parses only in part still prints what it gave, and the first
// error is returned.
func runNVIDIASMI(files []string, jsonOut bool, stdout io.Writer, parseOne func(file, text string) (any, func(io.Writer), error)) error {
	var results []any
	var first error
	for _, name := range files {
		data, err := readInput(name)
		if err != nil {
			return err
		}
		f := inputName(name)
		r, write, perr := parseOne(f, string(data))
		if perr != nil && first == nil {
			first = fmt.Errorf("%s: %w", f, perr)
		}
		results = append(results, r)
		if !jsonOut && write != nil {
			if len(files) > 1 {
				fmt.Fprintf(stdout, "== %s\n", f)
			}
			write(stdout)
		}
	}
	if !jsonOut {
		return first
	}
	if len(results) == 1 {
		if err := writeJSON(stdout, results[0]); err != nil {
			return err
		}
	} else if err := writeJSON(stdout, results); err != nil {
		return err
	}
	return first
}

var parseTorchTraceUsage = []string{
	"usage: commlab parse torch-trace FILE... [--within NAME] [--device N] [--json]",
	"Reads torch.profiler Chrome traces (export_chrome_trace; gzipped too) and measures communication against compute.",
}

// runParseTorchTrace is `commlab parse torch-trace FILE... [--within NAME]
// [--json]`: each trace's streams and overlap, over the whole trace or
// inside the CPU ranges called NAME (a record_function annotation).
func runParseTorchTrace(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	jsonOut := fs.Bool("json", false, "print the parsed data as JSON")
	within := fs.String("within", "", "analyse only the GPU work launched inside the CPU ranges of this name (a record_function annotation)")
	device := fs.Int("device", -1, "the GPU to analyse (-1: the lowest in the trace)")
	files, status, ok := parseFlags(fs, args)
	if !ok {
		return status
	}
	if len(files) == 0 {
		return fail(fs, stderr, exitBadInput, "no input files")
	}
	var out []parsedFile
	var reports []*torchtrace.Report
	var names []string
	err := parseEach(files, func(name string, r io.Reader) error {
		tr, perr := torchtrace.Parse(r)
		if errors.Is(perr, parse.ErrFormat) {
			out = append(out, parsedFile{file: name, err: errText(perr), key: "report", value: nil})
			return perr
		}
		rep, aerr := tr.Report(torchtrace.Options{Within: *within, Device: *device})
		err := errors.Join(perr, aerr)
		out = append(out, parsedFile{file: name, err: errText(err), key: "report", value: rep})
		reports, names = append(reports, rep), append(names, name)
		return err
	})
	if *jsonOut {
		if werr := writeJSON(stdout, out); werr != nil {
			return fail(fs, stderr, 1, "%v", werr)
		}
	} else {
		for i, rep := range reports {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			if werr := rep.WriteSummary(stdout, names[i]); werr != nil {
				return fail(fs, stderr, 1, "%v", werr)
			}
		}
	}
	if err != nil {
		return fail(fs, stderr, statusOf(err), "%v", err)
	}
	return 0
}
