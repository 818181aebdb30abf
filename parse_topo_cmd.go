package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/fake"
	"github.com/commlab/commlab/probes/parse"
	"github.com/commlab/commlab/probes/parse/nvidiasmi"
)

func init() {
	registerParseFormat(parseFormat{
		name:    "topo",
		summary: "nvidia-smi topo -m matrices",
		run:     runParseTopo,
	})
	registerParseFormat(parseFormat{
		name:    "smi",
		summary: "nvidia-smi -q reports",
		run:     runParseSMI,
	})
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

// runParseTopo parses each file; a file that parses only in part still
// prints what it gave, and the first error is returned.
func runParseTopo(files []string, jsonOut bool, stdout io.Writer) error {
	var results []any
	var first error
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		m, perr := nvidiasmi.ParseTopoMatrixString(string(data))
		r := parsedTopo{File: f}
		if !errors.Is(perr, parse.ErrFormat) && len(m.Devices) > 0 {
			r.Matrix, r.Topology = m, fake.TopologyFromMatrix(m)
		}
		if perr != nil {
			r.Error = perr.Error()
			if first == nil {
				first = fmt.Errorf("%s: %w", f, perr)
			}
		}
		results = append(results, r)
		if !jsonOut && r.Topology != nil {
			if len(files) > 1 {
				fmt.Fprintf(stdout, "== %s\n", f)
			}
			writeTopologyText(stdout, r.Topology)
		}
	}
	if jsonOut {
		if err := writeTopoJSON(stdout, results); err != nil {
			return err
		}
	}
	return first
}

func runParseSMI(files []string, jsonOut bool, stdout io.Writer) error {
	var results []any
	var first error
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		rep, perr := nvidiasmi.ParseQueryString(string(data))
		r := parsedSMI{File: f, Report: rep}
		if perr != nil {
			r.Error = perr.Error()
			if first == nil {
				first = fmt.Errorf("%s: %w", f, perr)
			}
		}
		results = append(results, r)
		if !jsonOut && len(rep.GPUs) > 0 {
			if len(files) > 1 {
				fmt.Fprintf(stdout, "== %s\n", f)
			}
			fmt.Fprint(stdout, rep.Summary())
		}
	}
	if jsonOut {
		if err := writeTopoJSON(stdout, results); err != nil {
			return err
		}
	}
	return first
}

// writeTopoJSON prints one object for one file and an array for several.
func writeTopoJSON(w io.Writer, results []any) error {
	if len(results) == 1 {
		return writeJSON(w, results[0])
	}
	return writeJSON(w, results)
}
