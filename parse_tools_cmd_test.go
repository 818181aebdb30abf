package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = dispatch(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestParseToolsCLISummaries(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"nvbandwidth text", []string{"parse", "nvbandwidth", "probes/parse/nvbandwidth/testdata/text_v0.10_azure_2gpu.txt"},
			[]string{"device_to_device_memcpy_read_ce: Passed", "sum 552.26 GB/s", "N/A    276.07", "CV 0.01"}},
		{"nvbandwidth json", []string{"parse", "nvbandwidth", "probes/parse/nvbandwidth/testdata/json_v0.5_dcgm_verbose.json"},
			[]string{"json, nvbandwidth v0.5, CUDA runtime 12070, driver 565.02", "host_device_latency_sm: Passed", "waived testcases: 17"}},
		{"perftest", []string{"parse", "perftest", "probes/parse/perftest/testdata/write_bw_gbits_postlist_issue273.txt"},
			[]string{"RDMA_Write Post List BW Test", "device ib0, link Ethernet, GID index 2, MTU 4096", "0.48", "0.060", "(Gb/sec)"}},
		{"perftest latency json", []string{"parse", "perftest", "probes/parse/perftest/testdata/write_lat_unquoted_issue216.json"},
			[]string{"RDMA_Write Latency Test (json)", "2.42", "4.03"}},
		{"flight recorder directory", []string{"parse", "flight-recorder", "probes/parse/flightrec/testdata/missing_rank"},
			[]string{"rank 3, pickle dump version 2.10, NCCL 2.21.5, 10 entries",
				"rank 3 never started all_reduce #3001 of pg 0 (default_pg)", "ranks 0-2,4-7 are waiting in all_reduce #3001"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(c.args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestParseToolsCLIJSON(t *testing.T) {
	code, out, errs := runCLI("parse", "nvbandwidth", "--json", "probes/parse/nvbandwidth/testdata/text_v0.10_azure_2gpu.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var nv []struct {
		Report struct {
			Testcases []struct {
				Name   string       `json:"name"`
				Matrix [][]*float64 `json:"matrix"`
			} `json:"testcases"`
		} `json:"report"`
	}
	if err := json.Unmarshal([]byte(out), &nv); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	m := nv[0].Report.Testcases[2].Matrix
	if m[0][0] != nil || m[0][1] == nil || *m[0][1] != 276.07 {
		t.Errorf("matrix = %v", m)
	}

	code, out, errs = runCLI("parse", "perftest", "probes/parse/perftest/testdata/atomic_bw_mb_pib_issue4.txt", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var pf []struct {
		Report struct {
			Bandwidth []struct {
				Average float64 `json:"average"`
				Bps     float64 `json:"average_bytes_per_second"`
			} `json:"bandwidth"`
		} `json:"report"`
	}
	if err := json.Unmarshal([]byte(out), &pf); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if b := pf[0].Report.Bandwidth[0]; b.Average != 1.67 || b.Bps != 1.67*1048576 {
		t.Errorf("bandwidth = %+v", b)
	}

	dir := "probes/parse/flightrec/testdata/order_mismatch"
	files, _ := filepath.Glob(filepath.Join(dir, "nccl_trace_rank_*"))
	code, out, errs = runCLI(append([]string{"parse", "flight-recorder", "--json"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var fr struct {
		Dumps    []json.RawMessage `json:"dumps"`
		Analysis struct {
			Findings []struct {
				Kind  string `json:"kind"`
				Ranks []int  `json:"ranks"`
			} `json:"findings"`
		} `json:"analysis"`
	}
	if err := json.Unmarshal([]byte(out), &fr); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if len(fr.Dumps) != 4 || len(fr.Analysis.Findings) != 1 || fr.Analysis.Findings[0].Kind != "op-mismatch" || fr.Analysis.Findings[0].Ranks[0] != 2 {
		t.Errorf("flight recorder JSON = %d dumps, findings %+v", len(fr.Dumps), fr.Analysis.Findings)
	}
}

func TestParseToolsCLIErrors(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "foreign.txt")
	if err := os.WriteFile(foreign, []byte("hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "nccl_trace_rank_0")
	full, err := os.ReadFile("probes/parse/flightrec/testdata/missing_rank/nccl_trace_rank_0")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cut, full[:len(full)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		args    []string
		code    int
		stderr  string
		partial string // still printed on stdout
	}{
		{"foreign nvbandwidth", []string{"parse", "nvbandwidth", foreign}, 1, "foreign.txt: nvbandwidth: line 1: not nvbandwidth output", ""},
		{"foreign perftest", []string{"parse", "perftest", foreign}, 1, "perftest: line 1: not a perftest report", ""},
		{"truncated perftest", []string{"parse", "perftest", "probes/parse/perftest/testdata/write_bw_mb_server_issue234_cut.txt"}, 1,
			"line 26: bandwidth row has 2 fields", "device mlx5_0"},
		{"truncated dump", []string{"parse", "flight-recorder", cut}, 1, "flightrec: " + cut + ": byte ", "rank 0, pickle dump"},
		{"missing file", []string{"parse", "nvbandwidth", filepath.Join(dir, "nope")}, 1, "no such file", ""},
		{"no files", []string{"parse", "perftest"}, 2, "no input files", ""},
		{"bad flag", []string{"parse", "flight-recorder", "--jsn", cut}, 2, "flag provided but not defined", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, c.code, errs)
			}
			if !strings.Contains(errs, c.stderr) {
				t.Errorf("stderr %q lacks %q", errs, c.stderr)
			}
			if c.partial != "" && !strings.Contains(out, c.partial) {
				t.Errorf("partial result %q not printed:\n%s", c.partial, out)
			}
		})
	}
}
