package doctor

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/child"
	"github.com/commlab/commlab/probes/launch"
)

// childRun runs the request in a child of the binary named and saves the
// run it returns, its command the one a person would type.
func TestChildRunSavesTheRequestsRun(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "fake.sh")
	// A stand-in for the commlab binary: it checks the hidden verb and
	// writes a run where the request on stdin says.
	body := "#!/bin/sh\n[ \"$1\" = " + child.Verb + " ] || exit 3\nout=$(sed 's/.*\"result\":\"\\([^\"]*\\)\".*/\\1/')\n" +
		"printf '{\"kind\":\"nccl-tests\",\"date\":\"2026-12-01T00:00:00Z\",\"gpu_count\":1,\"samples\":[]}' > \"$out\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	req := child.Request{Probe: child.NCCLTests, Tool: launch.Tool{Program: "all_reduce_perf", Args: []string{"-b", "8"}}}
	path := filepath.Join(dir, "run.json")
	if _, err := childRun(script, req, path); err != nil {
		t.Fatal(err)
	}
	run, err := probes.LoadRun(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"commlab", "probe", "nccl-tests", "--", "-b", "8"}; run.Kind != "nccl-tests" || !slices.Equal(run.Command, want) {
		t.Errorf("saved run: kind %q, command %q; want nccl-tests, %q", run.Kind, run.Command, want)
	}
}
