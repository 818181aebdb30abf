package session

import (
	"context"
	"testing"
)

// BenchmarkExecuteOnePlusOne is the session's share of the kernel's
// execute round trip for `1+1`.
func BenchmarkExecuteOnePlusOne(b *testing.B) {
	for _, capture := range []bool{false, true} {
		name := "events"
		if capture {
			name = "captured-fds"
		}
		b.Run(name, func(b *testing.B) {
			s, err := New(Options{CaptureProcessOutput: capture})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			for i := 0; i < b.N; i++ {
				if err := s.Execute(ctx, "1+1", func(Event) {}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
