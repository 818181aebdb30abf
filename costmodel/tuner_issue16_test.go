package costmodel

import (
	"errors"
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/nccllog"
)

// Issue 16, item 1: LL128 follows tuning.cc's rule (ncclTopoTuneModel):
// NVLink inside the node, the NIC within PXB (PXN on sm90+) across nodes,
// one compute capability. A PCIe node never gets it; a multi-node NVLink
// system with near NICs does; the NIC's distance is its own input.
func TestTunerLL128Rule(t *testing.T) {
	p := Params{Ranks: 8, Nodes: 1, Beta: 25e9, Alpha: 5e-6, InterBeta: 50e9, InterAlpha: 14e-6}
	pc, err := CustomNode(p, "")
	if err != nil || pc.Intra.Kind != "pcie" {
		t.Fatalf("25 GB/s with no link named: %+v %v, want pcie", pc.Intra, err)
	}
	nv, _ := CustomNode(p, "nvlink")
	if _, err := CustomNode(p, "infinity-fabric"); !errors.Is(err, ErrParams) {
		t.Errorf("unknown link: %v", err)
	}
	for _, fam := range []string{"2.19", "2.23", "2.27", "2.28"} {
		for _, nodes := range []int{1, 4} {
			T, err := Tune(NCCLTopology(pc, nodes, fam))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []Collective{AllReduce, AllGather, Broadcast} {
				if _, ok := T.TimeUs(c, "Ring", "LL128", 1<<20); ok {
					t.Errorf("%s, %d PCIe node(s): %s Ring/LL128 enabled", fam, nodes, c)
				}
				for _, s := range Sizes(8, 8<<30, 8) {
					if ch, _ := T.Pick(c, s); ch.Protocol == "LL128" {
						t.Errorf("%s, %d PCIe node(s): %s %v B picks LL128", fam, nodes, c, s)
					}
				}
			}
			// The same rate over NVLink: LL128 on, across nodes too (NIC PIX).
			T, _ = Tune(NCCLTopology(nv, nodes, fam))
			if _, ok := T.TimeUs(AllReduce, "Ring", "LL128", 1<<20); !ok {
				t.Errorf("%s, %d NVLink node(s), NIC PIX: Ring/LL128 disabled", fam, nodes)
			}
		}
	}
	// The NIC's distance, across nodes: PXB and (on sm90) PXN keep LL128,
	// PHB and SYS lose it; on sm80, PXN loses it too. On one node the NIC
	// plays no part.
	h, _ := NodeByName("hgx-h100")
	a, _ := NodeByName("dgx-a100")
	for _, tc := range []struct {
		node  Node
		nodes int
		path  string
		want  bool
	}{
		{h, 4, "PIX", true}, {h, 4, "PXB", true}, {h, 4, "PXN", true}, {h, 4, "PHB", false}, {h, 4, "SYS", false},
		{a, 4, "PXB", true}, {a, 4, "PXN", false}, {a, 4, "PHB", false},
		{h, 1, "SYS", true}, {a, 1, "SYS", true},
	} {
		topo := NCCLTopology(tc.node, tc.nodes, "2.23")
		topo.NICPath = tc.path
		T, err := Tune(topo)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := T.TimeUs(AllReduce, "Ring", "LL128", 1<<20); ok != tc.want {
			t.Errorf("%s x%d, NIC %s: LL128 %v, want %v", tc.node.Name, tc.nodes, tc.path, ok, tc.want)
		}
	}
	// Mixed compute capabilities: no LL128 (minCompCap == maxCompCap).
	topo := NCCLTopology(h, 1, "2.28")
	topo.MinComputeCapability = 80
	if T, _ := Tune(topo); T.bw[funcIndex(AllReduce)][aRing][pLL128] != 0 {
		t.Error("sm80 with sm90: LL128 enabled")
	}
	// Blackwell: no LL128 in 2.23/2.24 (tuning.cc's switch lists 70, 80,
	// 90), on from 2.25.
	b := issue1453()
	b.ComputeCapability = 100
	for fam, want := range map[string]bool{"2.23": false, "2.24": false, "2.25": true, "2.27": true} {
		b.Family = fam
		T, _ := Tune(b)
		if _, ok := T.TimeUs(AllReduce, "Ring", "LL128", 1<<20); ok != want {
			t.Errorf("sm100, %s: LL128 %v, want %v", fam, ok, want)
		}
	}
	bad := issue1453()
	bad.NICPath = "far"
	if _, err := Tune(bad); !errors.Is(err, ErrParams) {
		t.Errorf("NIC path far: %v", err)
	}
}

// Issue 16, item 2: NVLSDisable is NCCL_NVLS_ENABLE=0.
func TestTunerNVLSDisable(t *testing.T) {
	h, _ := NodeByName("hgx-h200")
	for _, nodes := range []int{1, 2} {
		topo := NCCLTopology(h, nodes, "2.28")
		on, _ := Tune(topo)
		if c, _ := on.Pick(AllReduce, 1<<30); !strings.HasPrefix(c.Algorithm, "NVLS") {
			t.Errorf("%d node(s), NVLS on: %s", nodes, c.Algorithm)
		}
		topo.NVLSDisable = true
		off, _ := Tune(topo)
		for _, a := range []string{"NVLS", "NVLSTree"} {
			for _, c := range []Collective{AllReduce, AllGather, ReduceScatter} {
				if _, ok := off.TimeUs(c, a, "Simple", 1<<30); ok {
					t.Errorf("%d node(s), NVLS off: %s %s enabled", nodes, c, a)
				}
			}
		}
		if c, _ := off.Pick(AllReduce, 1<<30); strings.HasPrefix(c.Algorithm, "NVLS") {
			t.Errorf("%d node(s), NVLS off: picks %s", nodes, c.Algorithm)
		}
	}
}

