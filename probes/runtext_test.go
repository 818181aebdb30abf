package probes

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestWriteRunText(t *testing.T) {
	for _, tt := range []struct {
		name string
		run  *Run
		want []string // lines after the provenance
	}{
		{name: "L2 and notes", run: &Run{Kind: "bandwidth", Date: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
			Settings: map[string]string{SettingL2Bytes: "62914560"}, Notes: []string{"one note"}},
			want: []string{"# L2 cache per GPU: 60 MiB (copies whose buffers fit may not reach HBM)", "# note: one note", "TABLE"}},
		{name: "neither", run: &Run{Kind: "latency", Date: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}, want: []string{"TABLE"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			WriteRunText(&b, tt.run, func(w io.Writer, _ *Run) { io.WriteString(w, "TABLE\n") })
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			if lines[0] != "# "+tt.run.Provenance() || strings.Join(lines[1:], "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s", b.String())
			}
		})
	}
}

func TestWriteComparison(t *testing.T) {
	var none strings.Builder
	WriteComparison(&none, nil)
	if none.String() != "# comparison: no samples in common\n" {
		t.Errorf("no samples: %q", none.String())
	}
	var b strings.Builder
	WriteComparison(&b, []Comparison{{Op: "all_reduce", Bytes: 8, InPlace: true, OursUS: 10, RefUS: 9, Ratio: 1.1111, Criteria: "±15%", Pass: true},
		{Op: "all_reduce", Bytes: 16, OursUS: 20, RefUS: 10, Ratio: 2, Criteria: "±15%"}})
	for _, want := range []string{" in ", " out ", " ok\n", " FAIL\n", "# 1 of 2 within criteria\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}
