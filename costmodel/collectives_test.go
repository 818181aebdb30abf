package costmodel

import (
	"errors"
	"math"
	"testing"
)

func near(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

// TestChapter1Question is the series' chapter-1 question: 8 GPUs, ring
// all_reduce, links of 25 GB/s one way, 1 GB and 64 KB messages. The
// question gives no alpha; the chapter's parameter cell uses 5 us.
//
// Worked by hand, n = 8, alpha = 5 us, beta = 25e9 B/s:
//
//	latency term   = 2(n-1) alpha        = 14 x 5 us            = 70 us
//	bandwidth term = 2(n-1)/n x S / beta = 1.75 x S / 25e9 B/s
//	  S = 1 GB  = 1e9 B:  1.75 x 40 ms    = 70 ms    -> T = 70.07 ms
//	  S = 64 KB = 64e3 B: 1.75 x 2.56 us  = 4.48 us  -> T = 74.48 us
//	algbw = S/T: 1e9/70.07e-3 = 14.2714 GB/s; 64e3/74.48e-6 = 0.859291 GB/s
//	busbw = algbw x 1.75: 24.975 GB/s (close to the 25 GB/s link); 1.50376 GB/s
//
// The 1 GB message spends 99.9% of its time in the bandwidth term; the
// 64 KB one 94% in the latency term. They trade places at
// S = n alpha beta = 8 x 5e-6 x 25e9 = 1 MB.
func TestChapter1Question(t *testing.T) {
	base := Params{Collective: AllReduce, Algorithm: Ring, Ranks: 8, Alpha: 5e-6, Beta: 25e9}
	tests := []struct {
		size                      string
		lat, bw, time, algbw, bus float64
		bound                     string
	}{
		{"1GB", 70e-6, 70e-3, 70.07e-3, 14.2714e9, 24.975e9, "bandwidth"},
		{"64KB", 70e-6, 4.48e-6, 74.48e-6, 0.859291e9, 1.50376e9, "latency"},
	}
	for _, tt := range tests {
		s, err := ParseSize(tt.size)
		if err != nil {
			t.Fatal(err)
		}
		p := base
		p.Bytes = float64(s)
		c, err := Predict(p)
		if err != nil {
			t.Fatal(err)
		}
		if !near(c.LatencyTerm, tt.lat, 1e-9) || !near(c.BandwidthTerm, tt.bw, 1e-9) || !near(c.Time, tt.time, 1e-9) {
			t.Errorf("%s: terms %g + %g = %g, want %g + %g = %g", tt.size, c.LatencyTerm, c.BandwidthTerm, c.Time, tt.lat, tt.bw, tt.time)
		}
		if !near(c.AlgBW, tt.algbw, 1e-5) || !near(c.BusBW, tt.bus, 1e-5) || c.Bound != tt.bound || c.Steps != 14 {
			t.Errorf("%s: algbw %g busbw %g bound %s steps %d", tt.size, c.AlgBW, c.BusBW, c.Bound, c.Steps)
		}
	}
	// The crossover of the whole all_reduce: 2(n-1)a = 2(n-1)/n S/b.
	p := base
	p.Bytes = 8 * 5e-6 * 25e9
	c, _ := Predict(p)
	if !near(c.LatencyTerm, c.BandwidthTerm, 1e-12) || p.Bytes != 1e6 {
		t.Errorf("crossover at 1 MB: %g vs %g", c.LatencyTerm, c.BandwidthTerm)
	}
}

func TestHockney(t *testing.T) {
	m := AlphaBeta{Alpha: 2e-6, Beta: 50e9}
	if got := m.Time(1e6); !near(got, 2e-6+20e-6, 1e-12) {
		t.Errorf("Time = %g", got)
	}
	if got := m.Crossover(); got != 100e3 {
		t.Errorf("Crossover = %g, want 100 KB", got)
	}
	if m.Bound(1e3) != "latency" || m.Bound(1e6) != "bandwidth" {
		t.Error("Bound")
	}
	if !math.IsInf(AlphaBeta{}.Time(1), 1) {
		t.Error("zero beta should give +Inf")
	}
}

// Hand-worked values for n = 8, alpha = 1 us, beta = 1e9 B/s, S = 8e6 B
// (S/beta = 8 ms), one per algorithm family.
func TestPredictGolden(t *testing.T) {
	const a, S = 1e-6, 8e6
	tests := []struct {
		c      Collective
		alg    Algorithm
		n      int
		nodes  int
		steps  int
		lat    float64
		bwTerm float64
	}{
		{AllReduce, Ring, 8, 1, 14, 14 * a, 14e-3},           // 2*7/8 * 8 ms
		{AllGather, Ring, 8, 1, 7, 7 * a, 7e-3},              // 7/8 * 8 ms
		{Broadcast, Ring, 8, 1, 7, 7 * a, 8e-3},              // pipelined chain
		{SendRecv, Ring, 8, 1, 1, a, 8e-3},                   // one transfer
		{Broadcast, Tree, 8, 1, 3, 3 * a, 16e-3},             // 2 children
		{AllReduce, Tree, 8, 1, 6, 6 * a, 24e-3},             // 3S through an inner node
		{Gather, Tree, 8, 1, 3, 3 * a, 7e-3},                 // binomial
		{AllReduce, DoubleBinaryTree, 8, 1, 6, 6 * a, 16e-3}, // 2S
		{Broadcast, DoubleBinaryTree, 8, 1, 3, 3 * a, 8e-3},  // S
		{AllReduce, RecursiveHalvingDoubling, 8, 1, 6, 6 * a, 14e-3},
		{AllReduce, RecursiveHalvingDoubling, 6, 1, 6, 6 * a, 2*3.0/4*8e-3 + 16e-3}, // p = 4, +2(a+S/b)
		{AllToAll, RecursiveHalvingDoubling, 8, 1, 3, 3 * a, 12e-3},                 // Bruck: 3 x S/2
		{AllReduce, NVLS, 8, 1, 2, 2 * a, 9e-3},                                     // (n+1)/n S
		{AllGather, NVLS, 8, 1, 1, a, 8e-3},
		// Two nodes of 4, same link inside and out: 2*3 + 2*1 steps;
		// 2*3/4*8 ms + 2*1/2*(2 ms) = 12 + 2 ms.
		{AllReduce, Hierarchical, 8, 2, 8, 8 * a, 14e-3},
		// CollNet: 2*3 intra steps + 2 switch steps; 12 ms + S/4/b = 2 ms.
		{AllReduce, CollNet, 8, 2, 8, 8 * a, 14e-3},
	}
	for _, tt := range tests {
		c, err := Predict(Params{Collective: tt.c, Algorithm: tt.alg, Ranks: tt.n, Nodes: tt.nodes, Bytes: S, Alpha: a, Beta: 1e9})
		if err != nil {
			t.Errorf("%s %s: %v", tt.alg, tt.c, err)
			continue
		}
		if c.Steps != tt.steps || !near(c.LatencyTerm, tt.lat, 1e-9) || !near(c.BandwidthTerm, tt.bwTerm, 1e-9) {
			t.Errorf("%s %s n=%d: steps %d lat %g bw %g; want %d %g %g", tt.alg, tt.c, tt.n, c.Steps, c.LatencyTerm, c.BandwidthTerm, tt.steps, tt.lat, tt.bwTerm)
		}
		if !near(c.BusBW, c.AlgBW*BusBWFactor(tt.c, tt.n), 1e-12) || !near(c.AlgBW, S/c.Time, 1e-12) {
			t.Errorf("%s %s: algbw/busbw inconsistent", tt.alg, tt.c)
		}
	}
}

// The factors nccl-tests applies (src/all_reduce.cu etc., GetBw).
func TestBusBWFactor(t *testing.T) {
	tests := []struct {
		c    Collective
		n    int
		want float64
	}{
		{AllReduce, 8, 1.75}, {AllGather, 8, 0.875}, {ReduceScatter, 8, 0.875}, {AllToAll, 8, 0.875},
		{Scatter, 4, 0.75}, {Gather, 4, 0.75}, {Broadcast, 8, 1}, {Reduce, 8, 1}, {SendRecv, 2, 1},
		{AllReduce, 1, 0}, {AllReduce, 0, 0},
	}
	for _, tt := range tests {
		if got := BusBWFactor(tt.c, tt.n); got != tt.want {
			t.Errorf("BusBWFactor(%s, %d) = %g, want %g", tt.c, tt.n, got, tt.want)
		}
	}
}

func TestRingBandwidthTermTendsTo2SOverBeta(t *testing.T) {
	const S, b = 1e9, 25e9
	limit := 2 * S / b
	prev := 0.0
	for _, n := range []int{2, 4, 8, 16, 64, 256, 1024, 4096} {
		c, err := Predict(Params{Collective: AllReduce, Algorithm: Ring, Ranks: n, Bytes: S, Alpha: 1e-6, Beta: b})
		if err != nil {
			t.Fatal(err)
		}
		if c.BandwidthTerm <= prev || c.BandwidthTerm >= limit {
			t.Errorf("n=%d: bandwidth term %g not increasing towards %g", n, c.BandwidthTerm, limit)
		}
		if gap := limit - c.BandwidthTerm; !near(gap, limit/float64(n), 1e-9) {
			t.Errorf("n=%d: gap %g, want 2S/(n b) = %g", n, gap, limit/float64(n))
		}
		prev = c.BandwidthTerm
	}
}

func TestAllReduceIsReduceScatterPlusAllGather(t *testing.T) {
	for _, alg := range []Algorithm{Ring, RecursiveHalvingDoubling, Hierarchical} {
		for _, n := range []int{2, 4, 8, 16, 64} {
			nodes := 1
			if alg == Hierarchical {
				nodes = 2
			}
			p := Params{Algorithm: alg, Ranks: n, Nodes: nodes, Bytes: 3e8, Alpha: 2e-6, Beta: 40e9, InterAlpha: 5e-6, InterBeta: 12e9}
			p.Collective = AllReduce
			ar, err := Predict(p)
			if err != nil {
				t.Fatal(err)
			}
			p.Collective = ReduceScatter
			rs, _ := Predict(p)
			p.Collective = AllGather
			ag, _ := Predict(p)
			if !near(ar.BandwidthTerm, rs.BandwidthTerm+ag.BandwidthTerm, 1e-12) {
				t.Errorf("%s n=%d: AR %g != RS %g + AG %g", alg, n, ar.BandwidthTerm, rs.BandwidthTerm, ag.BandwidthTerm)
			}
			if !near(ar.LatencyTerm, rs.LatencyTerm+ag.LatencyTerm, 1e-12) {
				t.Errorf("%s n=%d: latency AR %g != RS + AG %g", alg, n, ar.LatencyTerm, rs.LatencyTerm+ag.LatencyTerm)
			}
		}
	}
}

func TestTreeLatencyGrowsAsLogN(t *testing.T) {
	const a = 3e-6
	for _, alg := range []Algorithm{Tree, DoubleBinaryTree} {
		prev := 0.0
		for k := 1; k <= 12; k++ {
			n := 1 << k
			c, err := Predict(Params{Collective: AllReduce, Algorithm: alg, Ranks: n, Bytes: 1, Alpha: a, Beta: 1e9})
			if err != nil {
				t.Fatal(err)
			}
			if !near(c.LatencyTerm, 2*float64(k)*a, 1e-12) {
				t.Errorf("%s n=%d: latency %g, want 2 log2(n) alpha = %g", alg, n, c.LatencyTerm, 2*float64(k)*a)
			}
			if k > 1 && !near(c.LatencyTerm-prev, 2*a, 1e-9) {
				t.Errorf("%s: doubling n to %d added %g, want 2 alpha", alg, n, c.LatencyTerm-prev)
			}
			prev = c.LatencyTerm
		}
	}
	// The ring's latency, by contrast, is linear in n.
	r1, _ := Predict(Params{Collective: AllReduce, Algorithm: Ring, Ranks: 512, Bytes: 1, Alpha: a, Beta: 1e9})
	if !near(r1.LatencyTerm, 2*511*a, 1e-12) {
		t.Errorf("ring latency %g", r1.LatencyTerm)
	}
}

func TestUnsupported(t *testing.T) {
	tests := []Params{
		{Collective: AllGather, Algorithm: Tree},
		{Collective: AllToAll, Algorithm: DoubleBinaryTree},
		{Collective: AllReduce, Algorithm: NVLS, Nodes: 2},
		{Collective: AllToAll, Algorithm: NVLS},
		{Collective: AllReduce, Algorithm: CollNet},
		{Collective: AllGather, Algorithm: CollNet, Nodes: 2},
		{Collective: AllReduce, Algorithm: Hierarchical},
		{Collective: Scatter, Algorithm: Hierarchical, Nodes: 2},
		{Collective: SendRecv, Algorithm: Tree},
	}
	for _, p := range tests {
		p.Ranks, p.Bytes, p.Alpha, p.Beta = 8, 1e6, 1e-6, 1e9
		if _, err := Predict(p); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s %s nodes=%d: err = %v, want ErrUnsupported", p.Algorithm, p.Collective, p.Nodes, err)
		}
	}
}

