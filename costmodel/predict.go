package costmodel

// This file is the alpha-beta model of one collective (Predict,
// Crossover): the latency and bandwidth terms per algorithm on one node
// and across nodes. The ring's and the trees' per-collective factors are
// one function each (ringFactors, treeAllReduceLoad, treeFan), shared by
// the one-node and the multi-node terms, so the two cannot drift apart.

import (
	"fmt"
	"math"
)

// Params describes one collective to model.
type Params struct {
	Collective Collective
	Algorithm  Algorithm
	// Ranks is n, the number of GPUs taking part.
	Ranks int
	// Nodes is the number of nodes the ranks spread over evenly; 0 or 1
	// means one node.
	Nodes int
	// Bytes is the message size as nccl-tests reports it: the larger of
	// the send and receive buffer of one rank (all_gather: the gathered
	// total; reduce_scatter: the input).
	Bytes float64 `unit:"B"`
	// Alpha (s) and Beta (bytes/s, one way, per rank) describe the link
	// inside a node, or the only link when there is one node.
	Alpha float64 `unit:"s"`
	Beta  float64 `unit:"B/s"`
	// InterAlpha and InterBeta describe the network between nodes, Beta
	// being each rank's share (a rail NIC per GPU gives the NIC's rate).
	// Zero means the same as Alpha and Beta. Over several nodes, rings and
	// trees pay InterAlpha only on the hops that leave a node and share
	// the node's NICs (Predict lists how); rhd and the binomial tree
	// scatter/gather still run every step at the slower of the two links.
	InterAlpha float64 `unit:"s"`
	InterBeta  float64 `unit:"B/s"`
	// Protocol scales Beta and adds latency per step; zero means ideal.
	Protocol Protocol
	// Channels and ChannelBeta cap the bandwidth a rank can drive at
	// Channels x ChannelBeta (NCCL's per-channel limits); zero means no cap.
	Channels    int
	ChannelBeta float64 `unit:"B/s"`
}

// Cost is the predicted cost of one collective, split so a reader can see
// which term dominates.
type Cost struct {
	Collective Collective
	Algorithm  Algorithm
	Protocol   string
	Ranks      int
	Nodes      int
	Bytes      float64 `unit:"B"`
	// Steps is the number of alpha terms on the critical path.
	Steps int
	// LatencyTerm is the sum of the alpha terms, in seconds.
	LatencyTerm float64 `unit:"s"`
	// BandwidthTerm is the sum of the size/beta terms, in seconds.
	BandwidthTerm float64 `unit:"s"`
	// Time = LatencyTerm + BandwidthTerm, in seconds.
	Time float64 `unit:"s"`
	// AlgBW = Bytes/Time and BusBW = AlgBW x BusBWFactor, bytes/s.
	AlgBW float64 `unit:"B/s"`
	BusBW float64 `unit:"B/s"`
	// Bound is "latency" or "bandwidth": whichever term is larger.
	Bound string
}

type link struct{ alpha, beta float64 }

func (p Params) links() (intra, inter link) {
	intra = link{p.Alpha + p.Protocol.HopLatency, p.Beta}
	inter = link{p.InterAlpha, p.InterBeta}
	if inter.alpha == 0 {
		inter.alpha = p.Alpha
	}
	if inter.beta == 0 {
		inter.beta = p.Beta
	}
	inter.alpha += p.Protocol.HopLatency
	eff := p.Protocol.Efficiency
	if eff <= 0 || eff > 1 {
		eff = 1
	}
	intra.beta *= eff
	inter.beta *= eff
	if p.Channels > 0 && p.ChannelBeta > 0 {
		limit := float64(p.Channels) * p.ChannelBeta
		intra.beta = math.Min(intra.beta, limit)
		inter.beta = math.Min(inter.beta, limit)
	}
	return intra, inter
}

func (p Params) validate() error {
	switch {
	case p.Ranks < 1:
		return fmt.Errorf("%w: ranks %d, need at least 1", ErrParams, p.Ranks)
	case p.Bytes < 0 || math.IsNaN(p.Bytes) || math.IsInf(p.Bytes, 0):
		return fmt.Errorf("%w: size %v bytes", ErrParams, p.Bytes)
	case !(p.Beta > 0) || math.IsInf(p.Beta, 0):
		return fmt.Errorf("%w: bandwidth %v bytes/s, need > 0", ErrParams, p.Beta)
	case p.Alpha < 0 || p.InterAlpha < 0 || p.InterBeta < 0 || math.IsNaN(p.Alpha):
		return fmt.Errorf("%w: negative latency or bandwidth", ErrParams)
	case p.Nodes < 0 || (p.Nodes > 1 && p.Ranks%p.Nodes != 0):
		return fmt.Errorf("%w: %d ranks do not spread evenly over %d nodes", ErrParams, p.Ranks, p.Nodes)
	}
	return nil
}

