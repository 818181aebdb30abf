package torchtrace

import (
	"bytes"
	"strings"
	"testing"

	"github.com/commlab/commlab/internal/golden"
)

// The traces recorded on the H200 (testdata/h200, see SOURCES.md), each
// rendered as its report inside the benchmark's steps (or over the whole
// trace for the core-question cases) and its summary text.
func TestGoldenH200(t *testing.T) {
	inputs := golden.Inputs(t, 4, "testdata/h200/*.json.gz")
	golden.Each(t, inputs, func(in string) string { return strings.TrimSuffix(in, ".json.gz") + ".golden" },
		func(t *testing.T, data []byte) []byte {
			tr, err := Parse(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			o := Options{Device: -1}
			if len(tr.Ranges("bench:step")) > 0 {
				o.Within = "bench:step"
			}
			rep, err := tr.Report(o)
			if err != nil {
				t.Fatal(err)
			}
			var sb strings.Builder
			if err := rep.WriteSummary(&sb, "trace"); err != nil {
				t.Fatal(err)
			}
			out := golden.JSON(t, rep, " ")
			return append(out, sb.String()...)
		})
}