// Issue 16, item 3: two GPUs of the hgx-h200 preset with NVLS off, as the
// lab's 2xH200 machine runs, against NCCL 2.28.9's own log of it (read
// with parse/nccllog): NCCL's search emulated on the preset's
// links finds the log's graphs (ring 12 x 30, tree 12 x 60, 24 coll
// channels), so the model's pick and channel count agree with NCCL's at
// every logged size of all_reduce, all_gather and reduce_scatter.
func TestTunerPresetTwoH200AgreesWithLog(t *testing.T) {
	log, err := nccllog.Parse(strings.NewReader(h200x2Log(t)))
	if err != nil {
		t.Fatal(err)
	}
	h, _ := NodeByName("hgx-h200")
	two, err := h.WithGPUs(2)
	if err != nil || two.GPUs != 2 || two.NICs != 2 || two.Intra != h.Intra {
		t.Fatalf("WithGPUs(2): %+v %v", two, err)
	}
	if _, err := h.WithGPUs(9); !errors.Is(err, ErrParams) {
		t.Errorf("WithGPUs(9): %v", err)
	}
	two.NVLS = false // the log: "0 nvls channels"
	topo := NCCLTopology(two, 1, "2.28")
	T, err := Tune(topo)
	if err != nil {
		t.Fatal(err)
	}
	graphs := map[int]nccllog.GraphSearch{}
	for _, g := range log.GraphSearches {
		graphs[g.Pattern] = g
	}
	ring, tree := graphs[4], graphs[1]
	if ring.NChannels != topo.Ring.Channels || ring.BWIntra != topo.Ring.BwIntraGBps ||
		tree.NChannels != topo.Tree.Channels || tree.BWIntra != topo.Tree.BwIntraGBps {
		t.Errorf("graphs: ours ring %d x %g, tree %d x %g; NCCL ring %d x %g, tree %d x %g",
			topo.Ring.Channels, topo.Ring.BwIntraGBps, topo.Tree.Channels, topo.Tree.BwIntraGBps,
			ring.NChannels, ring.BWIntra, tree.NChannels, tree.BWIntra)
	}
	if len(log.ChannelCounts) == 0 || log.ChannelCounts[0].Coll != T.commChannels || log.ChannelCounts[0].NVLS != 0 {
		t.Errorf("channel counts: NCCL %+v, ours %d coll", log.ChannelCounts, T.commChannels)
	}
	names := map[string]Collective{"AllReduce": AllReduce, "AllGather": AllGather, "ReduceScatter": ReduceScatter}
	checked := map[Collective]int{}
	for _, ch := range log.Choices {
		c, ok := names[ch.Op]
		if !ok {
			continue
		}
		nBytes := float64(ch.Bytes)
		if c != AllReduce {
			nBytes *= 2 // NCCL tunes all_gather and reduce_scatter on the gathered size
		}
		got, err := T.Pick(c, nBytes)
		if err != nil {
			t.Fatal(err)
		}
		algo := strings.ToUpper(got.Algorithm)
		if algo != ch.Algorithm || strings.ToUpper(got.Protocol) != ch.Protocol || got.Channels != ch.ChannelHi-ch.ChannelLo+1 {
			t.Errorf("%s %d B: ours %s/%s on %d channels, NCCL %s/%s on %d", ch.Op, ch.Bytes, got.Algorithm, got.Protocol,
				got.Channels, ch.Algorithm, ch.Protocol, ch.ChannelHi-ch.ChannelLo+1)
		}
		checked[c]++
	}
	for _, c := range []Collective{AllReduce, AllGather, ReduceScatter} {
		if checked[c] < 30 {
			t.Errorf("%s: %d logged sizes compared, want 30 or more", c, checked[c])
		}
	}
}

// Issue 16, item 4: PAT's share of the bandwidth is 0.85 in 2.23 and 0.75
// from 2.24 (tuning.cc at v2.23.4-1 and v2.24.3-1).
func TestTunerPATFactor(t *testing.T) {
	g := TunerGraph{Channels: 16, BwIntraGBps: 20, BwInterGBps: 20, SameChannels: true}
	bw := func(fam string) float64 {
		T, err := Tune(TunerTopology{Family: fam, Nodes: 8, GPUsPerNode: 1, IntraNVLink: true, ComputeCapability: 90, Ring: g, Tree: g})
		if err != nil {
			t.Fatal(err)
		}
		return T.bw[funcIndex(AllGather)][aPAT][pSimple]
	}
	ring := 16 * 20.0                                                                                     // PAT starts from the ring graph's bandwidth
	for fam, f := range map[string]float64{"": .75, "2.23": .85, "2.24": .75, "2.27": .75, "2.28": .75} { // "" is DefaultNCCL, 2.28
		if got := bw(fam); !near(got, ring*f, 1e-12) {
			t.Errorf("family %q: PAT all_gather %g GB/s, want %g", fam, got, ring*f)
		}
	}
}
