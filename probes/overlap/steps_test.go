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
// ended, writes an empty summary into each step's folder (--out, or
// --out/NAME for each --step NAME) and one ProcessGroupNCCL line naming
// its process's first step.
const fakePython = `#!/bin/sh
shift
out=""; gate=""; steps=""
while [ $# -gt 0 ]; do
	case "$1" in --out) out=$2; shift;; --start-after) gate=$2; shift;; --step) steps="$steps $2"; shift;; esac
	shift
done
[ -n "$steps" ] || steps=.
first=$(echo $steps | cut -d' ' -f1)
name=$(basename "$out/$first")
echo "start $name" >> "$FAKE_LOG"
if [ -n "$gate" ]; then while [ ! -e "$gate" ]; do sleep 0.01; done; fi
echo "gpu $name" >> "$FAKE_LOG"
for s in $steps; do
	mkdir -p "$out/$s"
	printf '{"kind":"torch-overlap","settings":{},"variants":[],"cases":[]}' > "$out/$s/summary.json"
done
echo "[I ProcessGroupNCCL.cpp:1] [PG ID 0] ProcessGroupNCCL environments: STEP: $name" >&2
echo "end $name" >> "$FAKE_LOG"
`

// Under python3 the invocations overlap only their start-up: each reaches
// the GPU after the one before it ended, in Invocations' order; each step
// keeps its invocation's log lines, and the command lines hold no gate.
func TestInvocationsTakeTheGPUInTurn(t *testing.T) {
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
	if len(gpu) != len(Invocations) || len(ended) != len(Invocations) {
		t.Fatalf("log:\n%s", b)
	}
	for i, inv := range Invocations {
		first := inv.Steps[0].Name
		if gpu[i] != first {
			t.Errorf("invocation %d on the GPU: %s, want %s (log:\n%s)", i, gpu[i], first, b)
		}
		if i > 0 && at["gpu "+first] < at["end "+Invocations[i-1].Steps[0].Name] {
			t.Errorf("%s reached the GPU before %s ended (log:\n%s)", first, Invocations[i-1].Steps[0].Name, b)
		}
		for _, st := range inv.Steps {
			if !strings.Contains(res.Run.Logs[st.Name], "STEP: "+first) {
				t.Errorf("logs of %s: %q", st.Name, res.Run.Logs[st.Name])
			}
		}
	}
	if got, want := strings.Join(res.Sets(), ","), ""; got != want {
		t.Logf("sets %q", got) // the fake writes no variants
	}
	if cmd := strings.Join(res.Run.Command, " "); strings.Contains(cmd, "--start-after") || !strings.Contains(cmd, "TORCH_NCCL_BLOCKING_WAIT=1 python3 ") ||
		strings.Count(cmd, "; ") != len(Invocations)-1 {
		t.Errorf("command %q", cmd)
	}
}

// Each setting runs in a process of its own (ProcessGroupNCCL logs its
// settings only for a process's first group), and no two steps of a run
// share a folder.
func TestInvocationsKeepSettingsApart(t *testing.T) {
	seen := map[string]bool{}
	envs := map[string]bool{}
	for _, inv := range Invocations {
		env := strings.Join(inv.Env, " ")
		if envs[env] {
			t.Errorf("two invocations under %q: they could share a process", env)
		}
		envs[env] = true
		for _, st := range inv.Steps {
			if seen[st.Name] {
				t.Errorf("step %s twice", st.Name)
			}
			seen[st.Name] = true
		}
	}
	for _, s := range Settings {
		if !seen["cq-"+s.Name] {
			t.Errorf("no step for setting %s", s.Name)
		}
	}
}
