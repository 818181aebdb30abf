package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// The core question's all_reduce: Llama 3.1 70B, batch 8, bf16, TP 8.
func TestModelCLITPAllReduce(t *testing.T) {
	code, out, errs := runModelCLI("tp-allreduce", "--model", "llama-3-70b", "--batch", "8", "--tp", "8", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Bytes             float64            `json:"bytes"`
		PerStepBytes      float64            `json:"per_step_bytes"`
		PerTokenBytes     float64            `json:"per_token_bytes"`
		AllReducesPerStep int                `json:"allreduces_per_step"`
		Backend           string             `json:"backend"`
		Algorithm         string             `json:"algorithm"`
		TimeS             map[string]float64 `json:"time_s"`
		CustomMaxBytes    float64            `json:"custom_max_bytes"`
		Sources           []string           `json:"sources"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.Bytes != 131072 || r.AllReducesPerStep != 160 || r.PerStepBytes != 131072*160 || r.PerTokenBytes != 131072*20 {
		t.Errorf("account %+v", r)
	}
	if r.Backend != "custom" || r.Algorithm != "oneshot" || r.CustomMaxBytes != 256*1024 {
		t.Errorf("backend %s/%s cap %v", r.Backend, r.Algorithm, r.CustomMaxBytes)
	}
	// one-shot: 3.68 us + 2 x 0.6 us + 7 x 128 KiB / 390.6 GB/s.
	if want := 3.68e-6 + 1.2e-6 + 7*131072/390.6e9; math.Abs(r.TimeS["oneshot"]-want) > 1e-12 {
		t.Errorf("one-shot %v, want %v", r.TimeS["oneshot"], want)
	}
	// two-shot: the same two barriers plus its second phase, 2.078 us, and 2 x 7/8 of 128 KiB.
	if want := 3.68e-6 + 1.2e-6 + 2.078e-6 + 2*7*131072/(8*390.6e9); math.Abs(r.TimeS["twoshot"]-want) > 1e-12 {
		t.Errorf("two-shot %v, want %v", r.TimeS["twoshot"], want)
	}
	if r.TimeS["nccl"] <= 0 || len(r.Sources) < 3 {
		t.Errorf("times %v sources %v", r.TimeS, r.Sources)
	}
	// Without multicast the cap is 8 MiB and 1 MiB goes two-shot.
	code, out, _ = runModelCLI("tp-allreduce", "--hidden", "8192", "--batch", "64", "--nvls=false")
	if code != 0 || !strings.Contains(out, "vLLM would take: custom (twoshot)") || !strings.Contains(out, "1 MiB") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	for _, bad := range [][]string{{"tp-allreduce"}, {"tp-allreduce", "--model", "nope"}, {"tp-allreduce", "--hidden", "8", "--dtype", "int3"}, {"tp-allreduce", "--hidden", "8", "--flag", "fast"}} {
		if code, _, _ := runModelCLI(bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

func TestModelCLIKV(t *testing.T) {
	code, out, errs := runModelCLI("kv", "--model", "llama-3.1-70b", "--tokens", "4096", "--bw", "50GB/s", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		BytesPerToken float64 `json:"bytes_per_token"`
		Bytes         float64 `json:"bytes"`
		TimeS         float64 `json:"time_s"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.BytesPerToken != 327680 || r.Bytes != 327680*4096 || math.Abs(r.TimeS-327680*4096/50e9) > 1e-12 {
		t.Errorf("%+v", r)
	}
	code, out, _ = runModelCLI("kv", "--layers", "32", "--kv-heads", "8", "--head-dim", "128", "--tokens", "1000")
	if code != 0 || !strings.Contains(out, "128 KiB per token") || !strings.Contains(out, "pcie5x16") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if code, _, _ := runModelCLI("kv", "--tokens", "10"); code != 2 {
		t.Errorf("no shape: exit %d, want 2", code)
	}
}
