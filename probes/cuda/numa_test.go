package cuda

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestMapOnNode needs no GPU: node 0 exists on every Linux machine; a node
// far above any machine's is refused by the kernel, and bad arguments
// before it.
func TestMapOnNode(t *testing.T) {
	mem, err := mapOnNode(1<<20, 0)
	if err != nil {
		t.Fatalf("node 0: %v", err)
	}
	if len(mem) != 1<<20 || mem[4096] != 1 {
		t.Errorf("mapped %d bytes, page 1 holds %d", len(mem), mem[4096])
	}
	if err := unix.Munmap(mem); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n    int64
		node int
	}{{1 << 20, 1000}, {1 << 20, -1}, {1 << 20, 1024}, {0, 0}} {
		if mem, err := mapOnNode(c.n, c.node); err == nil {
			unix.Munmap(mem)
			t.Errorf("%d bytes on node %d: no error", c.n, c.node)
		}
	}
}
