package nccllog

import "sort"

// RingPlaces is the Ring lines ("Ring 00 : 1 -> 0 -> 1") that place rank
// on a ring channel, as the process on CUDA device dev printed them (dev
// -1: any device), in the order printed: one per channel, so how many
// there are is how many ring channels the rank was given.
func (l *Log) RingPlaces(rank, dev int) []RingLink {
	var out []RingLink
	for _, rl := range l.RingLinks {
		if rl.Rank == rank && (dev < 0 || rl.Source.Dev == dev) {
			out = append(out, rl)
		}
	}
	return out
}

// RootChannels splits the tree channels of rank, as the process on CUDA
// device dev printed them (dev -1: any device), into those in which rank
// is the root of the tree (it has no parent) and the others, each in
// channel order. NCCL prints a channel's tree more than once (`Trees [c]`
// and `Tree c :`); the last line printed for a channel decides.
func (l *Log) RootChannels(rank, dev int) (root, other []int) {
	isRoot := map[int]bool{}
	for _, t := range l.Trees {
		if t.Rank == rank && (dev < 0 || t.Source.Dev == dev) {
			isRoot[t.Channel] = t.Parent == -1
		}
	}
	channels := make([]int, 0, len(isRoot))
	for ch := range isRoot {
		channels = append(channels, ch)
	}
	sort.Ints(channels)
	for _, ch := range channels {
		if isRoot[ch] {
			root = append(root, ch)
		} else {
			other = append(other, ch)
		}
	}
	return root, other
}