// Predict returns the cost of one collective under the alpha-beta model.
// Formulas on one node, with n ranks, S bytes, alpha and beta of the link
// (per rank, full duplex), L = ceil(log2 n) and h = L, the depth of NCCL's
// binary tree of n ranks (NCCLBinaryTree; its root has one child):
//
//	ring     all_reduce 2(n-1) a + 2(n-1)/n S/b; all_gather, reduce_scatter,
//	         all_to_all (pairwise), scatter, gather (n-1) a + (n-1)/n S/b;
//	         broadcast, reduce (pipelined chain) (n-1) a + S/b;
//	         send/recv a + S/b
//	tree     pipelined binary tree: broadcast, reduce h a + 2 S/b;
//	         all_reduce 2h a + 3 S/b (an inner node sends S up and 2S down);
//	         scatter, gather (binomial) L a + (n-1)/n S/b
//	dbtree   two complementary trees, each half the data (NCCLDoubleTree):
//	         broadcast, reduce h a + S/b; all_reduce 2h a + 2 S/b (1.5 S/b
//	         for n = 3, where no rank is inner in both trees with two
//	         children)
//	rhd      Rabenseifner all_reduce 2 log2(p) a + 2(p-1)/p S/b with p the
//	         largest power of two <= n, plus 2(a + S/b) when n != p;
//	         recursive halving / doubling reduce_scatter, all_gather;
//	         broadcast and reduce as scatter + all_gather; Bruck all_to_all
//	         L a + L S/(2b)
//	nvls     NVLink SHARP in one node: all_reduce 2a + (n+1)/n S/b
//
// Across m > 1 nodes of g = n/m GPUs, a and b being the link inside a node
// and a' and b' each rank's share of the network (InterAlpha, InterBeta),
// k = min(m, n-1) and H = ceil(log2 m), the depth of NCCL's tree of nodes:
//
//	ring     NCCL runs one ring per NIC and only node-boundary hops cross
//	         the network: g rings share each GPU's b and each has one NIC,
//	         so B = min(b, g b'). all_reduce (2(n-1)-2k) a + 2k a' +
//	         2(n-1)/n S/B; all_gather, reduce_scatter (n-1-k) a + k a' +
//	         (n-1)/n S/B; broadcast, reduce that latency + S/B; scatter,
//	         gather that latency + (n-1)/n S/min(b, b') (the root's one
//	         port); all_to_all (pairwise exchange) (g-1) a + (n-g) a' +
//	         (g-1)/n S/b + (n-g)/n S/b' (the rank's own NIC);
//	         send/recv a' + S/b'
//	tree,    as NCCL builds them: a chain inside each node, a binary (or
//	dbtree   double binary) tree of nodes. all_reduce 2((g-1) a + H a') +
//	         max(2 S/b, l S/(g b')), node egress over its g NICs with
//	         l = 3 for tree and 2 for dbtree (a dbtree node is inner in one
//	         tree and a leaf in the other; l = 1 for m = 2, 2 for a tree
//	         and 1.5 for a dbtree of m = 3); broadcast, reduce (g-1) a + H a' + max(S/b, f S/(g b'))
//	         with f = min(2, m-1) for tree, 1 for dbtree; no S/b term when
//	         g = 1
//	rhd      and the binomial tree scatter/gather: the one-node formulas
//	         with every step at the slower link, max(a, a') and min(b, b')
//	hier     intra reduce_scatter, inter ring on S/g per rail, intra
//	         all_gather (and the analogues), one phase after another
//	collnet  in-network reduction between nodes: intra reduce_scatter and
//	         all_gather plus 2a' + (S/g)/b' through the switch
//	nvls     one node only
//
// Combinations that do not exist return an error wrapping ErrUnsupported.
func Predict(p Params) (Cost, error) {
	if err := p.validate(); err != nil {
		return Cost{}, err
	}
	steps, lat, bw, err := terms(p)
	if err != nil {
		return Cost{}, err
	}
	if p.Ranks == 1 && p.Collective != SendRecv {
		steps, lat, bw = 0, 0, 0 // one rank has nothing to move
	}
	c := Cost{
		Collective: p.Collective, Algorithm: p.Algorithm, Protocol: p.Protocol.Name,
		Ranks: p.Ranks, Nodes: max(p.Nodes, 1), Bytes: p.Bytes,
		Steps: steps, LatencyTerm: lat, BandwidthTerm: bw, Time: lat + bw,
	}
	if c.Time > 0 {
		c.AlgBW = p.Bytes / c.Time
		c.BusBW = c.AlgBW * BusBWFactor(p.Collective, p.Ranks)
	}
	c.Bound = "bandwidth"
	if lat > bw {
		c.Bound = "latency"
	}
	return c, nil
}

