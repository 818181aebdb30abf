package costmodel

import "fmt"

// BinaryTree is one tree over ranks 0..n-1: Parent[r] is rank r's parent
// (-1 for the root) and Children[r] its children, at most two, in the
// order NCCL names them (down0, down1).
type BinaryTree struct {
	Root     int
	Parent   []int
	Children [][]int
}

// DoubleTree is NCCL's double binary tree over n ranks (NCCL builds it over
// nodes, with a chain through each node's GPUs): Trees[0] is the binary
// tree of ncclGetBtree and Trees[1] its complement, the mirror image
// (rank r plays rank n-1-r) when n is even, the same tree shifted by one
// rank (rank r plays rank r-1) when n is odd. A rank that is an inner node
// of one tree is a leaf of the other (rank 0 and n-1 of an even n, the root
// of a tree, have one child), so when each tree carries half the data no
// rank sends more than 2S in an all_reduce, where one binary tree makes its
// inner nodes send 3S.
type DoubleTree struct {
	Ranks    int
	Trees    []BinaryTree
	Mirrored bool
}

// ncclBtree is ncclGetBtree of NVIDIA/nccl src/graph/trees.cc (v2.28.9-1;
// the same parents and children since 2.4, rank 0's child in d1 since
// 2.8.3): rank's parent and two children, -1 where none.
func ncclBtree(nranks, rank int) (up, down0, down1 int) {
	bit := 1
	for ; bit < nranks; bit <<= 1 {
		if bit&rank != 0 {
			break
		}
	}
	if rank == 0 {
		down1 = -1
		if nranks > 1 {
			down1 = bit >> 1
		}
		return -1, -1, down1
	}
	up = (rank ^ bit) | (bit << 1)
	if up >= nranks {
		up = rank ^ bit
	}
	lowbit := bit >> 1
	down0, down1 = -1, -1
	if lowbit != 0 {
		down0, down1 = rank-lowbit, rank+lowbit
	}
	// As trees.cc: recompute, then halve, until the child is in bounds.
	for down1 >= nranks {
		down1 = -1
		if lowbit != 0 {
			down1 = rank + lowbit
		}
		lowbit >>= 1
	}
	return up, down0, down1
}

// newTree builds a tree from each rank's parent and children, as a
// function of the rank gives them.
func newTree(n int, node func(rank int) (up, down0, down1 int)) BinaryTree {
	t := BinaryTree{Root: -1, Parent: make([]int, n), Children: make([][]int, n)}
	for r := 0; r < n; r++ {
		up, d0, d1 := node(r)
		t.Parent[r] = up
		if up == -1 {
			t.Root = r
		}
		t.Children[r] = []int{}
		for _, d := range []int{d0, d1} {
			if d != -1 {
				t.Children[r] = append(t.Children[r], d)
			}
		}
	}
	return t
}

// NCCLBinaryTree is the binary tree NCCL builds over n ranks
// (ncclGetBtree): rank 0 is the root with one child, and the ranks below
// sit in the order of their lowest set bit, so that the tree read left to
// right visits 0, 1, ..., n-1.
func NCCLBinaryTree(n int) (BinaryTree, error) {
	if n < 1 {
		return BinaryTree{}, fmt.Errorf("%w: a tree needs at least 1 rank, got %d", ErrParams, n)
	}
	return newTree(n, func(r int) (int, int, int) { return ncclBtree(n, r) }), nil
}

// NCCLDoubleTree is NCCL's double binary tree over n ranks (ncclGetDtree in
// src/graph/trees.cc): the binary tree and its mirror (n even) or its
// shift by one rank (n odd).
func NCCLDoubleTree(n int) (DoubleTree, error) {
	first, err := NCCLBinaryTree(n)
	if err != nil {
		return DoubleTree{}, err
	}
	mapped := func(v int) int {
		if v == -1 {
			return -1
		}
		if n%2 == 0 {
			return n - 1 - v
		}
		return (v + 1) % n
	}
	second := newTree(n, func(r int) (int, int, int) {
		played := n - 1 - r // the mirror: rank r takes rank n-1-r's place
		if n%2 == 1 {
			played = (r - 1 + n) % n // the shift: rank r takes rank r-1's place
		}
		up, d0, d1 := ncclBtree(n, played)
		return mapped(up), mapped(d0), mapped(d1)
	})
	return DoubleTree{Ranks: n, Trees: []BinaryTree{first, second}, Mirrored: n%2 == 0}, nil
}

