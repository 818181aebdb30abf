package cells_test

import (
	"context"
	"testing"

	"github.com/commlab/commlab/cells"
	"github.com/commlab/commlab/kernel/session"
)

// BenchmarkSessionStart is what the kernel does before the first cell
// runs: a session with every preloaded table, then `1+1`. Tables load per
// import, so this does not grow with the number of preloaded packages.
func BenchmarkSessionStart(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		s, err := session.New(cells.View().Session())
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Execute(ctx, "1+1", func(session.Event) {}); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
