package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes/cli"

	"github.com/commlab/commlab/doctor"
	"github.com/commlab/commlab/probes/recorded"
)

// curveDoctor runs the curve doctor as commlab doctor does when
// --nccl-tests is its one input (args need not say it: "no file").
func curveDoctor(args []string, stdout, stderr io.Writer) int {
	return runDoctorCurve(cli.NewFlags("commlab doctor", stderr, doctor.CurveUsage...), args, stdout, stderr)
}

func TestDoctorCurveCommand(t *testing.T) {
	dir := t.TempDir()
	run, err := recorded.Load("nccl-h200x2-proto-LL")
	if err != nil {
		t.Fatal(err)
	}
	ll := filepath.Join(dir, "ll.json")
	if err := run.Save(ll); err != nil {
		t.Fatal(err)
	}
	a3 := "parse/nccltests/testdata/allreduce_h100_2node_a3mega.txt"
	autoRun, err := recorded.Load("nccl-h200x2-proto-auto")
	if err != nil {
		t.Fatal(err)
	}
	auto := filepath.Join(dir, "auto.json")
	if err := autoRun.Save(auto); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		status int
		want   []string
	}{
		{"commlab run, LL forced", []string{"--nccl-tests", ll, "--nvls=false"}, 2,
			[]string{"[fail] collective/large-plateau: large-message plateau too low: 121.7 GB/s", "next: check the path"}},
		// The public run (GCP A3 Mega, 8x 200G TCPXO) priced as 8x NDR
		// H100 nodes: costmodel's NVLSTree there is 481.5 GB/s busbw, and
		// the run's 330.6 is 69% of it; NVLS was not told and the model
		// without it explains the run (95%): cannot tell.
		{"nccl-tests text, 2 nodes", []string{"--nccl-tests", a3, "--preset", "hgx-h100"}, 1,
			[]string{"16 rank(s), 2 node(s)", "[skipped] collective/multi-node: cannot tell", "if this machine has no NVLS, 330.6 GB/s is 94%", "[warn] collective/dip: dip at 16 MiB"}},
		// Told NVLS is on: 69% of the NDR+NVLS model is a warning (below
		// 60% would fail).
		{"nccl-tests text, 2 nodes, NVLS told", []string{"--nccl-tests", a3, "--preset", "hgx-h100", "--nvls"}, 1,
			[]string{"[warn] collective/multi-node: multi-node plateau too low: 330.6 GB/s busbw, 69%"}},
		// Told the network: the A3 Mega's model.
		{"nccl-tests text, 2 nodes, --network tcpxo", []string{"--nccl-tests", a3, "--network", "tcpxo", "--nvls"}, 1,
			[]string{"network: 8x 200 Gb/s GPUDirect-TCPXO (gcp-a3-mega), from --network", "[ok] collective/multi-node: multi-node plateau at 100% of the model"}},
		// The public 2-node run against the recorded 2-GPU one as its
		// single-node reference.
		{"multi-node against single-node", []string{"--nccl-tests", a3, "--preset", "hgx-h100", "--nvls", "--single-node", auto}, 1,
			[]string{"[warn] collective/multi-node: multi-node plateau too low", "[ok] collective/multi-node: multi-node keeps 96% of the single-node busbw (model 138%)"}},
		{"no file", nil, 2, []string{"--nccl-tests FILE is required"}},
		{"missing file", []string{"--nccl-tests", filepath.Join(dir, "none")}, 2, []string{"no such file"}},
		{"not a curve", []string{"--nccl-tests", "go.mod"}, 2, []string{"no nccl-tests output found"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			status := curveDoctor(tc.args, &out, &errb)
			if status != tc.status {
				t.Errorf("status %d, want %d; stderr %s", status, tc.status, errb.String())
			}
			all := out.String() + errb.String()
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
		})
	}
}

func TestDoctorCurveJSON(t *testing.T) {
	run, err := recorded.Load("nccl-h200x2-proto-auto")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "auto.json")
	if err := run.Save(path); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if status := curveDoctor([]string{"--nccl-tests", path, "--nvls=false", "--json"}, &out, &errb); status != 0 {
		t.Fatalf("status %d: %s", status, errb.String())
	}
	var got struct {
		Verdicts []struct {
			Check, Status string
		}
		Exit int
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Verdicts) != 3 || got.Exit != 0 {
		t.Errorf("verdicts %+v exit %d", got.Verdicts, got.Exit)
	}
	for _, v := range got.Verdicts {
		if v.Status != "ok" {
			t.Errorf("healthy 2xH200: %s is %s", v.Check, v.Status)
		}
	}
	_ = os.Remove(path)
}
