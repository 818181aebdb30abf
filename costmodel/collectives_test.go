package costmodel

import (
	"errors"
	"math"
	"strings"
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
	for _, tc := range []struct {
		alg   Algorithm
		nodes int
	}{{Ring, 1}, {RecursiveHalvingDoubling, 1}, {Hierarchical, 2}, {Ring, 2}} {
		for _, n := range []int{2, 4, 8, 16, 64} {
			alg, nodes := tc.alg, tc.nodes
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

func TestCrossover(t *testing.T) {
	const a, b = 5e-6, 25e9
	tests := []struct {
		name string
		p    Params
		want float64
	}{
		// 2(n-1) a = 2(n-1)/n S/b at S = n a b = 8 x 5e-6 x 25e9.
		{"ring all_reduce", Params{Collective: AllReduce, Algorithm: Ring, Ranks: 8}, 1e6},
		// (n-1) a = (n-1)/n S/b: the same n a b.
		{"ring all_gather", Params{Collective: AllGather, Algorithm: Ring, Ranks: 8}, 8 * a * b},
		// (n-1) a = S/b: 7 a b.
		{"ring broadcast", Params{Collective: Broadcast, Algorithm: Ring, Ranks: 8}, 7 * a * b},
		// One message: alpha beta, as AlphaBeta.Crossover.
		{"sendrecv", Params{Collective: SendRecv, Algorithm: Ring, Ranks: 2}, a * b},
		// 2 log2(8) a = 2 S/b: 3 a b.
		{"dbtree all_reduce", Params{Collective: AllReduce, Algorithm: DoubleBinaryTree, Ranks: 8}, 3 * a * b},
		// LL: alpha + 0.6 us per step, half the bandwidth: n (a+0.6us) b/2.
		{"ring all_reduce LL", Params{Collective: AllReduce, Algorithm: Ring, Ranks: 8, Protocol: ProtoLL}, 8 * (a + 0.6e-6) * b / 2},
		// Two nodes of 4, network 10 us and 5 GB/s per GPU: 14 steps, 4
		// of them across (k = 2 per pass), B = min(25, 4 x 5) = 20 GB/s:
		// 10 a + 4 x 10 us = 2 x 7/8 S / 20e9.
		{"ring all_reduce 2 nodes", Params{Collective: AllReduce, Algorithm: Ring, Ranks: 8, Nodes: 2, InterAlpha: 10e-6, InterBeta: 5e9},
			(10*a + 4*10e-6) / (1.75 / 20e9)},
	}
	for _, tt := range tests {
		p := tt.p
		p.Alpha, p.Beta, p.Bytes = a, b, 12345 // Bytes is ignored
		got, err := Crossover(p)
		if err != nil || !near(got, tt.want, 1e-12) {
			t.Errorf("%s: Crossover = %v, %v; want %v", tt.name, got, err, tt.want)
			continue
		}
		p.Bytes = got
		c, err := Predict(p)
		if err != nil || !near(c.LatencyTerm, c.BandwidthTerm, 1e-12) {
			t.Errorf("%s: at %v bytes the terms are %g and %g", tt.name, got, c.LatencyTerm, c.BandwidthTerm)
		}
	}
	// The chapter's number comes out exactly, not to rounding.
	if got, _ := Crossover(Params{Collective: AllReduce, Algorithm: Ring, Ranks: 8, Alpha: a, Beta: b}); got != 1e6 {
		t.Errorf("ring all_reduce on 8 GPUs: %v, want exactly 1e6", got)
	}
	if got := (AlphaBeta{Alpha: a, Beta: b}).Crossover(); !near(got, a*b, 1e-15) {
		t.Errorf("AlphaBeta.Crossover = %v", got)
	}

	errs := []struct {
		p    Params
		want error
	}{
		{Params{Collective: AllReduce, Algorithm: Ring, Ranks: 1}, ErrParams}, // one rank moves nothing
		{Params{Collective: AllReduce, Algorithm: Ring, Ranks: 0}, ErrParams},
		{Params{Collective: AllGather, Algorithm: Tree, Ranks: 8}, ErrUnsupported},
	}
	for _, tt := range errs {
		p := tt.p
		p.Alpha, p.Beta = a, b
		if _, err := Crossover(p); !errors.Is(err, tt.want) {
			t.Errorf("%s %s n=%d: err = %v, want %v", p.Algorithm, p.Collective, p.Ranks, err, tt.want)
		}
	}
	if _, err := Crossover(Params{Collective: AllReduce, Algorithm: Ring, Ranks: 1, Alpha: a, Beta: b}); err == nil ||
		!strings.Contains(err.Error(), "one rank") {
		t.Errorf("one rank: %v", err)
	}
}

// Rings and trees over m nodes of g = n/m GPUs, worked by hand from the
// formulas in Predict's doc: alpha 1 us and beta 100 GB/s inside a node,
// 10 us and 20 GB/s per GPU between nodes, S = 8 MB. m = 1 is the one-node
// formula (the network numbers unused); a ring's boundary hops are
// k = min(m, n-1) per pass and its bandwidth B = min(b, g b').
func TestPredictAcrossNodes(t *testing.T) {
	const a1, a2, b1, b2, S = 1e-6, 10e-6, 100e9, 20e9, 8e6
	tests := []struct {
		c           Collective
		alg         Algorithm
		n, m        int
		steps       int
		lat, bwTerm float64
	}{
		// Ring all_reduce: 14 steps; 2k of them cross; B = 80 / 40 GB/s.
		{AllReduce, Ring, 8, 1, 14, 14 * a1, 1.75 * S / b1},
		{AllReduce, Ring, 8, 2, 14, 10*a1 + 4*a2, 1.75 * S / (4 * b2)},
		{AllReduce, Ring, 8, 4, 14, 6*a1 + 8*a2, 1.75 * S / (2 * b2)},
		// Eight GPUs per node and 160 GB/s of NICs: NVLink-bound again.
		{AllReduce, Ring, 16, 2, 30, 26*a1 + 4*a2, 30.0 / 16 * S / b1},
		// One GPU per node: every hop crosses, at the NIC's rate.
		{AllReduce, Ring, 4, 4, 6, 6 * a2, 1.5 * S / b2},
		{AllGather, Ring, 8, 1, 7, 7 * a1, 0.875 * S / b1},
		{AllGather, Ring, 8, 2, 7, 5*a1 + 2*a2, 0.875 * S / (4 * b2)},
		{ReduceScatter, Ring, 8, 4, 7, 3*a1 + 4*a2, 0.875 * S / (2 * b2)},
		{Broadcast, Ring, 8, 1, 7, 7 * a1, S / b1},
		{Broadcast, Ring, 8, 2, 7, 5*a1 + 2*a2, S / (4 * b2)},
		{Reduce, Ring, 8, 4, 7, 3*a1 + 4*a2, S / (2 * b2)},
		// Scatter and gather keep the root's one port at the slower link.
		{Scatter, Ring, 8, 1, 7, 7 * a1, 0.875 * S / b1},
		{Scatter, Ring, 8, 2, 7, 5*a1 + 2*a2, 0.875 * S / b2},
		{Gather, Ring, 8, 4, 7, 3*a1 + 4*a2, 0.875 * S / b2},
		// Pairwise all_to_all: g-1 peers in the node, n-g through the NIC.
		{AllToAll, Ring, 8, 1, 7, 7 * a1, 0.875 * S / b1},
		{AllToAll, Ring, 8, 2, 7, 3*a1 + 4*a2, 3.0/8*S/b1 + 4.0/8*S/b2},
		{AllToAll, Ring, 8, 4, 7, a1 + 6*a2, 1.0/8*S/b1 + 6.0/8*S/b2},
		// Tree all_reduce: chain of g-1 hops, ceil(log2 m) network levels,
		// up and down; max(2S/b, l S/(g b')) with l = 1 at m = 2, 3 above.
		{AllReduce, Tree, 8, 1, 6, 6 * a1, 3 * S / b1},
		{AllReduce, Tree, 8, 2, 8, 2 * (3*a1 + a2), math.Max(2*S/b1, 1*S/(4*b2))},
		{AllReduce, Tree, 8, 4, 6, 2 * (a1 + 2*a2), math.Max(2*S/b1, 3*S/(2*b2))},
		{AllReduce, Tree, 24, 3, 2 * (7 + 2), 2 * (7*a1 + 2*a2), math.Max(2*S/b1, 2*S/(8*b2))},
		// One GPU per node: no chain, the one-node tree on the network.
		{AllReduce, Tree, 4, 4, 4, 4 * a2, 3 * S / b2},
		{AllReduce, DoubleBinaryTree, 8, 1, 6, 6 * a1, 2 * S / b1},
		{AllReduce, DoubleBinaryTree, 8, 2, 8, 2 * (3*a1 + a2), math.Max(2*S/b1, 1*S/(4*b2))},
		{AllReduce, DoubleBinaryTree, 8, 4, 6, 2 * (a1 + 2*a2), math.Max(2*S/b1, 2*S/(2*b2))},
		// Broadcast and reduce: one pass; a tree node feeds min(2, m-1)
		// children, a dbtree node sends S in all.
		{Broadcast, Tree, 8, 1, 3, 3 * a1, 2 * S / b1},
		{Broadcast, Tree, 8, 2, 4, 3*a1 + a2, math.Max(S/b1, 1*S/(4*b2))},
		{Reduce, Tree, 8, 4, 3, a1 + 2*a2, math.Max(S/b1, 2*S/(2*b2))},
		{Broadcast, DoubleBinaryTree, 8, 1, 3, 3 * a1, S / b1},
		{Reduce, DoubleBinaryTree, 8, 2, 4, 3*a1 + a2, math.Max(S/b1, S/(4*b2))},
		{Broadcast, DoubleBinaryTree, 8, 4, 3, a1 + 2*a2, math.Max(S/b1, S/(2*b2))},
		// Still flat, every step at the slower link: rhd, binomial
		// scatter/gather; send/recv goes over the network.
		{AllReduce, RecursiveHalvingDoubling, 8, 1, 6, 6 * a1, 1.75 * S / b1},
		{AllReduce, RecursiveHalvingDoubling, 8, 4, 6, 6 * a2, 1.75 * S / b2},
		{Gather, Tree, 8, 2, 3, 3 * a2, 0.875 * S / b2},
		{SendRecv, Ring, 8, 2, 1, a2, S / b2},
	}
	for _, tt := range tests {
		c, err := Predict(Params{Collective: tt.c, Algorithm: tt.alg, Ranks: tt.n, Nodes: tt.m, Bytes: S,
			Alpha: a1, Beta: b1, InterAlpha: a2, InterBeta: b2})
		if err != nil {
			t.Errorf("%s %s n=%d m=%d: %v", tt.alg, tt.c, tt.n, tt.m, err)
			continue
		}
		if c.Steps != tt.steps || !near(c.LatencyTerm, tt.lat, 1e-12) || !near(c.BandwidthTerm, tt.bwTerm, 1e-12) {
			t.Errorf("%s %s n=%d m=%d: steps %d lat %g bw %g; want %d %g %g", tt.alg, tt.c, tt.n, tt.m,
				c.Steps, c.LatencyTerm, c.BandwidthTerm, tt.steps, tt.lat, tt.bwTerm)
		}
	}
}

// Issue 13: a ring all_reduce over 32 hgx-h100 nodes (256 GPUs, 1 GiB)
// used the network for every one of its 510 steps, 7.14 ms of latency and
// 50 GB/s of bandwidth, busbw 42.85 GB/s. With one ring per NIC:
//
//	latency   (510 - 64) x 3.4 us + 64 x 14 us = 1516.4 + 896 = 2412.4 us
//	bandwidth 510/256 x 2^30 B / min(450, 8 x 50) GB/s         = 5.348 ms
//
// 446 NVLink hops still cost 1.5 ms: at 256 ranks a ring's latency is
// milliseconds, and NCCL's own table agrees (its Ring/Simple cell is
// 8.4 + 448 x 3.4 + 62 x 14 = 2399.6 us, times 1.4 for large messages
// across nodes), which is why NCCL picks Tree there.
func TestRingAcrossNodesAgreesWithTuner(t *testing.T) {
	node, err := NodeByName("hgx-h100")
	if err != nil {
		t.Fatal(err)
	}
	const S = 1 << 30
	const n, m, g = 256, 32, 8
	a1, a2, b1, b2 := 3.4e-6, 14e-6, 450e9, 50e9
	c, err := Predict(node.Params(AllReduce, Ring, m, S))
	if err != nil {
		t.Fatal(err)
	}
	lat := float64(2*(n-1)-2*m)*a1 + float64(2*m)*a2
	bw := 2.0 * (n - 1) / n * S / math.Min(b1, g*b2)
	bus := S / (lat + bw) * 2 * (n - 1) / n
	if !near(c.LatencyTerm, lat, 1e-12) || !near(c.BandwidthTerm, bw, 1e-12) || !near(c.BusBW, bus, 1e-12) {
		t.Errorf("terms %g + %g, busbw %g; want %g + %g, %g", c.LatencyTerm, c.BandwidthTerm, c.BusBW, lat, bw, bus)
	}
	oldLat := 2 * (n - 1) * a2 // every step at the slower link
	oldBus := S / (oldLat + 2.0*(n-1)/n*S/b2) * 2 * (n - 1) / n
	if c.LatencyTerm > oldLat/2 || c.BusBW < 6*oldBus {
		t.Errorf("latency %g (flat %g), busbw %g (flat %g)", c.LatencyTerm, oldLat, c.BusBW, oldBus)
	}

	T, err := Tune(NCCLTopology(node, m, "2.23"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := T.Force(AllReduce, S, "Ring", "Simple")
	if err != nil {
		t.Fatal(err)
	}
	tunerBus := S / (f.Forced.TimeUs * 1e-6) * 2 * (n - 1) / n
	if r := c.BusBW / tunerBus; r < 1/1.25 || r > 1.25 {
		t.Errorf("textbook busbw %.1f GB/s, tuner's forced Ring/Simple %.1f GB/s: ratio %.3f", c.BusBW/1e9, tunerBus/1e9, r)
	}
	if r := c.LatencyTerm / (f.Forced.LatencyUs * 1e-6); r < 0.9 || r > 1.1 {
		t.Errorf("latency %g s, tuner's Ring/Simple cell %g us", c.LatencyTerm, f.Forced.LatencyUs)
	}
	// NCCL's tree (Tree/Simple is its pick here) and the textbook dbtree:
	// 2 (7 x 3.4 + 5 x 14) us and max(2 S/450, 2 S/(8 x 50)) GB/s.
	d, _ := Predict(node.Params(AllReduce, DoubleBinaryTree, m, S))
	dLat := 2 * (7*a1 + 5*a2)
	dBW := math.Max(2*S/b1, 2*S/(g*b2))
	if !near(d.LatencyTerm, dLat, 1e-12) || !near(d.BandwidthTerm, dBW, 1e-12) {
		t.Errorf("dbtree: %g + %g, want %g + %g", d.LatencyTerm, d.BandwidthTerm, dLat, dBW)
	}
	pick, _ := T.Pick(AllReduce, S)
	pickBus := S / (pick.TimeUs * 1e-6) * 2 * (n - 1) / n
	if pick.Algorithm != "Tree" || d.BusBW/pickBus < 1/1.25 || d.BusBW/pickBus > 1.25 {
		t.Errorf("dbtree busbw %.1f GB/s, tuner's %s/%s %.1f GB/s", d.BusBW/1e9, pick.Algorithm, pick.Protocol, pickBus/1e9)
	}
}

// The two-level scheme runs its phases one after another: an intra
// reduce_scatter, a ring over the nodes on S/g, an intra all_gather. Its
// bandwidth terms add, 2(g-1)/g S/b + 2(m-1)/m S/(g b'), where NCCL's
// rings overlap the NVLink and network hops and pay only the larger,
// 2(n-1)/n S/min(b, g b'). So for large messages the ring is now the
// faster of the two (on hgx-h100 at 32 nodes and 1 GiB: 4.18 + 5.20 ms of
// bandwidth against 5.35), while hier keeps the smaller latency, 2(g-1)
// intra and 2(m-1) network steps against the ring's 2(n-1), and wins for
// small messages.
func TestHierVersusRingAcrossNodes(t *testing.T) {
	node, _ := NodeByName("hgx-h100")
	for _, m := range []int{2, 4, 32} {
		g, n := node.GPUs, node.GPUs*m
		S := float64(1 << 30)
		ring, err1 := Predict(node.Params(AllReduce, Ring, m, S))
		hier, err2 := Predict(node.Params(AllReduce, Hierarchical, m, S))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		hierBW := 2*float64(g-1)/float64(g)*S/450e9 + 2*float64(m-1)/float64(m)*S/float64(g)/50e9
		ringBW := 2 * float64(n-1) / float64(n) * S / math.Min(450e9, float64(g)*50e9)
		if !near(hier.BandwidthTerm, hierBW, 1e-12) || !near(ring.BandwidthTerm, ringBW, 1e-12) {
			t.Errorf("m=%d: hier %g ring %g, want %g %g", m, hier.BandwidthTerm, ring.BandwidthTerm, hierBW, ringBW)
		}
		if ring.Time >= hier.Time {
			t.Errorf("m=%d, 1 GiB: ring %g s, hier %g s; the ring should win large messages", m, ring.Time, hier.Time)
		}
		if hier.LatencyTerm >= ring.LatencyTerm {
			t.Errorf("m=%d: hier latency %g, ring %g", m, hier.LatencyTerm, ring.LatencyTerm)
		}
		small := 64e3
		ring, _ = Predict(node.Params(AllReduce, Ring, m, small))
		hier, _ = Predict(node.Params(AllReduce, Hierarchical, m, small))
		if hier.Time >= ring.Time {
			t.Errorf("m=%d, 64 KB: hier %g s, ring %g s; hier should win small messages", m, hier.Time, ring.Time)
		}
	}
}
