package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseTorchTraceCLI(t *testing.T) {
	in := "parse/torchtrace/testdata/handmade-step.json"
	code, out, errs := runCLI("parse", "torch-trace", in, "--within", "bench:step")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"4 GPU activities", "stream 20   comm", "overlap_fraction 0.500", "idle gaps: 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI("parse", "torch-trace", "--json", in)
	var got []struct {
		File   string `json:"file"`
		Report struct {
			Analysis struct {
				OverlapFraction float64 `json:"overlap_fraction"`
			} `json:"analysis"`
		} `json:"report"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || len(got) != 1 || got[0].Report.Analysis.OverlapFraction <= 0 {
		t.Errorf("--json: exit %d, %s", code, out)
	}
	if code, _, errs := runCLI("parse", "torch-trace", "README.md"); code != 2 || !strings.Contains(errs, "torchtrace: not a JSON trace") {
		t.Errorf("README: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI("parse", "torch-trace", in, "--within", "nope"); code == 0 || !strings.Contains(errs, `no range named "nope"`) {
		t.Errorf("--within nope: exit %d, %s", code, errs)
	}
}

func TestProbeOverlapCLI(t *testing.T) {
	code, out, errs := runCLI("probe", "overlap", "--dry-run", "--what", "variants,cq", "--", "--bytes", "1048576")
	if code != 0 || strings.TrimSpace(out) != "python3 bench_overlap.py --out DIR --what variants,cq --bytes 1048576" {
		t.Errorf("dry run: exit %d, %q %s", code, out, errs)
	}
	code, out, _ = runCLI("probe", "overlap", "--dry-run")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 3 ||
		lines[1] != "TORCH_CPP_LOG_LEVEL=INFO TORCH_NCCL_BLOCKING_WAIT=1 python3 bench_overlap.py --out DIR --step cq-blocking-wait --what cq --cases all_gather,modify_before_wait" {
		t.Errorf("the recording's steps: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI("probe", "overlap", "--launcher", "torchrun", "--per-node", "2", "--dry-run")
	if code != 0 || !strings.HasPrefix(out, "TORCH_CPP_LOG_LEVEL=INFO torchrun --nproc-per-node 2 bench_overlap.py --out DIR --step variants") {
		t.Errorf("torchrun dry run: exit %d, %q", code, out)
	}
	if code, _, errs := runCLI("probe", "overlap", "--launcher", "mpirun", "--dry-run"); code != 2 || !strings.Contains(errs, "LOCAL_RANK") {
		t.Errorf("mpirun: exit %d, %s", code, errs)
	}
	code, out, _ = runCLI("probe", "overlap", "--script")
	if code != 0 || !strings.Contains(out, "def core_question(") {
		t.Errorf("--script: exit %d", code)
	}
	save := filepath.Join(t.TempDir(), "run.json")
	code, out, errs = runCLI("probe", "overlap", "--load", "probes/overlap/testdata/handmade", "--save", save)
	if !strings.Contains(out, "case all_gather [default]") || code != 1 || !strings.Contains(errs, "cq broken") {
		// the hand-written run records one failed case: shown, and exit 1
		t.Errorf("--load: exit %d\n%s\n%s", code, out, errs)
	}
	if b, err := os.ReadFile(save); err != nil || !strings.Contains(string(b), `"step:overlap"`) {
		t.Errorf("--save: %v", err)
	}
}
