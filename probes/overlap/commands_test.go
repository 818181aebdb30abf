package overlap

import (
	"bytes"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes/launch"
)

func TestWriteCommands(t *testing.T) {
	var out bytes.Buffer
	if err := (Config{Launch: launch.Options{Launcher: "none"}}).WriteCommands(&out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(Invocations) ||
		!strings.Contains(lines[0], "--out DIR --step variants --what variants --step variants-allreduce-avg --what variants --coll all_reduce --step cq-default --what cq") ||
		!strings.HasPrefix(lines[1], "TORCH_CPP_LOG_LEVEL=INFO TORCH_NCCL_BLOCKING_WAIT=1 ") || !strings.Contains(lines[1], "--out DIR --step cq-blocking-wait --what cq --cases") {
		t.Errorf("the recording's steps:\n%s", out.String())
	}
	out.Reset()
	// The caller's flags follow each step's, so that they win.
	if err := (Config{Args: []string{"--gemm", "1024"}}).WriteCommands(&out); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(out.String(), "\n"); strings.Count(first, "--gemm 1024") != 3 || !strings.Contains(first, "--what cq --gemm 1024") {
		t.Errorf("the caller's flags: %q", first)
	}
	out.Reset()
	if err := (Config{What: "cq", Args: []string{"--bytes", "1M"}}).WriteCommands(&out); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); strings.Count(got, "\n") != 0 || !strings.HasSuffix(got, "--out DIR --what cq --bytes 1M") {
		t.Errorf("one invocation: %q", got)
	}
}
