package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/files"
)

func runNCCLParseCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := dispatch(append([]string{"parse"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestParseNCCLCLISummaries(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
		wantErr  string
	}{
		{
			name:     "nccl-tests table and footer",
			args:     []string{"nccl-tests", "parse/nccltests/testdata/allreduce_h100_2node_a3mega.txt"},
			wantCode: 0,
			want:     []string{"all_reduce_perf (16 ranks on 2 host(s))", "busbw = algbw x 1.875", "8 GiB  float  sum  47535.00", "avg bus bandwidth 70.74 GB/s"},
		},
		{
			name:     "nccl-tests truncated file exits 1 naming the line",
			args:     []string{"nccl-tests", "parse/nccltests/testdata/broadcast_v100_2.9_na_excerpt.txt"},
			wantCode: 1,
			want:     []string{"broadcast_perf (NCCL 2.9.6+cuda11.2, 2 ranks on 2 host(s))", "N/A", "no footer"},
			wantErr:  "line 16: truncated input",
		},
		{
			name:     "nccl-log summary",
			args:     []string{"nccl-log", "parse/nccllog/testdata/h200_torch_allreduce_2.28.9.log", "parse/nccllog/testdata/nccl1453_3node_h100_rings_algo_excerpt.log"},
			wantCode: 0,
			want:     []string{"NCCL version: 2.28.9+cuda13.0", "init rank 0/1: 0.43 s", "graph search: pattern 4 RING, 32 channels", "1 GiB    RING  SIMPLE", "network: Socket", "why: NCCL found no InfiniBand or RoCE device"},
		},
		{
			name:     "nccl-xml topology and graphs",
			args:     []string{"nccl-xml", "parse/ncclxml/testdata/h200_topo_dump.xml", "parse/ncclxml/testdata/h200_graph_dump.xml"},
			wantCode: 0,
			want:     []string{"0000:00:06.0  90", "eth0", "graph 0: pattern 4 RING, 32 channels"},
		},
		{
			name:     "missing file",
			args:     []string{"nccl-xml", "no/such/file.xml"},
			wantCode: 2,
			wantErr:  "no such file",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runNCCLParseCLI(t, tc.args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.wantCode, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if tc.wantErr != "" && !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("stderr %q lacks %q", errOut, tc.wantErr)
			}
		})
	}
}

func TestParseNCCLCLIJSON(t *testing.T) {
	files := map[string]string{
		"nccl-tests": "parse/nccltests/testdata/synthetic_json_v2_from_a3mega.json",
		"nccl-log":   "parse/nccllog/testdata/ncclt252_2node_ibext_transports_excerpt.log",
		"nccl-xml":   "parse/ncclxml/testdata/azure_ndv5_topo_file.xml",
	}
	for format, file := range files {
		t.Run(format, func(t *testing.T) {
			// Flags may follow the file.
			code, out, errOut := runNCCLParseCLI(t, format, file, "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var v []map[string]any
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if len(v) != 1 || v[0]["file"] != file {
				t.Errorf("json = %v", v)
			}
		})
	}
}

func TestParseNCCLCLIBadFlag(t *testing.T) {
	code, _, errOut := runNCCLParseCLI(t, "nccl-log", "--bogus", "x.log")
	if code != 2 || !strings.Contains(errOut, "bogus") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// A truncated XML file still prints what parsed, then fails.
func TestParseNCCLCLITruncatedXML(t *testing.T) {
	data, err := os.ReadFile("parse/ncclxml/testdata/h200_graph_dump.xml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cut.xml")
	if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runNCCLParseCLI(t, "nccl-xml", path)
	if code != 1 || !strings.Contains(out, "graph 0: pattern 4 RING") || !strings.Contains(errOut, "truncated input") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}

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
		{"nvbandwidth text", []string{"parse", "nvbandwidth", "parse/nvbandwidth/testdata/text_v0.10_azure_2gpu.txt"},
			[]string{"device_to_device_memcpy_read_ce: Passed", "sum 552.26 GB/s", "N/A    276.07", "CV 0.01"}},
		{"nvbandwidth json", []string{"parse", "nvbandwidth", "parse/nvbandwidth/testdata/json_v0.5_dcgm_verbose.json"},
			[]string{"json, nvbandwidth v0.5, CUDA runtime 12070, driver 565.02", "host_device_latency_sm: Passed", "waived testcases: 17"}},
		{"perftest", []string{"parse", "perftest", "parse/perftest/testdata/write_bw_gbits_postlist_issue273.txt"},
			[]string{"RDMA_Write Post List BW Test", "device ib0, link Ethernet, GID index 2, MTU 4096", "0.48", "0.060", "(Gb/sec)"}},
		{"perftest latency json", []string{"parse", "perftest", "parse/perftest/testdata/write_lat_unquoted_issue216.json"},
			[]string{"RDMA_Write Latency Test (json)", "2.42", "4.03"}},
		{"flight recorder directory", []string{"parse", "flight-recorder", "parse/flightrec/testdata/missing_rank"},
			[]string{"rank 3, pickle dump version 2.10, NCCL 2.21.5, 10 entries",
				"rank 3 never called all_reduce #3001 (input 4096x1024 BFloat16) of pg 0 (default_pg)", "ranks 0-2,4-7 are waiting in all_reduce #3001"}},
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
	code, out, errs := runCLI("parse", "nvbandwidth", "--json", "parse/nvbandwidth/testdata/text_v0.10_azure_2gpu.txt")
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

	code, out, errs = runCLI("parse", "perftest", "parse/perftest/testdata/atomic_bw_mb_pib_issue4.txt", "--json")
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

	dir := "parse/flightrec/testdata/order_mismatch"
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
	full, err := os.ReadFile("parse/flightrec/testdata/missing_rank/nccl_trace_rank_0")
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
		{"foreign nvbandwidth", []string{"parse", "nvbandwidth", foreign}, 2, "foreign.txt: nvbandwidth: line 1: not nvbandwidth output", ""},
		{"foreign perftest", []string{"parse", "perftest", foreign}, 2, "perftest: line 1: not a perftest report", ""},
		{"truncated perftest", []string{"parse", "perftest", "parse/perftest/testdata/write_bw_mb_server_issue234_cut.txt"}, 1,
			"line 26: bandwidth row has 2 fields", "device mlx5_0"},
		{"truncated dump", []string{"parse", "flight-recorder", cut}, 1, "flightrec: " + cut + ": byte ", "rank 0, pickle dump"},
		{"missing file", []string{"parse", "nvbandwidth", filepath.Join(dir, "nope")}, 2, "no such file", ""},
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

const (
	topoHGX       = "parse/nvidiasmi/testdata/topo/hgx-h20-8gpu-8nic.txt"
	topoTruncated = "parse/nvidiasmi/testdata/topo/synthetic-truncated-h20.txt"
	smiH100       = "parse/nvidiasmi/testdata/query/h100-sxm-8gpu-first-gpu-only.txt"
	smiOld        = "parse/nvidiasmi/testdata/query/synthetic-old-power-readings.txt"
)

func TestParseTopoCLI(t *testing.T) {
	code, out, errs := topoRunCLI("parse", "topo", topoHGX)
	if code != 0 || !strings.Contains(out, "GPU pairs by path: NV18=28") || !strings.Contains(out, "nearest NIC NIC3 (PIX)") {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
	// The matrix has no link speeds: the NIC and GPUDirect, no ceiling.
	if !strings.Contains(out, "GPU -> NIC (") || !strings.Contains(out, "  GPU5  NIC5 mlx5_6  PIX   ?        yes             -\n") {
		t.Errorf("no GPU -> NIC section:\n%s", out)
	}
	code, out, _ = topoRunCLI("parse", "topo", "--json", topoHGX)
	var one files.ParsedTopo
	if code != 0 || json.Unmarshal([]byte(out), &one) != nil || len(one.Topology.NICs) != 8 {
		t.Errorf("--json: exit %d\n%.300s", code, out)
	}
	code, out, errs = topoRunCLI("parse", "topo", topoHGX, topoTruncated, "--json")
	var many []files.ParsedTopo
	if code != 1 || json.Unmarshal([]byte(out), &many) != nil || len(many) != 2 || !strings.Contains(many[1].Error, "line 7") {
		t.Errorf("two files: exit %d %s\n%.300s", code, errs, out)
	}
	if !strings.Contains(errs, "synthetic-truncated-h20.txt: topom: line 7") {
		t.Errorf("stderr %q should name the file and line", errs)
	}
	code, out, _ = topoRunCLI("parse", "topo", topoHGX, topoTruncated)
	if code != 1 || strings.Count(out, "== ") != 2 {
		t.Errorf("two files text: exit %d\n%s", code, out)
	}
	if code, _, errs := topoRunCLI("parse", "topo", "no-such-file.txt"); code != 2 || !strings.Contains(errs, "no-such-file.txt") {
		t.Errorf("missing file: exit %d %s", code, errs)
	}
	if code, out, _ := topoRunCLI("parse", "topo", smiH100); code != 2 || out != "" {
		t.Errorf("foreign input: exit %d, printed %q", code, out)
	}
}

func TestParseSMICLI(t *testing.T) {
	code, out, errs := topoRunCLI("parse", "smi", smiOld)
	if code != 0 || !strings.Contains(out, "Tesla P40, 22919 MiB, PCIe Gen1 x16 (max Gen3 x16)") {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
	code, out, errs = topoRunCLI("parse", "smi", "--json", smiH100)
	var one files.ParsedSMI
	if code != 1 || json.Unmarshal([]byte(out), &one) != nil || one.Report.GPUs[0].PCIeGenMax != 5 || !strings.Contains(errs, "1 of 8") {
		t.Errorf("truncated: exit %d %s\n%.300s", code, errs, out)
	}
}

// Issue 12: "-" reads standard input for topo and smi as for the other
// formats; an input that is not a Flight Recorder dump prints no summary;
// a failed nccl-tests run prints no bus-bandwidth factor.
func TestParseCLIIssue12(t *testing.T) {
	topo, err := os.ReadFile("parse/nvidiasmi/testdata/topo/a100-4gpu-nv3-mlx5.txt")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		stdin    string
		wantCode int
		want     []string
		notWant  []string
	}{
		{name: "topo from stdin", args: []string{"topo", "-"}, stdin: string(topo), want: []string{"GPUs: 4", "  GPU1  NIC1 mlx5_1  NODE  ?        no "}},
		{name: "topo json from stdin", args: []string{"topo", "-", "--json"}, stdin: string(topo), want: []string{`"file": "(stdin)"`}},
		{name: "flight-recorder of a README", args: []string{"flight-recorder", "README.md"}, wantCode: 2, notWant: []string{"rank", "verdict", "Flight Recorder"}},
		{name: "failed nccl-tests run", args: []string{"nccl-tests", "parse/nccltests/testdata/allreduce_h200_mpirun_np2_failure.txt"}, wantCode: 1,
			want: []string{"no rows"}, notWant: []string{"algbw x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prev := stdin
			stdin = strings.NewReader(tc.stdin)
			defer func() { stdin = prev }()
			code, out, errs := runNCCLParseCLI(t, tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d; stderr %s", code, tc.wantCode, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(out, w) {
					t.Errorf("stdout has %q:\n%s", w, out)
				}
			}
		})
	}
}
