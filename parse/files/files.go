// Package files parses many input files of one tool format at once, as
// `commlab parse FORMAT FILE...` does: each file (or standard input, "-")
// through the format's parser, then every file's readable summary or the
// list of parsed results as JSON. A file that fails to parse still shows
// what was read; the errors come back joined, each naming its file.
//
// The parsers, and the summaries each result writes of itself, are the
// format packages' (parse/nccllog, parse/nccltests, ...); this package
// reads files, collects errors and prints. It does not parse flags or set
// exit statuses: the commlab command does.
package files

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/flightrec"
	"github.com/commlab/commlab/parse/nvidiasmi"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/published"
	"github.com/commlab/commlab/probes/topograph"
)

// Options are how the files are read and shown.
type Options struct {
	// JSON prints the parsed data as JSON instead of the summaries.
	JSON bool
	// Stdin is what the file "-" reads (nil: os.Stdin).
	Stdin io.Reader
}

func (o Options) stdin() io.Reader {
	if o.Stdin == nil {
		return os.Stdin
	}
	return o.Stdin
}

// ReadInput reads a whole input file, or stdin for "-".
func ReadInput(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(name)
}

// InputName is how messages name an input: "(stdin)" for "-".
func InputName(name string) string {
	if name == "-" {
		return "(stdin)"
	}
	return name
}

// parseEach opens every file ("-" is standard input, for a pipe such as
// `NCCL_DEBUG=INFO prog 2>&1 | commlab parse nccl-log -`), hands it to
// parse and collects the per-file errors, prefixed with the file name,
// without stopping: what parsed is still shown.
func parseEach(files []string, stdin io.Reader, parseOne func(name string, r io.Reader) error) error {
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

// WriteJSON prints v indented, without HTML escaping (logs hold < and >).
func WriteJSON(w io.Writer, v any) error {
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

// Summarizer is what every simple format's parsed result is: it writes the
// readable text `commlab parse` prints.
type Summarizer interface {
	WriteSummary(w io.Writer, name string) error
}

// Format is the whole of a simple format: parse every file with parseOne,
// then print the list as JSON, each result under key ("result", "log",
// "report", ...), or each file's summary.
func Format[T Summarizer](files []string, opt Options, stdout io.Writer, key string, parseOne func(io.Reader) (T, error)) error {
	jsonOut := opt.JSON
	var out []parsedFile
	var shown []parsedFile // the files with something to summarise
	var values []T
	err := parseEach(files, opt.stdin(), func(name string, r io.Reader) error {
		v, perr := parseOne(r)
		f := parsedFile{file: name, err: errText(perr), key: key, value: v}
		out = append(out, f)
		if !errors.Is(perr, parse.ErrFormat) { // not this format: nothing to summarise
			shown, values = append(shown, f), append(values, v)
		}
		return perr
	})
	if jsonOut {
		if werr := WriteJSON(stdout, out); werr != nil {
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

// FlightRecorder reads PyTorch Flight Recorder dumps (directories stand for
// the files in them) and prints them with their analysis across ranks.
func FlightRecorder(files []string, opt Options, stdout io.Writer) error {
	jsonOut, stdin := opt.JSON, opt.stdin()
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
		if err := WriteJSON(stdout, struct {
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

// ParsedTopo is one `nvidia-smi topo -m` file's result in --json output; Error holds the parse
// error when only part of the file was read.
type ParsedTopo struct {
	File     string                `json:"file"`
	Matrix   *nvidiasmi.TopoMatrix `json:"matrix,omitempty"`
	Topology *probes.Topology      `json:"topology,omitempty"`
	Error    string                `json:"error,omitempty"`
}

// ParsedSMI is one `nvidia-smi -q` file's result in --json output.
type ParsedSMI struct {
	File   string           `json:"file"`
	Report *nvidiasmi.Query `json:"report"`
	Error  string           `json:"error,omitempty"`
}

// Topo reads `nvidia-smi topo -m` files and prints each as the topology
// it describes.
func Topo(files []string, opt Options, stdout io.Writer) error {
	return nvidiaSMI(files, opt, stdout, func(file, text string) (any, func(io.Writer), error) {
		m, perr := nvidiasmi.ParseTopoMatrixString(text)
		r := ParsedTopo{File: file, Error: errText(perr)}
		if errors.Is(perr, parse.ErrFormat) || len(m.Devices) == 0 {
			return r, nil, perr
		}
		r.Matrix, r.Topology = m, published.TopologyFromMatrix(m)
		return r, func(w io.Writer) { fmt.Fprint(w, topograph.Text(r.Topology)) }, perr
	})
}

// SMI reads `nvidia-smi -q` reports and prints each one's summary.
func SMI(files []string, opt Options, stdout io.Writer) error {
	return nvidiaSMI(files, opt, stdout, func(file, text string) (any, func(io.Writer), error) {
		q, perr := nvidiasmi.ParseQueryString(text)
		r := ParsedSMI{File: file, Report: q, Error: errText(perr)}
		if len(q.GPUs) == 0 {
			return r, nil, perr
		}
		return r, func(w io.Writer) { fmt.Fprint(w, q.Summary()) }, perr
	})
}

// nvidiaSMI parses each file whole with parseOne, which returns the
// file's --json value and, when there is something to show, the writer of
// its text. Text output names each file ("== FILE") when there are
// several; JSON is one object for one file and an array for several. A
// file that parses only in part still prints what it gave, and the first
// error is returned.
func nvidiaSMI(files []string, opt Options, stdout io.Writer, parseOne func(file, text string) (any, func(io.Writer), error)) error {
	jsonOut := opt.JSON
	var results []any
	var first error
	for _, name := range files {
		data, err := ReadInput(name, opt.stdin())
		if err != nil {
			return err
		}
		f := InputName(name)
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
		if err := WriteJSON(stdout, results[0]); err != nil {
			return err
		}
	} else if err := WriteJSON(stdout, results); err != nil {
		return err
	}
	return first
}