// Crossover returns the message size in bytes at which p's latency term
// equals its bandwidth term, for p's collective under p's algorithm,
// protocol, channels and nodes; p.Bytes is ignored. Smaller messages are
// latency-bound, larger ones bandwidth-bound. A ring all_reduce on one node
// crosses over where 2(n-1) a = 2(n-1)/n S/b, at S = n a b; a send/recv at
// AlphaBeta's a b. One rank has no crossover: it moves nothing.
func Crossover(p Params) (float64, error) {
	if p.Ranks == 1 && p.Collective != SendRecv {
		return 0, fmt.Errorf("%w: one rank moves nothing, so %s has no crossover", ErrParams, p.Collective)
	}
	// Both terms are affine in S: read them at 0 and at a power of two,
	// which divides exactly.
	const ref = 1 << 30
	p.Bytes = 0
	if err := p.validate(); err != nil {
		return 0, err
	}
	_, lat0, bw0, err := terms(p)
	if err != nil {
		return 0, err
	}
	p.Bytes = ref
	_, lat1, bw1, err := terms(p)
	if err != nil {
		return 0, err
	}
	grow := (bw1-bw0)/ref - (lat1-lat0)/ref
	if !(grow > 0) || math.IsInf(grow, 0) {
		return 0, fmt.Errorf("%w: the bandwidth term of %s %s does not grow faster than its latency term, so they never cross", ErrParams, p.Algorithm, p.Collective)
	}
	return math.Max(0, (lat0-bw0)/grow), nil
}

func unsupported(p Params, why string) error {
	return fmt.Errorf("%w: %s %s: %s", ErrUnsupported, p.Algorithm, p.Collective, why)
}

