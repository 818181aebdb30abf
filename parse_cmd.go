package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// parseFormat is one input format `commlab parse` understands. Formats
// register themselves from their own files (parse_*.go) in init.
type parseFormat struct {
	name    string
	summary string
	// run parses the named files and writes either a readable summary or,
	// with jsonOut, the parsed numbers as JSON.
	run func(files []string, jsonOut bool, stdout io.Writer) error
}

var parseFormats = map[string]parseFormat{}

func registerParseFormat(f parseFormat) {
	if _, dup := parseFormats[f.name]; dup {
		panic("commlab: parse format registered twice: " + f.name)
	}
	parseFormats[f.name] = f
}

func init() {
	register(subcommand{name: "parse", summary: "parse tool outputs (nccl-tests, NCCL logs, topo, ...)", run: runParse})
}

func runParse(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("parse", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "print the parsed data as JSON")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: commlab parse <%s> FILE... [--json]\n", strings.Join(parseFormatNames(), "|"))
		fs.PrintDefaults()
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fs.Usage()
		return 2
	}
	format, ok := parseFormats[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "commlab parse: unknown format %q (known: %s)\n", args[0], strings.Join(parseFormatNames(), ", "))
		return 2
	}
	files, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return 2
	}
	if len(files) == 0 {
		fmt.Fprintf(stderr, "commlab parse %s: no input files\n", format.name)
		return 2
	}
	if err := format.run(files, *jsonOut, stdout); err != nil {
		fmt.Fprintf(stderr, "commlab parse %s: %v\n", format.name, err)
		return 1
	}
	return 0
}

func parseFormatNames() []string {
	names := make([]string, 0, len(parseFormats))
	for n := range parseFormats {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
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

// parseEach opens every file ("-" is standard input, for a pipe such as
// `NCCL_DEBUG=INFO prog 2>&1 | commlab parse nccl-log -`), hands it to
// parse and collects the per-file errors, prefixed with the file name,
// without stopping: what parsed is still shown.
func parseEach(files []string, parse func(name string, r io.Reader) error) error {
	var errs []error
	for _, name := range files {
		if name == "-" {
			if err := parse("(stdin)", os.Stdin); err != nil {
				errs = append(errs, fmt.Errorf("(stdin): %w", err))
			}
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		err = parse(name, f)
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

// runFormat is the whole of a simple `commlab parse` format: parse every
// file, then print the list as JSON, or each file's summary.
func runFormat[T any](files []string, jsonOut bool, stdout io.Writer, key string,
	parse func(io.Reader) (T, error), summary func(w io.Writer, file string, v T)) error {
	var out []parsedFile
	var values []T
	err := parseEach(files, func(name string, r io.Reader) error {
		v, perr := parse(r)
		out = append(out, parsedFile{file: name, err: errText(perr), key: key, value: v})
		values = append(values, v)
		return perr
	})
	if jsonOut {
		if werr := writeJSON(stdout, out); werr != nil {
			return werr
		}
		return err
	}
	for i := range out {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		summary(stdout, out[i].file, values[i])
	}
	return err
}
