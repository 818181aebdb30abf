package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/commlab/commlab/probes/parse/flightrec"
	"github.com/commlab/commlab/probes/parse/nvbandwidth"
	"github.com/commlab/commlab/probes/parse/perftest"
)

// `commlab parse nvbandwidth|perftest|flight-recorder`: readable summaries
// of those tools' outputs, or the parsed numbers as JSON. A file that fails
// to parse still shows what was read before the failure; the command then
// exits 1 with the error naming the file and line (or byte).

func init() {
	registerParseFormat(parseFormat{
		name:    "nvbandwidth",
		summary: "nvbandwidth text or -j JSON output",
		run:     runParseNVBandwidth,
	})
	registerParseFormat(parseFormat{
		name:    "perftest",
		summary: "perftest ib_*_bw / ib_*_lat reports and --out_json files",
		run:     runParsePerftest,
	})
	registerParseFormat(parseFormat{
		name:    "flight-recorder",
		summary: "PyTorch Flight Recorder dumps (pickle or JSON, one per rank; directories allowed)",
		run:     runParseFlightRecorder,
	})
}

// nvbandwidth

func runParseNVBandwidth(files []string, jsonOut bool, stdout io.Writer) error {
	return runFormat(files, jsonOut, stdout, "report", nvbandwidth.Parse, writeNVBandwidth)
}

func writeNVBandwidth(w io.Writer, file string, rep *nvbandwidth.Report) {
	if rep == nil {
		fmt.Fprintf(w, "%s: nothing parsed\n", file)
		return
	}
	head := []string{rep.Format}
	if rep.Version != "" {
		head = append(head, "nvbandwidth "+rep.Version)
	}
	if rep.CUDARuntimeVersion > 0 {
		head = append(head, fmt.Sprintf("CUDA runtime %d", rep.CUDARuntimeVersion))
	}
	if rep.DriverVersion != "" {
		head = append(head, "driver "+rep.DriverVersion)
	}
	if rep.Hostname != "" {
		head = append(head, "host "+rep.Hostname)
	}
	fmt.Fprintf(w, "%s: %s\n", file, strings.Join(head, ", "))
	for _, d := range rep.Devices {
		fmt.Fprintf(w, "  device %d: %s", d.Index, d.Name)
		if d.BusID != "" {
			fmt.Fprintf(w, " (%s)", d.BusID)
		}
		fmt.Fprintln(w)
	}
	for _, t := range rep.Testcases {
		name := t.Name
		if name == "" {
			name = "(unnamed)"
		}
		fmt.Fprintf(w, "  %s: %s", name, t.Status)
		if t.Description != "" {
			fmt.Fprintf(w, ", %s", t.Description)
		}
		if t.HasSum {
			fmt.Fprintf(w, ", sum %g %s", t.Sum, t.Unit)
		}
		if t.HasCoefficient {
			fmt.Fprintf(w, ", CV %g", t.CoefficientOfVariation)
		}
		fmt.Fprintln(w)
		if t.Error != "" {
			fmt.Fprintf(w, "    error: %s\n", strings.ReplaceAll(t.Error, "\n", "\n           "))
		}
		writeMatrix(w, t.Matrix)
	}
	if rep.Waived > 0 {
		fmt.Fprintf(w, "  waived testcases: %d\n", rep.Waived)
	}
	for _, e := range rep.Errors {
		fmt.Fprintf(w, "  error: %s\n", e)
	}
}

func writeMatrix(w io.Writer, m [][]float64) {
	if len(m) == 0 {
		return
	}
	cols := 0
	for _, row := range m {
		cols = max(cols, len(row))
	}
	fmt.Fprintf(w, "    %4s", "")
	for c := 0; c < cols; c++ {
		fmt.Fprintf(w, " %9d", c)
	}
	fmt.Fprintln(w)
	for r, row := range m {
		fmt.Fprintf(w, "    %4d", r)
		for _, v := range row {
			if math.IsNaN(v) {
				fmt.Fprintf(w, " %9s", "N/A")
			} else {
				fmt.Fprintf(w, " %9.2f", v)
			}
		}
		fmt.Fprintln(w)
	}
}

// perftest

func runParsePerftest(files []string, jsonOut bool, stdout io.Writer) error {
	return runFormat(files, jsonOut, stdout, "report", perftest.Parse, writePerftest)
}

