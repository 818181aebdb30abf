package doctor

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/flightrec"
	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/published"
)

func hgx(t *testing.T) *probes.Topology {
	t.Helper()
	topo, err := published.HGXH200().Topology(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

func find(t *testing.T, vs []Verdict, check string) Verdict {
	t.Helper()
	for _, v := range vs {
		if v.Check == check {
			return v
		}
	}
	t.Fatalf("no %s verdict in %v", check, vs)
	return Verdict{}
}

func TestTopologyFaults(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*probes.Topology, *probes.PCIFacts)
		check string
		want  Status
		words string
	}{
		{"narrow GPU link", func(tp *probes.Topology, _ *probes.PCIFacts) { tp.GPUs[3].PCIe.WidthCurrent = 8 }, "pcie-link", Fail, "GPU3 x8 of x16"},
		{"idle GPU gen", func(tp *probes.Topology, _ *probes.PCIFacts) { tp.GPUs[0].PCIe.GenCurrent = 1 }, "pcie-link", OK, "idle"},
		{"slow NIC gen", func(tp *probes.Topology, _ *probes.PCIFacts) { tp.NICs[2].PCIe.GenCurrent = 4 }, "pcie-link", Warn, "NIC2 Gen4 of Gen5"},
		{"iommu translated", func(_ *probes.Topology, p *probes.PCIFacts) {
			p.IOMMU = probes.IOMMUFromGroups(80, map[string]int{"DMA-FQ": 80}, []string{"intel_iommu=on"})
		}, "iommu", Warn, "translates"},
		{"acs not readable", func(_ *probes.Topology, p *probes.PCIFacts) { p.ACSRead = false }, "acs", Skipped, "not readable"},
		{"far from CPUs", func(tp *probes.Topology, _ *probes.PCIFacts) {}, "numa-affinity", Warn, "pinned"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := hgx(t)
			pci := &probes.PCIFacts{Source: "test", ACSRead: true, IOMMU: probes.IOMMUFromGroups(0, nil, nil)}
			tc.edit(tp, pci)
			allowed := ""
			if tc.check == "numa-affinity" {
				allowed = "300-301"
			}
			v := find(t, CheckTopology(tp, pci, allowed, 2), tc.check)
			if v.Status != tc.want || !strings.Contains(v.Summary, tc.words) {
				t.Errorf("%s: %v %q, want %v with %q", tc.check, v.Status, v.Summary, tc.want, tc.words)
			}
		})
	}
}

func TestNVLinkAndNICFaults(t *testing.T) {
	tp := hgx(t)
	tp.GPUs[5].NVLinks[3].Active = false
	tp.P2P = []probes.P2P{{GPU1: 0, GPU2: 1, Read: "OK", Write: "OK"}, {GPU1: 2, GPU2: 3, Read: "CNS", Write: "CNS"}}
	vs := CheckNVLink(tp, nil)
	if v := find(t, vs, "nvlink-state"); v.Status != Fail || !strings.Contains(v.Summary, "GPU5 links 3") {
		t.Errorf("nvlink-state: %v %s", v.Status, v.Summary)
	}
	if v := find(t, vs, "p2p"); v.Status != Fail || !strings.Contains(v.Summary, "GPU2-GPU3") {
		t.Errorf("p2p: %v %s", v.Status, v.Summary)
	}
	tp = hgx(t)
	tp.NICs[1].Ports[0].State = "DOWN"
	if v := find(t, CheckNIC(tp, nil, nil, 2), "rdma-devices"); v.Status != Fail {
		t.Errorf("port down: %v %s", v.Status, v.Summary)
	}
	tp = hgx(t)
	tp.NICs[1].Ports[0].RateGbps = 200
	if v := find(t, CheckNIC(tp, nil, nil, 2), "rdma-devices"); v.Status != Warn || !strings.Contains(v.Summary, "200 Gb/s") {
		t.Errorf("slow port: %v %s", v.Status, v.Summary)
	}
	tp = hgx(t)
	for i := range tp.NICs {
		tp.NICs[i].Ports[0].LinkLayer = "Ethernet"
	}
	if v := find(t, CheckNIC(tp, nil, nil, 2), "rdma-devices"); v.Status != Fail || !strings.Contains(v.Summary, "GID") {
		t.Errorf("RoCE without GIDs: %v %s", v.Status, v.Summary)
	}
}

