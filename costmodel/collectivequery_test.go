package costmodel

import (
	"errors"
	"strings"
	"testing"
)

func TestCollectiveQueryPlan(t *testing.T) {
	tests := []struct {
		name       string
		q          CollectiveQuery
		tuned      bool
		ranks      int
		nodes      int
		sizes      int
		alpha      float64
		beta       float64
		machine    string // Machine.Node.Name when tuned
		linkAssume bool
	}{
		{"rates alone", CollectiveQuery{Collective: "all_reduce", Size: "1GB", Bandwidth: "25GB/s"}, false, 8, 1, 1, 5e-6, 25e9, "", false},
		{"latency given", CollectiveQuery{Collective: "all_reduce", Size: "1GB", Bandwidth: "25GB/s", Latency: "2us", Ranks: 4}, false, 4, 1, 1, 2e-6, 25e9, "", false},
		{"preset x nodes", CollectiveQuery{Collective: "all_reduce", Sweep: "1KB,1MB", Preset: "hgx-h100", Nodes: 2}, false, 16, 2, 2, 0, 0, "", false},
		{"tuner on a preset", CollectiveQuery{Collective: "all_reduce", Size: "1MiB", Preset: "hgx-h200", Algorithm: "auto"}, true, 8, 1, 1, 0, 0, "hgx-h200", false},
		{"tuner, part of a board", CollectiveQuery{Collective: "all_reduce", Size: "1MiB", Preset: "hgx-h200", Algorithm: "auto", Ranks: 2}, true, 2, 1, 1, 0, 0, "hgx-h200", false},
		{"tuner from rates", CollectiveQuery{Collective: "all_reduce", Size: "1MiB", Bandwidth: "25GB/s", Protocol: "auto"}, true, 8, 1, 1, 5e-6, 25e9, "custom", true},
	}
	for _, tt := range tests {
		plan, err := tt.q.Plan()
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		p := plan.Params
		if plan.Tuned != tt.tuned || p.Ranks != tt.ranks || p.Nodes != tt.nodes || len(plan.Sizes) != tt.sizes {
			t.Errorf("%s: tuned %v ranks %d nodes %d sizes %v", tt.name, plan.Tuned, p.Ranks, p.Nodes, plan.Sizes)
		}
		if tt.beta != 0 && (p.Alpha != tt.alpha || p.Beta != tt.beta) {
			t.Errorf("%s: alpha %g beta %g, want %g %g", tt.name, p.Alpha, p.Beta, tt.alpha, tt.beta)
		}
		if tt.tuned && (plan.Machine.Node.Name != tt.machine || plan.Machine.Node.GPUs*plan.Machine.Nodes != tt.ranks || plan.LinkAssumed != tt.linkAssume) {
			t.Errorf("%s: machine %+v, link assumed %v", tt.name, plan.Machine, plan.LinkAssumed)
		}
	}
}

// The network options reach the tuner's node: one NIC per GPU at the
// rate given, the latency given as the network's own.
func TestCollectiveQueryNetwork(t *testing.T) {
	plan, err := CollectiveQuery{Collective: "all_reduce", Size: "1GB", Preset: "hgx-h100", Nodes: 4, Algorithm: "auto",
		InterBandwidth: "50GB/s", InterLatency: "10us", NICPath: "pxn", NCCL: "2.23", NVLSOff: true}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	m := plan.Machine
	if m.Node.NICs != 8 || m.Node.NIC.Bandwidth.BytesPerSecond != 50e9 || m.Node.NIC.NetLatency != 10e-6 ||
		m.Node.NICPath != "PXN" || m.NCCL != "2.23" || !m.NVLSOff || m.Nodes != 4 || !plan.NCCLGiven {
		t.Errorf("machine %+v", m)
	}
}

