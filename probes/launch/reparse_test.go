package launch

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/probes"
)

func TestReparse(t *testing.T) {
	dir := t.TempDir()
	save := func(name string, r *probes.Run) string {
		p := filepath.Join(dir, name)
		if err := r.Save(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	date := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	kept := save("kept.json", &probes.Run{Kind: "nccl-tests", Date: date, Logs: map[string]string{"output": "3 lines"},
		Notes: []string{"parse: old failure", "a note"}, Samples: []probes.Sample{{Op: "stale"}}})
	noOutput := save("bare.json", &probes.Run{Kind: "nccl-tests", Date: date})
	count := func(out string, run *probes.Run) (any, error) {
		run.Samples = append(run.Samples, probes.Sample{Op: out})
		if out == "" {
			return nil, errors.New("empty")
		}
		return len(out), nil
	}
	for _, tt := range []struct {
		name, path, kind, wantLoad string
	}{
		{name: "parsed again", path: kept, kind: "nccl-tests"},
		{name: "another kind", path: kept, kind: "nvbandwidth", wantLoad: `is a "nccl-tests" run without the tool's output`},
		{name: "no output kept", path: noOutput, kind: "nccl-tests", wantLoad: "nothing to parse again"},
		{name: "missing", path: filepath.Join(dir, "none.json"), kind: "nccl-tests", wantLoad: "none.json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run, parsed, lerr, err := Reparse(tt.path, tt.kind, count)
			if tt.wantLoad != "" {
				if lerr == nil || !strings.Contains(lerr.Error(), tt.wantLoad) || run != nil {
					t.Errorf("load error %v, want %q", lerr, tt.wantLoad)
				}
				return
			}
			if lerr != nil || err != nil || parsed != 7 {
				t.Fatalf("%v %v, parsed %v", lerr, err, parsed)
			}
			if len(run.Samples) != 1 || run.Samples[0].Op != "3 lines" || strings.Join(run.Notes, "|") != "a note" {
				t.Errorf("samples %v, notes %q: want the new sample and the old parse note dropped", run.Samples, run.Notes)
			}
		})
	}
	run := &probes.Run{}
	if _, err := ParseInto(count, "", run); err == nil || strings.Join(run.Notes, "|") != "parse: empty" {
		t.Errorf("a failed parse is noted: %v, %q", err, run.Notes)
	}
}
