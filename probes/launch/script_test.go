package launch

import (
	"bytes"
	"strings"
	"testing"
)

func TestScriptCommand(t *testing.T) {
	torchrunOnly := Script{Name: "bench.py", TorchrunOnly: "torchrun's LOCAL_RANK"}
	ownRanks := Script{Name: "lab.py"}
	for _, tc := range []struct {
		s        Script
		launcher string
		want     string // in the command line, or in the error when wantErr
		wantErr  bool
	}{
		{torchrunOnly, "", "python3", false},
		{torchrunOnly, "none", "python3", false},
		{torchrunOnly, "torchrun", "torchrun", false},
		{torchrunOnly, "mpirun", "reads torchrun's LOCAL_RANK", true},
		{ownRanks, "", "python3", false},
		{ownRanks, "torchrun", "starts its own ranks", true},
	} {
		cmd, err := tc.s.Command(Options{Launcher: tc.launcher}, "/tmp/x.py", []string{"--out", "o"})
		got := strings.Join(cmd, " ")
		if err != nil {
			got = err.Error()
		}
		if (err != nil) != tc.wantErr || !strings.Contains(got, tc.want) {
			t.Errorf("%s under %q: %q (err %v), want %q", tc.s.Name, tc.launcher, got, err, tc.want)
		}
	}
}

// The embedded scripts as the verbs run them: the overlap benchmark under
// python3 or torchrun (it reads LOCAL_RANK), the c10d lab under python3 only
// (it starts its own ranks).
func TestEmbeddedScriptCommands(t *testing.T) {
	for _, tc := range []struct {
		s       Script
		o       Options
		want    string
		wantErr string
	}{
		{OverlapBench, Options{}, "python3 /tmp/s.py --out d", ""},
		{OverlapBench, Options{Launcher: "torchrun", PerNode: 8}, "torchrun --nproc-per-node 8 /tmp/s.py --out d", ""},
		{OverlapBench, Options{Launcher: "srun"}, "", "LOCAL_RANK"},
		{C10dLab, Options{}, "python3 /tmp/s.py --out d", ""},
		{C10dLab, Options{Launcher: "torchrun", PerNode: 2}, "", "starts its own ranks"},
		{C10dLab, Options{Launcher: "mpirun"}, "", "starts its own ranks"},
	} {
		cmd, err := tc.s.Command(tc.o, "/tmp/s.py", []string{"--out", "d"})
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s %+v: err %v, want %q", tc.s.Name, tc.o, err, tc.wantErr)
			}
			continue
		}
		if err != nil || ShellJoin(cmd) != tc.want {
			t.Errorf("%s %+v: %q, %v; want %q", tc.s.Name, tc.o, ShellJoin(cmd), err, tc.want)
		}
	}
}

// Each embedded script is its file beside this package, whole (it defines
// what its verb reads), and Source returns a copy, never the embedded bytes.
func TestEmbeddedScriptSources(t *testing.T) {
	for _, tc := range []struct {
		s     Script
		holds []string
	}{
		{OverlapBench, []string{"def core_question(", `"alloc_retry"`}},
		{C10dLab, []string{"def rank_store(", "def rank_coalesce(", "def rank_timeout(", "def rank_compile("}},
	} {
		a := tc.s.Source()
		for _, part := range tc.holds {
			if !bytes.Contains(a, []byte(part)) {
				t.Fatalf("%s: the embedded script has no %s", tc.s.Name, part)
			}
		}
		a[0] = 'X'
		if tc.s.Source()[0] == 'X' {
			t.Errorf("%s: Source returns the embedded bytes themselves", tc.s.Name)
		}
	}
}