func TestBadParams(t *testing.T) {
	ok := Params{Collective: AllReduce, Algorithm: Ring, Ranks: 8, Bytes: 1, Alpha: 1e-6, Beta: 1e9}
	tests := []func(*Params){
		func(p *Params) { p.Ranks = 0 },
		func(p *Params) { p.Bytes = -1 },
		func(p *Params) { p.Bytes = math.NaN() },
		func(p *Params) { p.Beta = 0 },
		func(p *Params) { p.Alpha = -1 },
		func(p *Params) { p.Nodes = 3 },
		func(p *Params) { p.Collective = "allreduce2" },
		func(p *Params) { p.Algorithm = "magic" },
	}
	for i, mod := range tests {
		p := ok
		mod(&p)
		if _, err := Predict(p); !errors.Is(err, ErrParams) {
			t.Errorf("case %d: err = %v, want ErrParams", i, err)
		}
	}
}

func TestOneRankMovesNothing(t *testing.T) {
	c, err := Predict(Params{Collective: AllReduce, Algorithm: Tree, Ranks: 1, Bytes: 1e9, Alpha: 1e-6, Beta: 1e9})
	if err != nil || c.Time != 0 || c.AlgBW != 0 {
		t.Errorf("%+v %v", c, err)
	}
}

func TestProtocolAndChannels(t *testing.T) {
	p := Params{Collective: AllReduce, Algorithm: Ring, Ranks: 8, Bytes: 8e6, Alpha: 1e-6, Beta: 100e9}
	ideal, _ := Predict(p)
	p.Protocol = ProtoLL
	ll, _ := Predict(p)
	if !near(ll.BandwidthTerm, 2*ideal.BandwidthTerm, 1e-12) || !near(ll.LatencyTerm, 14*(1e-6+0.6e-6), 1e-12) {
		t.Errorf("LL: %g %g", ll.BandwidthTerm, ll.LatencyTerm)
	}
	p.Protocol = ProtoSimple
	p.Channels, p.ChannelBeta = 2, 20e9 // cap at 40 GB/s
	capped, _ := Predict(p)
	if !near(capped.BandwidthTerm, 1.75*8e6/40e9, 1e-12) || capped.Protocol != "Simple" {
		t.Errorf("channels cap: %g", capped.BandwidthTerm)
	}
}