// terms returns the number of alpha steps, the latency term and the
// bandwidth term in seconds.
func terms(p Params) (int, float64, float64, error) {
	n := p.Ranks
	nf := float64(n)
	S := p.Bytes
	nodes := max(p.Nodes, 1)
	intra, inter := p.links()
	flat := intra
	if nodes > 1 {
		flat = link{math.Max(intra.alpha, inter.alpha), math.Min(intra.beta, inter.beta)}
	}
	if p.Collective == SendRecv {
		if p.Algorithm != Ring {
			return 0, 0, 0, unsupported(p, "a send/recv is one point-to-point transfer; use ring (direct)")
		}
		l := intra
		if nodes > 1 {
			l = inter
		}
		return 1, l.alpha, S / l.beta, nil
	}
	if !knownCollective(p.Collective) {
		return 0, 0, 0, fmt.Errorf("%w: unknown collective %q", ErrParams, p.Collective)
	}
	if nodes > 1 {
		switch p.Algorithm {
		case Ring:
			if steps, lat, bw, ok := ringAcrossNodes(p.Collective, n, nodes, S, intra, inter); ok {
				return steps, lat, bw, nil
			}
		case Tree, DoubleBinaryTree:
			if steps, lat, bw, ok := treeAcrossNodes(p.Collective, p.Algorithm, n, nodes, S, intra, inter); ok {
				return steps, lat, bw, nil
			}
		}
	}
	a, b := flat.alpha, flat.beta
	// NCCL's binary tree over n ranks is ceil(log2 n) deep: its root, rank
	// 0, has a single child (trees.cc; NCCLBinaryTree), so h = L.
	h := float64(ceilLog2(n))
	L := float64(ceilLog2(n))
	switch p.Algorithm {
	case Ring:
		if passes, data, ok := ringFactors(p.Collective, n); ok {
			return passes * (n - 1), float64(passes) * (nf - 1) * a, data * S / b, nil
		}
		// all_to_all (pairwise), scatter and gather: n-1 steps, each rank's
		// share of the others' data.
		return n - 1, (nf - 1) * a, (nf - 1) / nf * S / b, nil
	case Tree, DoubleBinaryTree:
		switch p.Collective {
		case Broadcast, Reduce:
			return int(h), h * a, treeFan(p.Algorithm, n) * S / b, nil
		case AllReduce:
			return 2 * int(h), 2 * h * a, treeAllReduceLoad(p.Algorithm, n) * S / b, nil
		case Scatter, Gather:
			if p.Algorithm == Tree {
				return int(L), L * a, (nf - 1) / nf * S / b, nil
			}
		}
		if p.Algorithm == Tree {
			return 0, 0, 0, unsupported(p, "trees serve broadcast, reduce, all_reduce, scatter and gather")
		}
		return 0, 0, 0, unsupported(p, "the double binary tree serves broadcast, reduce and all_reduce")
	case RecursiveHalvingDoubling:
		pw := 1 << floorLog2(n)
		pf := float64(pw)
		lp := float64(floorLog2(n))
		extraSteps, extraLat, extraBW := 0, 0.0, 0.0
		if pw != n {
			extraSteps, extraLat, extraBW = 2, 2*a, 2*S/b
		}
		switch p.Collective {
		case AllReduce:
			return 2*int(lp) + extraSteps, 2*lp*a + extraLat, 2*(pf-1)/pf*S/b + extraBW, nil
		case ReduceScatter, AllGather:
			return int(lp) + extraSteps/2, lp*a + extraLat/2, (pf-1)/pf*S/b + extraBW/2, nil
		case Broadcast, Reduce:
			return 2 * int(L), 2 * L * a, 2 * (nf - 1) / nf * S / b, nil
		case Scatter, Gather:
			return int(L), L * a, (nf - 1) / nf * S / b, nil
		case AllToAll:
			return int(L), L * a, L * S / (2 * b), nil
		}
	case Hierarchical:
		if nodes < 2 {
			return 0, 0, 0, unsupported(p, "two-level needs at least 2 nodes")
		}
		g := n / nodes
		gf, mf := float64(g), float64(nodes)
		a1, b1, a2, b2 := intra.alpha, intra.beta, inter.alpha, inter.beta
		switch p.Collective {
		case AllReduce:
			return 2*(g-1) + 2*(nodes-1), 2*(gf-1)*a1 + 2*(mf-1)*a2,
				2*(gf-1)/gf*S/b1 + 2*(mf-1)/mf*(S/gf)/b2, nil
		case AllGather, ReduceScatter:
			return (g - 1) + (nodes - 1), (gf-1)*a1 + (mf-1)*a2,
				(gf-1)/gf*S/b1 + (mf-1)/mf*(S/gf)/b2, nil
		case Broadcast, Reduce:
			return 2*(g-1) + (nodes - 1), 2*(gf-1)*a1 + (mf-1)*a2,
				2*(gf-1)/gf*S/b1 + (S/gf)/b2, nil
		case AllToAll:
			return (g - 1) + (nodes - 1), (gf-1)*a1 + (mf-1)*a2,
				(gf-1)/nf*S/b1 + (nf-gf)/nf*S/b2, nil
		}
		return 0, 0, 0, unsupported(p, "two-level serves all_reduce, all_gather, reduce_scatter, broadcast, reduce and all_to_all")
	case NVLS:
		if nodes > 1 {
			return 0, 0, 0, unsupported(p, "NVLS reduces inside one NVLink domain; across nodes use hier or collnet")
		}
		switch p.Collective {
		case AllReduce:
			return 2, 2 * intra.alpha, (nf + 1) / nf * S / intra.beta, nil
		case ReduceScatter, AllGather, Broadcast, Reduce:
			return 1, intra.alpha, S / intra.beta, nil
		}
		return 0, 0, 0, unsupported(p, "NVLS serves all_reduce, reduce_scatter, all_gather, broadcast and reduce")
	case CollNet:
		if nodes < 2 {
			return 0, 0, 0, unsupported(p, "CollNet reduces in the network switch, so it needs at least 2 nodes")
		}
		if p.Collective != AllReduce {
			return 0, 0, 0, unsupported(p, "CollNet is modelled for all_reduce only")
		}
		g := n / nodes
		gf := float64(g)
		return 2*(g-1) + 2, 2*(gf-1)*intra.alpha + 2*inter.alpha,
			2*(gf-1)/gf*S/intra.beta + (S/gf)/inter.beta, nil
	default:
		return 0, 0, 0, fmt.Errorf("%w: unknown algorithm %q", ErrParams, p.Algorithm)
	}
	return 0, 0, 0, unsupported(p, "no such combination")
}

