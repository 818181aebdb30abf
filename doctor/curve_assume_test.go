package doctor

import (
	"os"
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/nccltests"
)

// The public 2-node 16x H100 run of parse/nccltests/testdata (from
// lessizzmore/create-a3mega-ztan-fork: a GCP A3 Mega, GPUDirect-TCPXO;
// SOURCES.md there): read against hgx-h100's NDR and NVLS it is 69%;
// what the model assumed decides the verdict.
func TestCurveAssumptions(t *testing.T) {
	f, err := os.Open("../parse/nccltests/testdata/allreduce_h100_2node_a3mega.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := nccltests.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	curve, err := CurveFromNCCLTests(&res.Runs[0])
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		setup CurveSetup
		want  Status
		says  []string
	}{
		{"nothing told: cannot tell", CurveSetup{}, Skipped,
			[]string{"cannot tell: 330.6 GB/s is 69% of the model", "8x 200 Gb/s GPUDirect-TCPXO (gcp-a3-mega), 330.6 GB/s is 100%", "if this machine has no NVLS, 330.6 GB/s is 94%", "assumed: the network of 8x 400 Gb/s InfiniBand (hgx-h100)", "assumed: NVLS on"}},
		{"--network tcpxo", CurveSetup{Network: "tcpxo", NetworkFrom: "--network"}, OK,
			[]string{"multi-node plateau at 100% of the model", "network: 8x 200 Gb/s GPUDirect-TCPXO (gcp-a3-mega), from --network"}},
		{"--preset hgx-h100 --nvls: told, so low", CurveSetup{Preset: "hgx-h100", NVLSFrom: "--nvls"}, Warn,
			[]string{"multi-node plateau too low: 330.6 GB/s busbw, 69%", "the preset's (--preset)", "NVLS on, from --nvls"}},
		{"NVLS off told, network assumed", CurveSetup{NVLSOff: true, NVLSFrom: "--nvls"}, OK,
			[]string{"NVLS off, from --nvls"}},
		{"RoCE from the log, no such preset", CurveSetup{Network: "roce", NetworkFrom: "NCCL's log: NET/IB device mlx5_1:1/RoCE"}, Skipped,
			[]string{"which no preset of these GPUs has"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := JudgeCurve(curve, c.setup, DefaultCurveOptions())
			if err != nil {
				t.Fatal(err)
			}
			v := rep.Verdicts[0]
			if v.Status != c.want {
				t.Errorf("%v, want %v\n%s", v.Status, c.want, rep.Text())
			}
			for _, s := range c.says {
				if !strings.Contains(rep.Text(), s) {
					t.Errorf("report lacks %q:\n%s", s, rep.Text())
				}
			}
		})
	}
	if _, err := JudgeCurve(curve, CurveSetup{Network: "roce", NetworkFrom: "--network"}, DefaultCurveOptions()); err == nil || !strings.Contains(err.Error(), "--network roce") {
		t.Errorf("--network roce on hgx-h100: err %v", err)
	}
}

// NetworkFromLog reads the NET/IB device line (NVIDIA/nccl#380, NCCL
// 2.7.8) and the socket network (NVIDIA/nccl#857, NCCL 2.10.3).
func TestNetworkFromLog(t *testing.T) {
	roce := "spark01:2683:2780 [0] NCCL INFO NET/IB : Using [0]mlx5_1:1/RoCE ; OOB ens192f1:10.150.178.134<0>\nspark01:2683:2780 [0] NCCL INFO Using network IB\n"
	if fam, _ := NetworkFromLog(mustLog(t, roce)); fam != "roce" {
		t.Errorf("RoCE log: %q", fam)
	}
	if fam, _ := NetworkFromLog(mustLog(t, logEth0)); fam != "tcp" {
		t.Errorf("socket log: %q", fam)
	}
}
