package launch

import (
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
