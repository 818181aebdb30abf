package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --from-logs rebuilds a run from rank logs and a provenance file, as the
// recording script leaves them.
func TestProbeCustomAllReduceFromLogs(t *testing.T) {
	dir := t.TempDir()
	rank := func(r int, usec string) string {
		return "info rank " + string(rune('0'+r)) + " nranks 2 pid 1\ninfo device 0 00000000:19:00.0 NVIDIA H200\n" +
			"info cuda runtime 13000 driver 13000\ninfo launch blocks 36 threads 512 timeout_ms 15000 iters 5 warmup 1\n" +
			"check oneshot 131072 ok\nresult oneshot 131072 5 " + usec + "\ndone\n"
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	r0, r1 := write("r0.log", rank(0, "100.0")), write("r1.log", rank(1, "120.0"))
	prov := write("provenance.txt", "date_utc: 2026-12-01T22:30:00Z\n--- nvidia-smi --query-gpu=name,driver_version --format=csv\nname, driver_version\nNVIDIA H200, 580.159.04\n")
	save := filepath.Join(dir, "run.json")
	var out, errb bytes.Buffer
	code := dispatch([]string{"probe", "custom-allreduce", "--from-logs", r0 + "," + r1, "--provenance", prov, "--save", save}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"driver 580.159.04", "placement same-gpu", "oneshot", "120.00", "ok"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	b, err := os.ReadFile(save)
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Kind    string `json:"kind"`
		Samples []struct {
			MedianUS float64 `json:"median_us"`
			Wrong    int     `json:"wrong"`
		} `json:"samples"`
	}
	if err := json.Unmarshal(b, &run); err != nil || run.Kind != "custom-allreduce" || len(run.Samples) != 1 || run.Samples[0].MedianUS != 120 || run.Samples[0].Wrong != 0 {
		t.Errorf("%v %+v", err, run)
	}
	if code := dispatch([]string{"probe", "custom-allreduce", "--algos", "fourshot"}, &out, &errb); code != 2 {
		t.Errorf("bad algorithm: exit %d", code)
	}
}
