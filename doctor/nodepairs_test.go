package doctor_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/commlab/commlab/doctor"
	"github.com/commlab/commlab/probes/recorded"
)

// A notebook reads the pairwise runs someone posted while hunting a slow
// node (NVIDIA/nccl-tests#106) and asks which node is slow.
func ExampleSlowNodes() {
	pub, err := recorded.Public("ncclt106_node_pairs_one_slow_node_excerpt.md")
	if err != nil {
		fmt.Println(err)
		return
	}
	pairs, err := doctor.ParseNodePairs(pub.Text)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(doctor.SlowNodes(pairs).Text())
	// Output:
	// 3 of 5 pairs under 75% of the best (se02gn632,se02gn641 at 88.36 GB/s)
	// slow node(s): se02gn644 (every pair it is in is slow; each partner is fast with another node)
	// undecided: se02gn284,se02gn678 at 49.28 GB/s (neither node has been run with a node known to be fast)
}

func TestSlowNodes(t *testing.T) {
	for _, c := range []struct {
		name      string
		pairs     []doctor.NodePair
		slow      []string
		undecided int
	}{
		{"all fast", []doctor.NodePair{{A: "a", B: "b", BusBW: 90}, {A: "c", B: "d", BusBW: 88}}, nil, 0},
		{"one slow pair alone: undecided", []doctor.NodePair{{A: "a", B: "b", BusBW: 90}, {A: "c", B: "d", BusBW: 40}}, nil, 1},
		{"the slow node is the one both slow pairs share, each partner fast elsewhere",
			[]doctor.NodePair{{A: "a", B: "b", BusBW: 90}, {A: "x", B: "a", BusBW: 40}, {A: "x", B: "c", BusBW: 41}, {A: "c", B: "d", BusBW: 89}}, []string{"x"}, 0},
		{"a node slow with a partner never seen fast: not named",
			[]doctor.NodePair{{A: "a", B: "b", BusBW: 90}, {A: "x", B: "y", BusBW: 40}, {A: "x", B: "a", BusBW: 41}}, nil, 2},
	} {
		r := doctor.SlowNodes(c.pairs)
		if !slices.Equal(r.Slow, c.slow) || len(r.Undecided) != c.undecided {
			t.Errorf("%s: slow %v undecided %v", c.name, r.Slow, r.Undecided)
		}
	}
	if _, err := doctor.ParseNodePairs("no pairs here\n"); err == nil {
		t.Error("a text without pairs: no error")
	}
}