// ringAcrossNodes models NCCL's rings over m > 1 nodes: one ring per NIC,
// so a node of g GPUs runs g rings, each with one NIC for its boundary hop
// and a 1/g share of every GPU's intra bandwidth; only the boundary hops
// pay the network latency. ok is false for collectives it does not cover.
func ringAcrossNodes(c Collective, n, m int, S float64, intra, inter link) (steps int, lat, bw float64, ok bool) {
	nf, g := float64(n), n/m
	gf := float64(g)
	B := math.Min(intra.beta, gf*inter.beta)
	k := min(m, n-1) // boundary hops in one pass; all of them when g = 1
	pass := float64(n-1-k)*intra.alpha + float64(k)*inter.alpha
	if passes, data, ok := ringFactors(c, n); ok {
		return passes * (n - 1), float64(passes) * pass, data * S / B, true
	}
	switch c {
	case Scatter, Gather:
		// Every byte leaves (or reaches) the root through its own port.
		return n - 1, pass, (nf - 1) / nf * S / math.Min(intra.beta, inter.beta), true
	case AllToAll:
		// Pairwise exchange, not a ring: the node's peers over the intra
		// link, everyone else through the rank's own NIC.
		return n - 1, (gf-1)*intra.alpha + (nf-gf)*inter.alpha,
			(gf-1)/nf*S/intra.beta + (nf-gf)/nf*S/inter.beta, true
	}
	return 0, 0, 0, false
}

// treeAcrossNodes models NCCL's trees over m > 1 nodes: a chain through
// the g GPUs of each node and a binary (or double binary) tree of nodes,
// whose traffic leaves a node through its g NICs. ok is false for
// collectives it does not cover.
func treeAcrossNodes(c Collective, alg Algorithm, n, m int, S float64, intra, inter link) (steps int, lat, bw float64, ok bool) {
	g := n / m
	H := ceilLog2(m) // the depth of NCCL's tree of m nodes
	chain := float64(g-1)*intra.alpha + float64(H)*inter.alpha
	nics := float64(g) * inter.beta
	// Each GPU of the chain forwards every byte once per phase; a node of
	// one GPU has no chain.
	perGPU := S / intra.beta
	if g == 1 {
		perGPU = 0
	}
	switch c {
	case AllReduce:
		return 2 * (g - 1 + H), 2 * chain, math.Max(2*perGPU, treeAllReduceLoad(alg, m)*S/nics), true
	case Broadcast, Reduce:
		return g - 1 + H, chain, math.Max(perGPU, treeFan(alg, m)*S/nics), true
	}
	return 0, 0, 0, false
}

// ringFactors are the ring's terms of the collectives a ring runs as
// passes around it: the passes (each n-1 steps) and the data each rank
// moves, as a multiple of S. ok is false for the collectives a ring does
// not run in passes (all_to_all, scatter, gather, send/recv).
func ringFactors(c Collective, n int) (passes int, data float64, ok bool) {
	nf := float64(n)
	switch c {
	case AllReduce:
		return 2, 2 * (nf - 1) / nf, true
	case AllGather, ReduceScatter:
		return 1, (nf - 1) / nf, true
	case Broadcast, Reduce:
		return 1, 1, true
	}
	return 0, 0, false
}

// treeAllReduceLoad is the data, as a multiple of S, that the busiest
// member of NCCL's tree of k members (ranks on one node, nodes across
// several) sends in an all_reduce: an inner member of a binary tree sends
// S up and 2S down; a double binary tree member is inner in one tree and a
// leaf in the other (NCCLDoubleTree: 2S from k = 4 on). Two and three
// members have no such inner member.
func treeAllReduceLoad(alg Algorithm, k int) float64 {
	switch {
	case k == 2:
		return 1
	case k == 3 && alg == Tree:
		return 2
	case k == 3:
		return 1.5
	case alg == DoubleBinaryTree:
		return 2
	}
	return 3
}

// treeFan is the data, as a multiple of S, that an inner member of NCCL's
// tree of k members sends in a broadcast (or receives in a reduce): one
// copy per child; each double binary tree carries half the data, so 1.
func treeFan(alg Algorithm, k int) float64 {
	if alg == DoubleBinaryTree {
		return 1
	}
	return math.Min(2, float64(k-1))
}

func floorLog2(n int) int {
	l := 0
	for n > 1 {
		n >>= 1
		l++
	}
	return l
}

func ceilLog2(n int) int {
	l := floorLog2(n)
	if 1<<l < n {
		l++
	}
	return l
}