func TestParseNames(t *testing.T) {
	for in, want := range map[string]Collective{"allreduce": AllReduce, "All_Reduce": AllReduce, "all-gather": AllGather,
		"alltoall": AllToAll, "sendrecv": SendRecv, "reduce_scatter": ReduceScatter, "bcast": Broadcast} {
		if got, err := ParseCollective(in); err != nil || got != want {
			t.Errorf("ParseCollective(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseCollective("allsum"); !errors.Is(err, ErrParams) {
		t.Error("ParseCollective(allsum) should fail")
	}
	for _, a := range Algorithms() {
		if got, err := ParseAlgorithm(string(a)); err != nil || got != a {
			t.Errorf("ParseAlgorithm(%q) = %q, %v", a, got, err)
		}
	}
	if _, err := ParseAlgorithm("auto"); err == nil {
		t.Error("auto is the tuner's, not an algorithm")
	}
	for _, s := range []string{"simple", "LL", "ll128", ""} {
		if _, err := ParseProtocol(s); err != nil {
			t.Errorf("ParseProtocol(%q): %v", s, err)
		}
	}
	if _, err := ParseProtocol("ll64"); err == nil {
		t.Error("ll64 should fail")
	}
}

func TestPresets(t *testing.T) {
	for _, l := range Links() {
		if l.Name == "" || l.Bandwidth.BytesPerSecond <= 0 || l.Source == "" {
			t.Errorf("link %+v incomplete", l)
		}
	}
	for _, tt := range []struct {
		name string
		gbps float64 // one way, GB/s
	}{{"pcie3x16", 15.7538}, {"pcie4x16", 31.5077}, {"pcie5x16", 63.0154}, {"pcie6x16", 121}, {"nvlink4-gpu", 450}, {"nvlink5-gpu", 900}, {"ib-ndr", 50}, {"ib-xdr", 100}, {"roce-400", 50}} {
		l, err := LinkByName(tt.name)
		if err != nil || !near(l.Beta()/1e9, tt.gbps, 1e-4) {
			t.Errorf("%s: %g GB/s, %v; want %g", tt.name, l.Beta()/1e9, err, tt.gbps)
		}
	}
	for _, n := range Nodes() {
		if n.GPUs == 0 || n.Intra.Name == "" || n.NIC.Name == "" || n.Source == "" || n.ComputeCapability == 0 {
			t.Errorf("node %s incomplete: %+v", n.Name, n)
		}
	}
	h, err := NodeByName("hgx-h200")
	if err != nil || h.InterBeta() != 50e9 || h.Intra.Beta() != 450e9 {
		t.Errorf("hgx-h200: %v %g %g", err, h.InterBeta(), h.Intra.Beta())
	}
	if _, err := NodeByName("dgx-z9000"); !errors.Is(err, ErrParams) {
		t.Error("unknown preset should fail")
	}
	p := h.Params(AllReduce, Hierarchical, 4, 1e9)
	if p.Ranks != 32 || p.Nodes != 4 || p.InterBeta != 50e9 {
		t.Errorf("Params: %+v", p)
	}
}