func TestBandwidthAgainstCeiling(t *testing.T) {
	tp := hgx(t)
	run := &probes.Run{Kind: "bandwidth", GPUCount: 8, Samples: []probes.Sample{
		{Op: "h2d_pinned", Src: -1, Dst: 0, Bytes: 256 << 20, MedianUS: 256 << 20 / 55.5e9 * 1e6},
		{Op: "p2p_write", Src: 0, Dst: 1, Bytes: 256 << 20, MedianUS: 256 << 20 / 150e9 * 1e6}, // a third of NV18
	}}
	vs := CheckNVLink(tp, run)
	if v := find(t, vs, "host-device-bandwidth"); v.Status != OK {
		t.Errorf("h2d: %v %s", v.Status, v.Summary)
	}
	if v := find(t, vs, "p2p-bandwidth"); v.Status != Fail || !strings.Contains(v.Summary, "33% of 450 GB/s") {
		t.Errorf("p2p: %v %s", v.Status, v.Summary)
	}
}

func TestNCCLLogFaults(t *testing.T) {
	log := func(s string) *nccllog.Log {
		lg, err := nccllog.ParseBytes([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return lg
	}
	two := log(`host1:100:100 [0] NCCL INFO NCCL version 2.28.9+cuda13.0
host2:200:200 [0] NCCL INFO NCCL version 2.21.5+cuda12.4
`)
	if v := checkNCCLVersion(two); v.Status != Warn {
		t.Errorf("two versions: %v %s", v.Status, v.Summary)
	}
	shm := log(`host1:100:100 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct
host1:100:100 [0] NCCL INFO Channel 01 : 0[0] -> 1[1] via SHM/direct/direct
`)
	if v := checkTransports(shm, hgx(t)); v.Status != Fail || !strings.Contains(v.Summary, "P2P is off") {
		t.Errorf("SHM on NVLink: %v %s", v.Status, v.Summary)
	}
}

func TestLintEnv(t *testing.T) {
	vs := LintEnv(&Evidence{Env: map[string]string{"NCCL_ASYNC_ERROR_HANDLING": "0", "TORCH_NCCL_ENABLE_MONITORING": "0", "NCCL_TIMEOUT": "300", "NCCL_DEBUG": "INFO", "TORCH_FR_BUFFER_SIZE": "0"},
		EnvSource: "test"})
	if v := find(t, vs, "env-timeouts"); v.Status != Fail || !strings.Contains(v.Summary, "TORCH_NCCL_ASYNC_ERROR_HANDLING=0") {
		t.Errorf("timeouts: %v %s", v.Status, v.Summary)
	}
	if v := find(t, vs, "env-renamed"); v.Status != Warn || !strings.Contains(v.Next, "NCCL_ASYNC_ERROR_HANDLING -> TORCH_NCCL_ASYNC_ERROR_HANDLING") {
		t.Errorf("renamed: %v %s / %s", v.Status, v.Summary, v.Next)
	}
	if v := find(t, vs, "env-unknown"); v.Status != Warn || !strings.Contains(v.Summary, "NCCL_TIMEOUT") || strings.Contains(v.Summary, "NCCL_ASYNC") {
		t.Errorf("unknown: %v %s", v.Status, v.Summary)
	}
	if v := find(t, vs, "env-flight-recorder"); v.Status != Warn {
		t.Errorf("flight recorder off: %v %s", v.Status, v.Summary)
	}
	if vs := LintEnv(&Evidence{}); vs[0].Check != "env" || vs[0].Status != Skipped {
		t.Errorf("no env: %v", vs)
	}
}

func TestBaseline(t *testing.T) {
	ev, err := Recorded("h200x2")
	if err != nil {
		t.Fatal(err)
	}
	base := Diagnose(ev)
	ev2, _ := Recorded("h200x2")
	for i, s := range ev2.Bandwidth.Samples {
		if s.Op == "p2p_write" {
			ev2.Bandwidth.Samples[i].MedianUS *= 2
			ev2.Bandwidth.Samples[i].AlgBW /= 2
		}
	}
	ev2.Env = map[string]string{"NCCL_P2P_DISABLE": "1"}
	r := Diagnose(ev2)
	r.CompareBaseline(base, "base.json")
	if v := find(t, r.Verdicts, "baseline-p2p_write_gbps"); v.Status != Warn || !strings.Contains(v.Summary, "fell to") {
		t.Errorf("baseline p2p: %v %s", v.Status, v.Summary)
	}
	if v := find(t, r.Verdicts, "baseline-status"); v.Status != Warn || !strings.Contains(strings.Join(v.Evidence, ";"), "framework/env-masking: ok -> warn") {
		t.Errorf("baseline status: %v %v", v.Status, v.Evidence)
	}
	if v := find(t, r.Verdicts, "baseline-h2d_pinned_gbps"); v.Status != OK {
		t.Errorf("baseline h2d unchanged: %v %s", v.Status, v.Summary)
	}
	if r.ExitCode != 2 { // p2p-bandwidth: half of its ceiling is below 50%: fail
		t.Errorf("exit %d", r.ExitCode)
	}
}

func TestLaunchPlan(t *testing.T) {
	lines := func(p Plan) []string {
		var out []string
		for _, c := range p.Commands {
			out = append(out, ShellLine(c))
		}
		return out
	}
	cases := []struct {
		name   string
		l      Launch
		want   []string // one per command
		follow string
	}{
		{"srun, 4 nodes", Launch{Launcher: "srun", Nodes: 4, PerNode: 8, Binary: "/opt/commlab", Out: "/shared/doc"}, []string{
			"mkdir -p /shared/doc/nodes",
			"srun -N 4 --ntasks-per-node=1 /opt/commlab doctor --node-dir /shared/doc/nodes",
			`sh -c 'srun -N 4 --ntasks-per-node=8 env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH,TUNING,ENV '\''NCCL_DEBUG_FILE=/shared/doc/nccl.%h.%p.log'\'' all_reduce_perf -b 8 -e 8G -f 2 -g 1 > /shared/doc/nccl-tests.txt 2>&1'`,
		}, "/opt/commlab doctor --nodes /shared/doc/nodes --nccl-log '/shared/doc/nccl.*.log' --out /shared/doc/report --nccl-tests /shared/doc/nccl-tests.txt"},
		{"srun on named hosts", Launch{Launcher: "srun", Hosts: []string{"gpu-a", "gpu-b", "gpu-c"}, PerNode: 4, Out: "/s"}, []string{
			"mkdir -p /s/nodes",
			"srun -N 3 --nodelist=gpu-a,gpu-b,gpu-c --ntasks-per-node=1 commlab doctor --node-dir /s/nodes",
			`sh -c 'srun -N 3 --nodelist=gpu-a,gpu-b,gpu-c --ntasks-per-node=4 env`,
		}, "--nccl-tests /s/nccl-tests.txt"},
		{"mpirun with a hostfile", Launch{Launcher: "mpirun", Hostfile: "hosts", Nodes: 2, PerNode: 4, Out: "/s"}, []string{
			"mkdir -p /s/nodes",
			"mpirun --hostfile hosts -np 2 --map-by ppr:1:node commlab doctor --node-dir /s/nodes",
			`sh -c 'mpirun --hostfile hosts -np 8 --map-by ppr:4:node -x NCCL_DEBUG=INFO`,
		}, "--nccl-tests /s/nccl-tests.txt"},
		{"mpirun on named hosts", Launch{Launcher: "mpirun", Hosts: []string{"a", "b"}, PerNode: 8, Out: "/s"}, []string{
			"mkdir -p /s/nodes",
			"mpirun --host a:1,b:1 -np 2 --map-by ppr:1:node commlab doctor --node-dir /s/nodes",
			`sh -c 'mpirun --host a:8,b:8 -np 16 --map-by ppr:8:node`,
		}, "--nccl-tests /s/nccl-tests.txt"},
		{"torchrun", Launch{Launcher: "torchrun", Nodes: 2, PerNode: 8, Hosts: []string{"m0", "m1"}, Out: "/s"}, []string{
			"mkdir -p /s/nodes",
			"commlab doctor --node-dir /s/nodes",
			"sh -c 'commlab probe torch --script > /s/bench_torch.py'",
			"mkdir -p /s/torch",
			`torchrun --nnodes 2 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint m0:29500 /s/bench_torch.py --what nccl --out /s/torch/"$(hostname)".json'`,
		}, "--rank-runs /s/torch"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := c.l.Plan()
			if err != nil {
				t.Fatal(err)
			}
			got := lines(p)
			if len(got) != len(c.want) {
				t.Fatalf("%d commands, want %d:\n%s", len(got), len(c.want), strings.Join(got, "\n"))
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("command %d:\n got %s\nwant %s", i, got[i], w)
				}
			}
			if f := ShellLine(p.FollowUp); !strings.Contains(f, c.follow) {
				t.Errorf("follow-up %s lacks %s", f, c.follow)
			}
		})
	}
	for _, bad := range []Launch{
		{Launcher: "mpirun", Nodes: 2, PerNode: 8, Out: "/x"},
		{Launcher: "pdsh", Nodes: 2, PerNode: 8, Out: "/x"},
		{Launcher: "srun", Nodes: 4, PerNode: 8, Hosts: []string{"a", "b"}, Out: "/x"},
		{Launcher: "srun", Nodes: 2, PerNode: 0, Out: "/x"},
		{Launcher: "srun", Nodes: 2, PerNode: 8},
		{Launcher: "torchrun", Nodes: 2, PerNode: 8, Out: "/x"},
	} {
		if _, err := bad.Plan(); !errors.Is(err, ErrLaunch) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

func TestStraggler(t *testing.T) {
	// Four ranks, eight timed all_reduces; rank 2 arrives late every time,
	// so its own collective is short and the others wait.
	var dumps []*flightrec.Dump
	for r := 0; r < 4; r++ {
		d := &flightrec.Dump{Rank: r}
		for seq := int64(1); seq <= 8; seq++ {
			dur := 40.0
			if r == 2 {
				dur = 3
			}
			d.Entries = append(d.Entries, flightrec.Entry{PGID: 0, CollectiveSeqID: seq, Op: "all_reduce", State: flightrec.StateCompleted, DurationMs: dur + float64(seq%3), HasDuration: true})
		}
		dumps = append(dumps, d)
	}
	v := CheckStraggler(dumps)
	if v.Status != Warn || !strings.Contains(v.Summary, "rank 2 arrives last at 8 of 8") {
		t.Errorf("straggler: %v %s", v.Status, v.Summary)
	}
	for _, d := range dumps {
		for i := range d.Entries {
			d.Entries[i].DurationMs = 10 + float64((d.Rank+int(d.Entries[i].CollectiveSeqID))%4)
		}
	}
	if v := CheckStraggler(dumps); v.Status != OK {
		t.Errorf("even ranks: %v %s", v.Status, v.Summary)
	}
	if v := CheckStraggler(dumps[:1]); v.Status != Skipped {
		t.Errorf("one dump: %v %s", v.Status, v.Summary)
	}
}

func TestOneRankSweep(t *testing.T) {
	ev := &Evidence{NCCL: &probes.Run{Kind: "nccl", GPUCount: 1, Samples: []probes.Sample{
		{Op: "all_reduce", Bytes: 8, Ranks: 1, MedianUS: 6.1}, {Op: "all_reduce", Bytes: 1 << 30, Ranks: 1, MedianUS: 14},
	}}}
	r := Diagnose(ev)
	if a := r.Answers[1].Answer; !strings.Contains(a, "launch and copy floor (6.1 µs out of place)") {
		t.Errorf("one-rank answer: %s", a)
	}
}

func FuzzEnvFromText(f *testing.F) {
	f.Add("export NCCL_DEBUG=INFO\n# comment\nTORCH_FR_BUFFER_SIZE='2000'\nnot a setting\n=x\n")
	f.Fuzz(func(t *testing.T, text string) {
		env := EnvFromText(text)
		LintEnv(&Evidence{Env: env, EnvSource: "fuzz", TorchVersion: "2.11.0"})
	})
}

func TestPairwise(t *testing.T) {
	hosts := ReadHostfile("# cluster\nnode-a slots=8\nnode-b:8\nnode-c slots=8\nnode-a slots=8\n")
	if strings.Join(hosts, ",") != "node-a,node-b,node-c" {
		t.Fatalf("hosts %v", hosts)
	}
	p, err := Launch{Launcher: "mpirun", PerNode: 8, Out: "/shared/d"}.PairwisePlan(hosts)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Commands) != 4 || !strings.Contains(ShellLine(p.Commands[1]), "mpirun --host node-a:8,node-b:8 -np 16 all_reduce_perf") {
		t.Errorf("plan: %v", p.Commands)
	}
	// node-c is slow: both its pairs are.
	times := NodeTimesFromPairs(map[string]float64{"node-a+node-b": 5000, "node-a+node-c": 8100, "node-b+node-c": 8000}, "all_reduce 1 GiB")
	v := CheckRanks(times)
	if v.Status == OK || !strings.Contains(v.Summary, "node-c") {
		t.Errorf("pairs: %v %s (%v)", v.Status, v.Summary, times)
	}
}

func TestDiagnoseNothing(t *testing.T) {
	r := Diagnose(&Evidence{})
	if r.ExitCode != 0 || r.Counts["ok"]+r.Counts["warn"]+r.Counts["fail"] != 0 {
		t.Errorf("empty evidence: exit %d, counts %v", r.ExitCode, r.Counts)
	}
	if len(r.Answers) != len(Questions) {
		t.Errorf("%d answers", len(r.Answers))
	}
	// A topology with GPUs and nothing else must not trip a check.
	r = Diagnose(&Evidence{Topology: &probes.Topology{GPUs: []probes.GPU{{Index: 0}, {Index: 1}}}})
	if r.ExitCode != 0 {
		t.Errorf("bare topology: exit %d: %v", r.ExitCode, r.Verdicts)
	}
}
