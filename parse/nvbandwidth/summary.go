package nvbandwidth

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/commlab/commlab/parse"
)

// WriteSummary writes what a person reads first about an nvbandwidth report:
// a line naming the input (file) and the versions, then the devices and, per
// testcase, its status, sum, what a bidirectional testcase's numbers are
// (its DirectionNote, in brackets) and matrix. A nil Report writes "nothing
// parsed".
func (rep *Report) WriteSummary(w io.Writer, file string) error {
	if rep == nil {
		return parse.WriteNothingParsed(w, file)
	}
	return parse.WriteBuffered(w, func(w io.Writer) {
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
			if t.DirectionNote != "" {
				fmt.Fprintf(w, " [%s]", t.DirectionNote)
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
	})
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
