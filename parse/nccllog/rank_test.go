package nccllog

import (
	"os"
	"reflect"
	"testing"
)

// On the recorded one-GPU log every one of rank 0's channels is a ring of
// itself and a tree it is the root of; other ranks and devices have none.
func TestRankPlacesRecordedLog(t *testing.T) {
	raw, err := os.ReadFile("testdata/h200_subsys_all_2.28.9.log")
	if err != nil {
		t.Fatal(err)
	}
	l, err := ParseBytes(raw)
	if err != nil {
		t.Fatal(err)
	}
	places := l.RingPlaces(0, 0)
	if len(places) == 0 {
		t.Fatal("no Ring lines for rank 0")
	}
	for _, p := range places {
		if p.Prev != 0 || p.Next != 0 {
			t.Errorf("channel %d: %d -> 0 -> %d, want 0 -> 0 -> 0", p.Channel, p.Prev, p.Next)
		}
	}
	if got := l.RingPlaces(0, -1); len(got) != len(places) {
		t.Errorf("any device: %d places, device 0: %d", len(got), len(places))
	}
	if got := l.RingPlaces(1, -1); len(got) != 0 {
		t.Errorf("rank 1: %d places in a one-rank log", len(got))
	}
	root, other := l.RootChannels(0, 0)
	if len(root) == 0 || len(other) != 0 {
		t.Errorf("root in %v, not in %v; want every channel a root", root, other)
	}
	for i, ch := range root {
		if ch != i {
			t.Fatalf("root channels %v: want 0, 1, 2, ... in order", root)
		}
	}
	if r, o := l.RootChannels(0, 1); r != nil || o != nil {
		t.Errorf("device 1 printed no trees, got %v and %v", r, o)
	}
	if !reflect.DeepEqual(l.RingPlaces(0, 7), []RingLink(nil)) {
		t.Error("device 7 printed no rings")
	}
}
