package costmodel

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
)

// parents writes a tree as child->parent pairs for readable failures.
func parents(t BinaryTree) map[int]int {
	m := map[int]int{}
	for r, p := range t.Parent {
		m[r] = p
	}
	return m
}

// TestNCCLTreesMatchTreesCC holds the trees to the illustrations in the
// comments of NVIDIA/nccl src/graph/trees.cc (v2.28.9-1; since 2.8.3, as
// 2.4 to 2.7 shifted for even n and mirrored for odd): the binary tree of
// 14 ranks, the double tree of 12 (mirror) and of 13 (shift). Each map is
// child -> parent as drawn there.
func TestNCCLTreesMatchTreesCC(t *testing.T) {
	cases := []struct {
		name string
		n    int
		tree int
		want map[int]int
	}{
		{"btree 14", 14, 0, map[int]int{0: -1, 8: 0, 4: 8, 12: 8, 2: 4, 6: 4, 10: 12, 13: 12,
			1: 2, 3: 2, 5: 6, 7: 6, 9: 10, 11: 10}},
		{"dtree 12, first", 12, 0, map[int]int{0: -1, 8: 0, 4: 8, 10: 8, 2: 4, 6: 4, 9: 10, 11: 10,
			1: 2, 3: 2, 5: 6, 7: 6}},
		{"dtree 12, mirror", 12, 1, map[int]int{11: -1, 3: 11, 7: 3, 1: 3, 5: 7, 9: 7, 0: 1, 2: 1,
			4: 5, 6: 5, 8: 9, 10: 9}},
		{"dtree 13, first", 13, 0, map[int]int{0: -1, 8: 0, 4: 8, 12: 8, 2: 4, 6: 4, 10: 12,
			1: 2, 3: 2, 5: 6, 7: 6, 9: 10, 11: 10}},
		{"dtree 13, shift", 13, 1, map[int]int{1: -1, 9: 1, 5: 9, 0: 9, 3: 5, 7: 5, 11: 0,
			2: 3, 4: 3, 6: 7, 8: 7, 10: 11, 12: 11}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := NCCLDoubleTree(tc.n)
			if err != nil {
				t.Fatal(err)
			}
			got := parents(d.Trees[tc.tree])
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("child->parent\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// TestNCCLTreesMatchPublicLogs holds the trees to what NCCL printed in two
// public runs.
//
// NVIDIA/nccl#226 (NCCL 2.4, 64 ranks of one GPU each, so the tree of
// nodes is a tree of ranks; old form "Trees [0] parent->rank->children"):
// 26->25, 34->33, 30->29, 22->21, 22->23, 26->27, 30->31, 34->35.
//
// NVIDIA/nccl#527 (NCCL 2.9.9, AWS p4dn.24xlarge, 8 GPUs per node, ranks
// 2 to 30: four nodes; new form "Trees [c] children->rank->parent"). Read
// node by node (node = rank / 8), channels 0-2 use the first tree and 3-5
// the second: rank 10 [0] ->19 and 18 [0] 19/26->..->2 give node 1 -> 2,
// node 3 -> 2, node 2 -> 0; rank 10 [3] 11/2/-1->10->26 and 22 [5] ->15
// give node 1 -> 3, node 0 -> 1, node 2 -> 1.
func TestNCCLTreesMatchPublicLogs(t *testing.T) {
	bt, err := NCCLBinaryTree(64)
	if err != nil {
		t.Fatal(err)
	}
	for child, parent := range map[int]int{25: 26, 33: 34, 29: 30, 21: 22, 23: 22, 27: 26, 31: 30, 35: 34} {
		if bt.Parent[child] != parent {
			t.Errorf("64 ranks: parent of %d is %d, NCCL 2.4 logged %d", child, bt.Parent[child], parent)
		}
	}
	d, err := NCCLDoubleTree(4)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.Trees[0].Parent, []int{-1, 2, 0, 2}; !slices.Equal(got, want) {
		t.Errorf("4 nodes, first tree: parents %v, NCCL 2.9.9 logged %v", got, want)
	}
	if got, want := d.Trees[1].Parent, []int{1, 3, 1, -1}; !slices.Equal(got, want) {
		t.Errorf("4 nodes, second tree: parents %v, NCCL 2.9.9 logged %v", got, want)
	}
}

// TestNCCLTreeShape checks every size up to 300: each tree is one tree
// (one root, every rank reaches it, children agree with parents, at most
// two), ceil(log2 n) deep; the first tree's inner nodes are the even ranks
// and the second's the odd ones (and rank 0 for odd n); the busiest rank
// sends 3S over one tree and 2S over the pair (from n = 4), which is what
// Predict charges.
func TestNCCLTreeShape(t *testing.T) {
	for n := 1; n <= 300; n++ {
		d, err := NCCLDoubleTree(n)
		if err != nil {
			t.Fatal(err)
		}
		if d.Mirrored != (n%2 == 0) {
			t.Errorf("n=%d: mirrored %v", n, d.Mirrored)
		}
		for i, tr := range d.Trees {
			roots := 0
			for r := 0; r < n; r++ {
				p := tr.Parent[r]
				if p == -1 {
					roots++
					if tr.Root != r {
						t.Errorf("n=%d tree %d: root %d, but %d has no parent", n, i, tr.Root, r)
					}
					continue
				}
				if !slices.Contains(tr.Children[p], r) {
					t.Errorf("n=%d tree %d: %d's parent %d does not list it as a child", n, i, r, p)
				}
				if len(tr.Children[r]) > 2 {
					t.Errorf("n=%d tree %d: %d has %d children", n, i, r, len(tr.Children[r]))
				}
			}
			if roots != 1 {
				t.Errorf("n=%d tree %d: %d roots", n, i, roots)
			}
			if want := ceilLog2(n); tr.Depth() != want {
				t.Errorf("n=%d tree %d: depth %d, want ceil(log2 n) = %d", n, i, tr.Depth(), want)
			}
			for _, r := range tr.Inner() {
				odd := r%2 == 1
				if i == 0 && odd || i == 1 && !odd && !(n%2 == 1 && r == 0) {
					t.Errorf("n=%d tree %d: rank %d is an inner node", n, i, r)
				}
			}
		}
		if n < 2 {
			continue
		}
		one := slices.Max(d.Trees[0].AllReduceSends(1))
		two := slices.Max(d.AllReduceSends())
		for _, c := range []struct {
			alg  Algorithm
			load float64
		}{{Tree, one}, {DoubleBinaryTree, two}} {
			cost, err := Predict(Params{Collective: AllReduce, Algorithm: c.alg, Ranks: n, Bytes: 1, Alpha: 1, Beta: 1})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(cost.BandwidthTerm-c.load) > 1e-12 || cost.Steps != 2*d.Trees[0].Depth() {
				t.Errorf("n=%d %s: Predict charges %g S/b in %d steps; the trees give %g S/b in %d",
					n, c.alg, cost.BandwidthTerm, cost.Steps, c.load, 2*d.Trees[0].Depth())
			}
		}
		if n >= 4 && (one != 3 || two != 2) {
			t.Errorf("n=%d: busiest rank sends %gS over one tree, %gS over two; want 3 and 2", n, one, two)
		}
	}
}

func TestTreesRefuseNoRanks(t *testing.T) {
	if _, err := NCCLDoubleTree(0); !errors.Is(err, ErrParams) {
		t.Errorf("0 ranks: %v, want ErrParams", err)
	}
	if _, err := RingAllReduceSchedule(1); !errors.Is(err, ErrParams) {
		t.Errorf("a ring of 1: %v, want ErrParams", err)
	}
}

// TestRingAllReduceSchedule runs the schedule on numbers: every rank ends
// with every chunk summed over all ranks, the sums it reports are the sums
// it carries, and each rank sends 2(n-1) chunks.
func TestRingAllReduceSchedule(t *testing.T) {
	for n := 2; n <= 17; n++ {
		steps, err := RingAllReduceSchedule(n)
		if err != nil {
			t.Fatal(err)
		}
		if len(steps) != 2*(n-1) {
			t.Fatalf("n=%d: %d steps", n, len(steps))
		}
		// value[r][c] is rank r's chunk c; count[r][c] the inputs in it.
		value := make([][]int, n)
		count := make([][]int, n)
		want := make([]int, n)
		for r := range value {
			value[r], count[r] = make([]int, n), make([]int, n)
			for c := range value[r] {
				value[r][c], count[r][c] = (r+1)*(c+3), 1
				want[c] += (r + 1) * (c + 3)
			}
		}
		for _, st := range steps {
			type msg struct{ to, chunk, v, k int }
			var sent []msg
			for r := 0; r < n; r++ {
				c := st.Chunk[r]
				if count[r][c] != st.Sums[r] {
					t.Fatalf("n=%d step %d: rank %d sends chunk %d holding %d inputs, schedule says %d", n, st.Step, r, c, count[r][c], st.Sums[r])
				}
				sent = append(sent, msg{(r + 1) % n, c, value[r][c], count[r][c]})
			}
			for _, m := range sent {
				if st.Phase == ReduceScatter {
					value[m.to][m.chunk] += m.v
					count[m.to][m.chunk] += m.k
				} else {
					value[m.to][m.chunk], count[m.to][m.chunk] = m.v, m.k
				}
			}
		}
		for r := range value {
			if !slices.Equal(value[r], want) {
				t.Errorf("n=%d: rank %d ends with %v, want %v", n, r, value[r], want)
			}
		}
	}
}