// Depth is the number of edges from the root to the deepest leaf: the
// steps a pipelined reduce (or broadcast) waits before its first chunk
// reaches the root (or the last leaf).
func (t BinaryTree) Depth() int {
	deepest := 0
	for r := range t.Parent {
		d := 0
		for p := t.Parent[r]; p != -1 && d <= len(t.Parent); p = t.Parent[p] {
			d++
		}
		deepest = max(deepest, d)
	}
	return deepest
}

// Inner lists the ranks with at least one child, in rank order.
func (t BinaryTree) Inner() []int {
	var inner []int
	for r, ch := range t.Children {
		if len(ch) > 0 {
			inner = append(inner, r)
		}
	}
	return inner
}

// AllReduceSends is what each rank sends, per byte of the buffer S, in a
// pipelined all_reduce over the tree when the tree carries share of the
// data: its part of the sum up to its parent, then the result down to each
// child. An inner node with a parent and two children sends 3 x share.
func (t BinaryTree) AllReduceSends(share float64) []float64 {
	sends := make([]float64, len(t.Parent))
	for r := range sends {
		links := len(t.Children[r])
		if t.Parent[r] != -1 {
			links++
		}
		sends[r] = share * float64(links)
	}
	return sends
}

// AllReduceSends is what each rank sends, per byte of S, in an all_reduce
// over the double tree, each tree carrying half of the data.
func (d DoubleTree) AllReduceSends() []float64 {
	sends := make([]float64, d.Ranks)
	for _, t := range d.Trees {
		for r, s := range t.AllReduceSends(1 / float64(len(d.Trees))) {
			sends[r] += s
		}
	}
	return sends
}

// RingStep is one step of a ring all_reduce over n ranks: every rank r
// sends one chunk of S/n bytes to rank (r+1) mod n.
type RingStep struct {
	// Step counts from 1 over both phases.
	Step int
	// Phase is ReduceScatter for the first n-1 steps (the receiver adds
	// the chunk to its own) and AllGather for the last n-1 (the receiver
	// keeps it).
	Phase Collective
	// Chunk[r] is the chunk rank r sends; Sums[r] how many ranks' inputs
	// are summed in it.
	Chunk []int
	Sums  []int
}

// RingAllReduceSchedule is the ring all_reduce step by step: the buffer is
// cut into n chunks; in reduce_scatter step s (0-based) rank r sends chunk
// (r-s) mod n, so that after n-1 steps rank r holds chunk (r+1) mod n
// summed over all ranks; in all_gather step s it sends chunk (r+1-s) mod n,
// forwarding what it received. Every rank sends 2(n-1) chunks of S/n: the
// 2(n-1)/n x S of the ring's bandwidth term.
func RingAllReduceSchedule(n int) ([]RingStep, error) {
	if n < 2 {
		return nil, fmt.Errorf("%w: a ring needs at least 2 ranks, got %d", ErrParams, n)
	}
	mod := func(v int) int { return ((v % n) + n) % n }
	var steps []RingStep
	for s := 0; s < n-1; s++ {
		st := RingStep{Step: len(steps) + 1, Phase: ReduceScatter, Chunk: make([]int, n), Sums: make([]int, n)}
		for r := 0; r < n; r++ {
			st.Chunk[r], st.Sums[r] = mod(r-s), s+1
		}
		steps = append(steps, st)
	}
	for s := 0; s < n-1; s++ {
		st := RingStep{Step: len(steps) + 1, Phase: AllGather, Chunk: make([]int, n), Sums: make([]int, n)}
		for r := 0; r < n; r++ {
			st.Chunk[r], st.Sums[r] = mod(r+1-s), n
		}
		steps = append(steps, st)
	}
	return steps, nil
}
