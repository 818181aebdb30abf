package costmodel

// This file names what the model prices: the primitives (Collective),
// the algorithms and the protocols, with the spellings each accepts, and
// nccl-tests' bus-bandwidth factor.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/commlab/commlab/units"
)

// ErrUnsupported is returned (wrapped) when an algorithm does not apply to
// a collective or to the topology asked for, e.g. a tree all_gather or NVLS
// across nodes.
var ErrUnsupported = errors.New("costmodel: algorithm does not apply")

// ErrParams is returned (wrapped) for parameters that cannot be modelled:
// no ranks, a negative size, a zero bandwidth.
var ErrParams = errors.New("costmodel: bad parameters")

// Collective names a communication primitive, spelled as nccl-tests does.
type Collective string

// The primitives.
const (
	Broadcast     Collective = "broadcast"
	Reduce        Collective = "reduce"
	AllReduce     Collective = "all_reduce"
	AllGather     Collective = "all_gather"
	ReduceScatter Collective = "reduce_scatter"
	AllToAll      Collective = "all_to_all"
	Scatter       Collective = "scatter"
	Gather        Collective = "gather"
	SendRecv      Collective = "sendrecv"
)

// Collectives lists every primitive in the order the chapters show them.
func Collectives() []Collective {
	return []Collective{Broadcast, Reduce, AllReduce, AllGather, ReduceScatter, AllToAll, Scatter, Gather, SendRecv}
}

// ParseCollective accepts the nccl-tests names and the usual variants:
// "all_reduce", "allreduce", "all-reduce", "AllReduce", "alltoall",
// "send_recv", "sendrecv", "p2p".
func ParseCollective(s string) (Collective, error) {
	return parseName("collective", s, collectiveSpellings, Collectives())
}

// collectiveSpellings maps every accepted spelling, squashed, to its
// primitive.
var collectiveSpellings = map[string]Collective{
	"broadcast": Broadcast, "bcast": Broadcast,
	"reduce":        Reduce,
	"allreduce":     AllReduce,
	"allgather":     AllGather,
	"reducescatter": ReduceScatter,
	"alltoall":      AllToAll, "alltoallv": AllToAll,
	"scatter":  Scatter,
	"gather":   Gather,
	"sendrecv": SendRecv, "send": SendRecv, "recv": SendRecv, "p2p": SendRecv,
}

// parseName finds s among the spellings of one kind of name, folding the
// ways people spell it (case, '_', '-', spaces); the error lists the
// kind's names. Unexported, so the interpreter never needs it.
func parseName[T ~string](kind, s string, spellings map[string]T, names []T) (T, error) {
	if v, ok := spellings[strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(s))]; ok {
		return v, nil
	}
	var want []string
	for _, n := range names {
		want = append(want, string(n))
	}
	return "", fmt.Errorf("%w: unknown %s %q (want one of %s)", ErrParams, kind, s, strings.Join(want, ", "))
}

// BusBWFactor returns nccl-tests' busbw/algbw factor for n ranks
// (units.BusBWFactor): all_reduce 2(n-1)/n; all_gather, reduce_scatter,
// alltoall, scatter, gather (n-1)/n; broadcast, reduce, sendrecv 1. It is 0
// for n < 1 and 1 for a collective nccl-tests does not know.
func BusBWFactor(c Collective, n int) float64 {
	if n < 1 {
		return 0
	}
	f, err := units.BusBWFactor(string(c), n)
	if err != nil {
		return 1
	}
	return f
}

// Algorithm names a way to run a collective.
type Algorithm string

// The algorithms. Ring, Tree, DoubleBinaryTree, NVLS and CollNet follow
// NCCL's; RecursiveHalvingDoubling is the MPI family (Rabenseifner,
// recursive doubling, Bruck); Hierarchical is the two-level scheme.
const (
	Ring                     Algorithm = "ring"
	Tree                     Algorithm = "tree"
	DoubleBinaryTree         Algorithm = "dbtree"
	RecursiveHalvingDoubling Algorithm = "rhd"
	Hierarchical             Algorithm = "hier"
	NVLS                     Algorithm = "nvls"
	CollNet                  Algorithm = "collnet"
)

// Algorithms lists every algorithm Predict knows.
func Algorithms() []Algorithm {
	return []Algorithm{Ring, Tree, DoubleBinaryTree, RecursiveHalvingDoubling, Hierarchical, NVLS, CollNet}
}

// ParseAlgorithm accepts the short names above and a few long ones
// ("double_binary_tree", "recursive_halving_doubling", "hierarchical").
func ParseAlgorithm(s string) (Algorithm, error) {
	return parseName("algorithm", s, algorithmSpellings, Algorithms())
}

// algorithmSpellings maps every accepted spelling, squashed, to its
// algorithm.
var algorithmSpellings = map[string]Algorithm{
	"ring": Ring,
	"tree": Tree, "binarytree": Tree,
	"dbtree": DoubleBinaryTree, "doublebinarytree": DoubleBinaryTree, "doubletree": DoubleBinaryTree,
	"rhd": RecursiveHalvingDoubling, "recursivehalvingdoubling": RecursiveHalvingDoubling,
	"rabenseifner": RecursiveHalvingDoubling, "recursivedoubling": RecursiveHalvingDoubling,
	"hier": Hierarchical, "hierarchical": Hierarchical, "twolevel": Hierarchical,
	"nvls":    NVLS,
	"collnet": CollNet, "sharp": CollNet,
}

// Protocol is how data crosses a hop: its bandwidth efficiency (payload
// over bytes moved) and the latency it adds per hop. The zero Protocol is
// ideal: efficiency 1 and no added latency.
type Protocol struct {
	Name string
	// Efficiency multiplies the link bandwidth, 0 < Efficiency <= 1.
	Efficiency float64 `unit:"%"`
	// HopLatency is added to alpha at every step, in seconds.
	HopLatency float64 `unit:"s"`
}

// NCCL's three protocols. Efficiencies: LL stores 4 data bytes with a
// 4-byte flag in every 8-byte store (50%); LL128 120 data bytes in every
// 128 (NCCL's model uses 0.92); Simple moves the data alone but waits on
// memory fences. Hop latencies are NCCL's ring NVLink hwLat values in
// src/graph/tuning.cc (LL 0.6 us, LL128 1.9 us, Simple 3.4 us); see also
// sjeaugey in NVIDIA/nccl#281 on LL and LL128.
var (
	ProtoSimple = Protocol{Name: "Simple", Efficiency: 1, HopLatency: 3.4e-6}
	ProtoLL     = Protocol{Name: "LL", Efficiency: 0.5, HopLatency: 0.6e-6}
	ProtoLL128  = Protocol{Name: "LL128", Efficiency: 120.0 / 128.0, HopLatency: 1.9e-6}
)

// ParseProtocol accepts "simple", "ll", "ll128" in any case; "" and
// "ideal" give the zero (ideal) Protocol.
func ParseProtocol(s string) (Protocol, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "ideal", "none":
		return Protocol{}, nil
	case "simple":
		return ProtoSimple, nil
	case "ll":
		return ProtoLL, nil
	case "ll128":
		return ProtoLL128, nil
	}
	return Protocol{}, fmt.Errorf("%w: unknown protocol %q (want simple, ll or ll128)", ErrParams, s)
}

func knownCollective(c Collective) bool { return slices.Contains(Collectives(), c) }
