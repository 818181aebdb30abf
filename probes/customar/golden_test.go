package customar

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/internal/golden"
)

// recordedLogs reads the H200 recordings in testdata/h200.
func recordedLogs(t testing.TB, names ...string) []string {
	t.Helper()
	var out []string
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", "h200", n))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// TestRecordedGolden rebuilds the runs of the H200 recordings and holds
// them against testdata/h200/*.golden (go test -update rewrites them).
func TestRecordedGolden(t *testing.T) {
	prov := recordedLogs(t, "provenance.txt")[0]
	for name, logs := range map[string][]string{
		"ws1.golden": {"ws1-rank0.log"},
		"ws2.golden": {"ws2-rank0.log", "ws2-rank1.log"},
	} {
		run, err := FromLogs(recordedLogs(t, logs...))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ReadProvenance(prov).Apply(run)
		if run.Date != time.Date(2026, 12, 1, 21, 42, 11, 0, time.UTC) || run.Driver != "580.159.04" {
			t.Errorf("%s: provenance %v %q", name, run.Date, run.Driver)
		}
		for _, s := range run.Samples {
			if s.Wrong != 0 {
				t.Errorf("%s: %s %d B: %d ranks wrong", name, s.Label, s.Bytes, s.Wrong)
			}
		}
		if len(run.Samples) != 42 {
			t.Errorf("%s: %d samples, want 21 sizes x 2 algorithms", name, len(run.Samples))
		}
		run.Logs = nil // the inputs themselves
		run.Settings["source_sha256"] = "(the source's hash)"
		run.Tool = "commlab customar (the source's hash)"
		golden.Check(t, filepath.Join("testdata", "h200", name), golden.JSON(t, run, "  "))
	}
}

// FuzzParse holds that Parse never panics and that what it accepts has
// sane results, seeded with the recorded logs.
func FuzzParse(f *testing.F) {
	for _, l := range recordedLogs(f, "ws1-rank0.log", "ws2-rank0.log", "ws2-rank1.log") {
		f.Add(l)
		lines := strings.Split(l, "\n")
		f.Add(strings.Join(lines[:len(lines)/2], "\n"))
	}
	f.Add("check oneshot 8 bad 0 -nan 3\nresult twoshot 8 1 0\n")
	f.Fuzz(func(t *testing.T, text string) {
		o, err := Parse(text)
		if err != nil {
			return
		}
		for _, r := range o.Results {
			if r.Bytes <= 0 || r.Iters < 1 || r.USec < 0 {
				t.Errorf("accepted result %+v", r)
			}
		}
		for _, c := range o.Checks {
			if c.Bytes <= 0 || (!c.OK && c.Index < 0) {
				t.Errorf("accepted check %+v", c)
			}
		}
	})
}
