package doctor

import (
	"os"
	"path/filepath"
	"testing"
)

// childRun puts --save before the tool's arguments.
func TestChildRunSaveBeforeToolArgs(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "fake.sh")
	// A stand-in for the commlab binary: it writes its arguments where --save points.
	body := "#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ \"$1\" = --save ]; then out=$2; fi; echo \"$1\" >> " + filepath.Join(dir, "args") + "; shift; done\n" +
		"printf '{\"kind\":\"nccl-tests\",\"date\":\"2026-12-01T00:00:00Z\",\"gpu_count\":1,\"samples\":[]}' > \"$out\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := childRun(script, []string{"probe", "nccl-tests", "--", "-b", "8"}, filepath.Join(dir, "run.json")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "args"))
	want := "probe\nnccl-tests\n--save\n" + filepath.Join(dir, "run.json") + "\n--\n-b\n8\n"
	if string(got) != want {
		t.Errorf("arguments:\n%s\nwant\n%s", got, want)
	}
}
