package costmodel

// Group is one communicator of a parallel layout: its kind ("TP", "PP"
// or "DP") and its global ranks.
type Group struct {
	Kind  string
	Ranks []int
}

// Nodes is how many nodes of perNode GPUs the group's ranks span.
func (g Group) Nodes(perNode int) int {
	nodes := map[int]bool{}
	for _, r := range g.Ranks {
		nodes[r/perNode] = true
	}
	return len(nodes)
}

// ParallelGroups lays tp x pp x dp ranks out as vLLM does
// (all_ranks.reshape(DP, PP, TP): tensor parallelism innermost) and
// returns every TP group, then every PP group, then every DP group, each
// kind's groups in the order of the other two coordinates.
func ParallelGroups(tp, pp, dp int) []Group {
	dims := [3]int{dp, pp, tp} // the coordinates (d, p, t) of rank (d*pp+p)*tp + t
	var out []Group
	for _, axis := range []int{2, 1, 0} { // TP, PP, DP: the coordinate a group varies
		others := make([]int, 0, 2)
		for a := range dims {
			if a != axis {
				others = append(others, a)
			}
		}
		for i := 0; i < dims[others[0]]; i++ {
			for j := 0; j < dims[others[1]]; j++ {
				g := Group{Kind: [3]string{"DP", "PP", "TP"}[axis]}
				for k := 0; k < dims[axis]; k++ {
					var c [3]int
					c[others[0]], c[others[1]], c[axis] = i, j, k
					g.Ranks = append(g.Ranks, (c[0]*pp+c[1])*tp+c[2])
				}
				out = append(out, g)
			}
		}
	}
	return out
}
