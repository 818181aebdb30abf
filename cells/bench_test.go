package cells_test

import (
	"context"
	"testing"

	"github.com/commlab/commlab/kernel/session"
	"github.com/commlab/commlab/kernel/symbols"
)

// BenchmarkSessionStart is what the kernel does before the first cell
// runs: a session with every preloaded table, then `1+1`. Tables load per
// import, so this does not grow with the number of preloaded packages.
func BenchmarkSessionStart(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		s, err := session.New(session.Options{Packages: symbols.Symbols})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Execute(ctx, "1+1", func(session.Event) {}); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