func writePerftest(w io.Writer, file string, rep *perftest.Report) {
	if rep == nil {
		fmt.Fprintf(w, "%s: nothing parsed\n", file)
		return
	}
	title := rep.Title
	if title == "" {
		title = "perftest " + rep.Kind
	}
	fmt.Fprintf(w, "%s: %s (%s)\n", file, title, rep.Format)
	var facts []string
	if rep.Device != "" {
		facts = append(facts, "device "+rep.Device)
	}
	if rep.LinkType != "" {
		facts = append(facts, "link "+rep.LinkType)
	}
	if rep.GIDIndex >= 0 {
		facts = append(facts, fmt.Sprintf("GID index %d", rep.GIDIndex))
	}
	if rep.MTU > 0 {
		facts = append(facts, fmt.Sprintf("MTU %d", rep.MTU))
	}
	if rep.QPs > 0 {
		facts = append(facts, fmt.Sprintf("%d QP(s)", rep.QPs))
	}
	if rep.UseCUDA {
		cuda := "CUDA buffers"
		if rep.CUDADevice >= 0 {
			cuda += fmt.Sprintf(" on device %d", rep.CUDADevice)
		}
		if rep.CUDADeviceName != "" {
			cuda += " (" + rep.CUDADeviceName + ")"
		}
		facts = append(facts, cuda)
	}
	if len(facts) > 0 {
		fmt.Fprintf(w, "  %s\n", strings.Join(facts, ", "))
	}
	if len(rep.Bandwidth) > 0 {
		unit := rep.Unit
		if rep.UnitInferred {
			unit += ", inferred"
		}
		fmt.Fprintf(w, "  %10s %12s %12s %12s %12s %10s   (%s)\n", "bytes", "iterations", "peak", "average", "avg GB/s", "Mpps", unit)
		for _, b := range rep.Bandwidth {
			gbs := "?"
			if rep.BytesPerUnit > 0 {
				gbs = fmt.Sprintf("%.3f", b.AverageBytesPerSecond/1e9)
			}
			side := ""
			if b.Side != "" {
				side = "  " + b.Side
			}
			fmt.Fprintf(w, "  %10d %12d %12.2f %12.2f %12s %10.6f%s\n", b.Bytes, b.Iterations, b.Peak, b.Average, gbs, b.MsgRateMpps, side)
		}
	}
	if len(rep.Latency) > 0 {
		unit := rep.LatencyUnit
		if unit == "" {
			unit = "usec"
		}
		fmt.Fprintf(w, "  %10s %12s %9s %9s %9s %9s %9s %9s %9s   (%s)\n", "bytes", "iterations", "min", "max", "typical", "avg", "stdev", "p99", "p99.9", unit)
		for _, l := range rep.Latency {
			fmt.Fprintf(w, "  %10d %12d %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", l.Bytes, l.Iterations, l.Min, l.Max, l.Typical, l.Average, l.Stdev, l.P99, l.P999)
		}
	}
	if len(rep.Bandwidth) == 0 && len(rep.Latency) == 0 {
		fmt.Fprintln(w, "  no results rows")
	}
}

// flight-recorder

func runParseFlightRecorder(files []string, jsonOut bool, stdout io.Writer) error {
	paths, err := expandDumpPaths(files)
	if err != nil {
		return err
	}
	dumps, loadErr := flightrec.LoadDumps(paths)
	analysis := flightrec.Analyze(dumps)
	if jsonOut {
		if err := writeJSON(stdout, struct {
			Dumps    []*flightrec.Dump   `json:"dumps"`
			Analysis *flightrec.Analysis `json:"analysis"`
		}{dumps, analysis}); err != nil {
			return err
		}
	} else {
		for _, d := range dumps {
			fmt.Fprintf(stdout, "%s: rank %d, %s dump version %s", d.File, d.Rank, d.Format, d.Version)
			if d.CommLibVersion != "" {
				fmt.Fprintf(stdout, ", NCCL %s", d.CommLibVersion)
			}
			fmt.Fprintf(stdout, ", %d entries, %d process group(s)\n", len(d.Entries), len(d.ProcessGroups))
		}
		fmt.Fprintln(stdout)
		fmt.Fprint(stdout, analysis.Text())
	}
	return loadErr
}

// expandDumpPaths replaces a directory by the files in it, so a whole
// TORCH_NCCL_DEBUG_INFO_TEMP_FILE directory can be passed at once.
func expandDumpPaths(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
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
