package overlap

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakePython stands in for python3 running bench_overlap.py: it notes
// when it started, when its gate (--start-after) let it on, and when it
// ended, writes an empty summary and one ProcessGroupNCCL line naming its
// step.
const fakePython = `#!/bin/sh
shift
out=""; gate=""
while [ $# -gt 0 ]; do
	case "$1" in --out) out=$2; shift;; --start-after) gate=$2; shift;; esac
	shift
done
name=$(basename "$out")
echo "start $name" >> "$FAKE_LOG"
if [ -n "$gate" ]; then while [ ! -e "$gate" ]; do sleep 0.01; done; fi
echo "gpu $name" >> "$FAKE_LOG"
mkdir -p "$out"
printf '{"kind":"torch-overlap","settings":{},"variants":[],"cases":[]}' > "$out/summary.json"
echo "[I ProcessGroupNCCL.cpp:1] [PG ID 0] ProcessGroupNCCL environments: STEP: $name" >&2
echo "end $name" >> "$FAKE_LOG"
`

// Under python3 the steps overlap only their start-up: each step reaches
// the GPU after the one before it ended, in Steps' order, and each keeps
// its own log lines and a command line without the gate.
func TestStepsTakeTheGPUInTurn(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "python3"), []byte(fakePython), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	logPath := filepath.Join(t.TempDir(), "log")
	t.Setenv("FAKE_LOG", logPath)
	res, err := Run(context.Background(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var gpu, ended []string
	at := map[string]int{}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		at[line] = i
		switch what, name, _ := strings.Cut(line, " "); what {
		case "gpu":
			gpu = append(gpu, name)
		case "end":
			ended = append(ended, name)
		}
	}
	t.Logf("log:\n%s", b)
	if len(gpu) != len(Steps) || len(ended) != len(Steps) {
		t.Fatalf("log:\n%s", b)
	}
	for i, st := range Steps {
		if gpu[i] != st.Name {
			t.Errorf("step %d on the GPU: %s, want %s (log:\n%s)", i, gpu[i], st.Name, b)
		}
		if i > 0 && at["gpu "+st.Name] < at["end "+Steps[i-1].Name] {
			t.Errorf("%s reached the GPU before %s ended (log:\n%s)", st.Name, Steps[i-1].Name, b)
		}
		if !strings.Contains(res.Run.Logs[st.Name], "STEP: "+st.Name) {
			t.Errorf("logs of %s: %q", st.Name, res.Run.Logs[st.Name])
		}
	}
	if cmd := strings.Join(res.Run.Command, " "); strings.Contains(cmd, "--start-after") || !strings.Contains(cmd, "TORCH_NCCL_BLOCKING_WAIT=1 python3 ") {
		t.Errorf("command %q", cmd)
	}
}
