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
// returns every TP group, then every PP group, then every DP group.
func ParallelGroups(tp, pp, dp int) []Group {
	rankAt := func(d, p, t int) int { return (d*pp+p)*tp + t }
	var out []Group
	for d := 0; d < dp; d++ {
		for p := 0; p < pp; p++ {
			g := Group{Kind: "TP"}
			for t := 0; t < tp; t++ {
				g.Ranks = append(g.Ranks, rankAt(d, p, t))
			}
			out = append(out, g)
		}
	}
	for d := 0; d < dp; d++ {
		for t := 0; t < tp; t++ {
			g := Group{Kind: "PP"}
			for p := 0; p < pp; p++ {
				g.Ranks = append(g.Ranks, rankAt(d, p, t))
			}
			out = append(out, g)
		}
	}
	for p := 0; p < pp; p++ {
		for t := 0; t < tp; t++ {
			g := Group{Kind: "DP"}
			for d := 0; d < dp; d++ {
				g.Ranks = append(g.Ranks, rankAt(d, p, t))
			}
			out = append(out, g)
		}
	}
	return out
}
