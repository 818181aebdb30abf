package main

import (
	"flag"
	"fmt"
	"io"
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
