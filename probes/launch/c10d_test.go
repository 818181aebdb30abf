package launch

import (
	"bytes"
	"strings"
	"testing"
)

// The c10d experiments start their own ranks: python3 runs them, and a
// launcher that would start several copies is refused.
func TestC10dLabCommand(t *testing.T) {
	for _, tc := range []struct {
		o       Options
		want    string
		wantErr string
	}{
		{Options{}, "python3 /tmp/c.py --out d", ""},
		{Options{Launcher: "torchrun", PerNode: 2}, "", "starts its own ranks"},
		{Options{Launcher: "mpirun"}, "", "starts its own ranks"},
	} {
		cmd, err := C10dLab.Command(tc.o, "/tmp/c.py", []string{"--out", "d"})
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%+v: err %v, want %q", tc.o, err, tc.wantErr)
			}
			continue
		}
		if err != nil || ShellJoin(cmd) != tc.want {
			t.Errorf("%+v: %q, %v; want %q", tc.o, ShellJoin(cmd), err, tc.want)
		}
	}
}

func TestC10dLabEmbedded(t *testing.T) {
	a := C10dLab.Source()
	for _, part := range []string{"def rank_store(", "def rank_coalesce(", "def rank_timeout(", "def rank_compile("} {
		if !bytes.Contains(a, []byte(part)) {
			t.Fatalf("the embedded script has no %s", part)
		}
	}
	a[0] = 'X'
	if C10dLab.Source()[0] == 'X' {
		t.Error("C10dLab returns the embedded bytes themselves")
	}
}
