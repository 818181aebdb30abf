package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
			args:     []string{"nccl-tests", "probes/parse/nccltests/testdata/allreduce_h100_2node_a3mega.txt"},
			wantCode: 0,
			want:     []string{"all_reduce_perf (16 ranks on 2 host(s))", "busbw = algbw x 1.875", "8 GiB  float  sum  47535.00", "avg bus bandwidth 70.74 GB/s"},
		},
		{
			name:     "nccl-tests truncated file exits 1 naming the line",
			args:     []string{"nccl-tests", "probes/parse/nccltests/testdata/broadcast_v100_2.9_na_excerpt.txt"},
			wantCode: 1,
			want:     []string{"broadcast_perf (NCCL 2.9.6+cuda11.2, 2 ranks on 2 host(s))", "N/A", "no footer"},
			wantErr:  "line 16: truncated input",
		},
		{
			name:     "nccl-log summary",
			args:     []string{"nccl-log", "probes/parse/nccllog/testdata/h200_torch_allreduce_2.28.9.log", "probes/parse/nccllog/testdata/nccl1453_3node_h100_rings_algo_excerpt.log"},
			wantCode: 0,
			want:     []string{"NCCL version: 2.28.9+cuda13.0", "init rank 0/1: 0.43 s", "graph search: pattern 4 RING, 32 channels", "1 GiB    RING  SIMPLE"},
		},
		{
			name:     "nccl-xml topology and graphs",
			args:     []string{"nccl-xml", "probes/parse/ncclxml/testdata/h200_topo_dump.xml", "probes/parse/ncclxml/testdata/h200_graph_dump.xml"},
			wantCode: 0,
			want:     []string{"0000:00:06.0  90", "eth0", "graph 0: pattern 4 RING, 32 channels"},
		},
		{
			name:     "missing file",
			args:     []string{"nccl-xml", "no/such/file.xml"},
			wantCode: 1,
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
		"nccl-tests": "probes/parse/nccltests/testdata/synthetic_json_v2_from_a3mega.json",
		"nccl-log":   "probes/parse/nccllog/testdata/ncclt252_2node_ibext_transports_excerpt.log",
		"nccl-xml":   "probes/parse/ncclxml/testdata/azure_ndv5_topo_file.xml",
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
	data, err := os.ReadFile("probes/parse/ncclxml/testdata/h200_graph_dump.xml")
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