func TestCollectiveQueryErrors(t *testing.T) {
	base := func(edit func(*CollectiveQuery)) CollectiveQuery {
		q := CollectiveQuery{Collective: "all_reduce", Size: "1MB", Bandwidth: "25GB/s"}
		edit(&q)
		return q
	}
	tests := []struct {
		name   string
		q      CollectiveQuery
		option Option // "" for an error that is no OptionError
		want   string
	}{
		{"collective", base(func(q *CollectiveQuery) { q.Collective = "allsum" }), "", "unknown collective"},
		{"size and sweep", base(func(q *CollectiveQuery) { q.Sweep = "8B:8GB" }), OptionSize, "give either size or sweep"},
		{"size", base(func(q *CollectiveQuery) { q.Size = "25Gb" }), OptionSize, "size: units: bad size"},
		{"sweep", base(func(q *CollectiveQuery) { q.Size, q.Sweep = "", "8GB:8B" }), OptionSweep, "sweep: units"},
		{"nodes 0 given", base(func(q *CollectiveQuery) { q.Given = []Option{OptionNodes} }), OptionNodes, "nodes 0: need at least 1 node"},
		{"ranks", base(func(q *CollectiveQuery) { q.Ranks = -3 }), OptionRanks, "ranks -3: need at least 1 GPU"},
		{"uneven", base(func(q *CollectiveQuery) { q.Ranks, q.Nodes = 7, 2 }), OptionRanks, "ranks 7 does not spread evenly over 2 nodes"},
		{"algorithm", base(func(q *CollectiveQuery) { q.Algorithm = "magic" }), OptionAlgorithm, "algorithm: costmodel: bad parameters: unknown algorithm"},
		{"protocol", base(func(q *CollectiveQuery) { q.Protocol = "ll64" }), OptionProtocol, "unknown protocol"},
		{"latency with the tuner", base(func(q *CollectiveQuery) { q.Algorithm, q.Latency = "auto", "5us" }), OptionLatency, "latency sets the alpha-beta model's"},
		{"nccl without the tuner", base(func(q *CollectiveQuery) { q.NCCL = "2.23" }), OptionNCCL, "nccl applies to the tuner (algorithm auto or protocol auto); the alpha-beta model of algorithm ring"},
		{"nvls given at its default", base(func(q *CollectiveQuery) { q.Given = []Option{OptionNVLS} }), OptionNVLS, "nvls applies to the tuner"},
		{"thread GPUs", base(func(q *CollectiveQuery) { q.Algorithm, q.Given = "auto", []Option{OptionThreadGPUs} }), OptionThreadGPUs, "thread-gpus 0: need at least 1"},
		{"issue", base(func(q *CollectiveQuery) { q.Algorithm, q.Issue = "auto", "0us" }), OptionIssue, "issue 0us: want a time above 0"},
		{"nccl version", base(func(q *CollectiveQuery) { q.Algorithm, q.NCCL = "auto", "3.1" }), OptionNCCL, "want 2.x"},
		{"preset", base(func(q *CollectiveQuery) { q.Preset = "dgx-z" }), OptionPreset, "unknown node preset"},
		{"link", base(func(q *CollectiveQuery) { q.Algorithm, q.Link = "auto", "Ethernet" }), OptionLink, `link "ethernet": want pcie or nvlink`},
		{"nic path", base(func(q *CollectiveQuery) { q.Algorithm, q.NICPath = "auto", "far" }), OptionNICPath, "want pix, pxb"},
		{"network on one node", base(func(q *CollectiveQuery) { q.InterLatency = "5us" }), OptionInterLatency, "inter-latency describes the network between nodes; with nodes 1"},
		{"bandwidth", base(func(q *CollectiveQuery) { q.Bandwidth = "25GB" }), OptionBandwidth, "per-second"},
		{"no bandwidth", base(func(q *CollectiveQuery) { q.Bandwidth = "" }), OptionBandwidth, "need bandwidth (e.g. bandwidth 25GB/s) or preset (a100"},
		{"unsupported before no bandwidth", base(func(q *CollectiveQuery) { q.Collective, q.Algorithm, q.Bandwidth = "all_gather", "tree", "" }), "", "does not apply"},
		{"whole nodes", base(func(q *CollectiveQuery) { q.Algorithm, q.Preset, q.Bandwidth, q.Ranks = "auto", "hgx-h100", "", 16 }), OptionRanks, "whole nodes of at most 8 GPUs: ranks 16 over 1 node(s) of hgx-h100"},
	}
	for _, tt := range tests {
		_, err := tt.q.Plan()
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
		var oe *OptionError
		if isOption := errors.As(err, &oe); isOption != (tt.option != "") || isOption && oe.Option != tt.option {
			t.Errorf("%s: %#v, want option %q", tt.name, err, tt.option)
		}
		if tt.option != "" && !errors.Is(err, ErrParams) {
			t.Errorf("%s: %v is not ErrParams", tt.name, err)
		}
	}
}

// Text names the options as the caller does: a command, by its flags.
func TestOptionErrorText(t *testing.T) {
	_, err := CollectiveQuery{Collective: "all_reduce", Size: "1MB", Ranks: 7, Nodes: 2, Bandwidth: "1GB/s"}.Plan()
	var oe *OptionError
	if !errors.As(err, &oe) {
		t.Fatalf("%v", err)
	}
	flags := map[Option]string{OptionRanks: "-n"}
	if got := oe.Text(func(o Option) string { return flags[o] }); got != "-n 7 does not spread evenly over 2 nodes" {
		t.Errorf("Text: %q", got)
	}
	if err.Error() != "costmodel: ranks 7 does not spread evenly over 2 nodes" {
		t.Errorf("Error: %q", err.Error())
	}
}
