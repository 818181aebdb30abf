package launch

import (
	"bytes"
	"strings"
	"testing"
)

func TestOverlapBenchCommand(t *testing.T) {
	for _, tc := range []struct {
		o       Options
		want    string
		wantErr string
	}{
		{Options{}, "python3 /tmp/b.py --out d", ""},
		{Options{Launcher: "torchrun", PerNode: 8}, "torchrun --nproc-per-node 8 /tmp/b.py --out d", ""},
		{Options{Launcher: "srun"}, "", "LOCAL_RANK"},
	} {
		cmd, err := OverlapBench.Command(tc.o, "/tmp/b.py", []string{"--out", "d"})
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

// The embedded script is the file beside this package, whole, and copies
// of it do not alias the embedded bytes.
func TestOverlapBenchEmbedded(t *testing.T) {
	a := OverlapBench.Source()
	if !bytes.Contains(a, []byte("def core_question(")) || !bytes.Contains(a, []byte(`"alloc_retry"`)) {
		t.Fatal("the embedded script is not bench_overlap.py")
	}
	a[0] = 'X'
	if OverlapBench.Source()[0] == 'X' {
		t.Error("OverlapBench returns the embedded bytes themselves")
	}
}
