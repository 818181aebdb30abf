package session

import (
	"context"
	"fmt"
	"runtime"
	"strings"
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

// BenchmarkRedefine measures what the session keeps for each redefinition
// of a name: cells that define the same 50 names again and again, as a
// notebook re-run many times does. heap-B/redefinition is the live heap's
// growth per name defined again.
func BenchmarkRedefine(b *testing.B) {
	s, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var cell strings.Builder
	for i := range 50 {
		fmt.Fprintf(&cell, "v%d := make([]float64, 8)\n", i)
	}
	ctx := context.Background()
	run := func() {
		if err := s.Execute(ctx, cell.String(), func(Event) {}); err != nil {
			b.Fatal(err)
		}
	}
	run()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run()
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(50*b.N), "heap-B/redefinition")
}
