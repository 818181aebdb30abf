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
	if len(lines) != len(Steps) || !strings.Contains(lines[0], "--out DIR/variants --what variants") ||
		!strings.HasPrefix(lines[3], "TORCH_CPP_LOG_LEVEL=INFO TORCH_NCCL_BLOCKING_WAIT=1 ") {
		t.Errorf("the recording's steps:\n%s", out.String())
	}
	out.Reset()
	if err := (Config{What: "cq", Args: []string{"--bytes", "1M"}}).WriteCommands(&out); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); strings.Count(got, "\n") != 0 || !strings.HasSuffix(got, "--out DIR --what cq --bytes 1M") {
		t.Errorf("one invocation: %q", got)
	}
}
