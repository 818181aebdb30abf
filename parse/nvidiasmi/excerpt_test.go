package nvidiasmi_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/nvidiasmi"
)

func TestParseTopoMatrixExcerpt(t *testing.T) {
	const header = "\tGPU0\tGPU1\tGPU2\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
	for _, tc := range []struct {
		name, text string
		wantErr    bool
		wantNote   string // "" when no excerpt note is expected
		path       [2]string
		wantPath   string
	}{
		{name: "two of four rows", text: header +
			"GPU0\t X \tNV18\tSYS\tPIX\t0-47\t0\t\tN/A\n" +
			"GPU1\tNV18\t X \tSYS\tNODE\t0-47\t0\t\tN/A\n",
			wantNote: "excerpt: 2 of 4 rows; left out: GPU2, NIC0", path: [2]string{"GPU1", "NIC0"}, wantPath: "NODE"},
		{name: "whole matrix", text: header +
			"GPU0\t X \tNV18\tSYS\tPIX\t0-47\t0\t\tN/A\n" +
			"GPU1\tNV18\t X \tSYS\tNODE\t0-47\t0\t\tN/A\n" +
			"GPU2\tSYS\tSYS\t X \tSYS\t48-95\t1\t\tN/A\n" +
			"NIC0\tPIX\tNODE\tSYS\t X \n",
			path: [2]string{"GPU2", "GPU0"}, wantPath: "SYS"},
		{name: "a damaged row is still an error", text: header +
			"GPU0\t X \tNV18\tQQQ\tPIX\t0-47\t0\t\tN/A\n", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := nvidiasmi.ParseTopoMatrixExcerpt(tc.text)
			if tc.wantErr {
				if err == nil || errors.Is(err, nvidiasmi.ErrRowsMissing) {
					t.Fatalf("err = %v, want a damage error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			notes := strings.Join(m.Notes, "; ")
			if tc.wantNote != "" && !strings.Contains(notes, tc.wantNote) || tc.wantNote == "" && strings.Contains(notes, "excerpt") {
				t.Errorf("notes %q, want %q", notes, tc.wantNote)
			}
			if got, _ := m.Cell(tc.path[0], tc.path[1]); got != tc.wantPath {
				t.Errorf("%s to %s: %q, want %q", tc.path[0], tc.path[1], got, tc.wantPath)
			}
		})
	}
	// ParseTopoMatrix itself still calls the short matrix an error, one that says why.
	if _, err := nvidiasmi.ParseTopoMatrixString(header + "GPU0\t X \tNV18\tSYS\tPIX\t0-47\t0\t\tN/A\n"); !errors.Is(err, nvidiasmi.ErrRowsMissing) {
		t.Errorf("ParseTopoMatrix on a short matrix: %v, want ErrRowsMissing", err)
	}
}
