package nccllog

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// A log whose lists pass their bound keeps the first records and counts
// the rest: every total, tally and network summary is the same as with
// no bound.
func TestBoundedListsKeepTotals(t *testing.T) {
	for _, in := range fixtures(t) {
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		full, _ := ParseBytes(data)
		old := maxRecords
		maxRecords = 2
		small, _ := ParseBytes(data)
		maxRecords = old
		if !reflect.DeepEqual(full.TransportCounts(), small.TransportCounts()) || !reflect.DeepEqual(full.Hosts(), small.Hosts()) ||
			!reflect.DeepEqual(full.FoldedChoices()[:len(small.FoldedChoices())], small.FoldedChoices()) || !reflect.DeepEqual(full.Network, small.Network) {
			t.Errorf("%s: tallies differ with a bound of 2", in)
		}
		if len(full.Processes) <= 2 && len(full.Ranks) <= 2 && !reflect.DeepEqual(full.Processes, small.Processes) {
			t.Errorf("%s: processes differ", in)
		}
		for kind, kept := range map[string]int{"connections": len(small.Connections), "trees": len(small.Trees), "rings": len(small.Rings), "operations": len(small.Operations), "choices": len(small.Choices)} {
			want := map[string]int{"connections": len(full.Connections), "trees": len(full.Trees), "rings": len(full.Rings), "operations": len(full.Operations), "choices": len(full.Choices)}[kind]
			if got := small.total(kind, kept); got != want {
				t.Errorf("%s: %s total %d, want %d", in, kind, got, want)
			}
		}
		for _, list := range []string{"warnings", "connections", "trees", "rings", "ring_links", "operations", "choices", "paths", "env"} {
			if small.Total(list) != full.Total(list) {
				t.Errorf("%s: Total(%q) = %d with a bound of 2, %d without", in, list, small.Total(list), full.Total(list))
			}
		}
		if full.Total("nonsense") != -1 {
			t.Error("Total of no list")
		}
		if full.Omitted != nil {
			t.Errorf("%s: the fixture passed the bound: %v", in, full.Omitted)
		}
	}
}

// repeatLog is the recorded log n times over, as a long job's log repeats
// its lines.
func repeatLog(tb testing.TB, n int) []byte {
	data, err := os.ReadFile("testdata/h200_subsys_all_2.28.9.log")
	if err != nil {
		tb.Fatal(err)
	}
	return bytes.Repeat(data, n)
}

// The memory a parsed log holds does not grow with the log's length.
func TestParseMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("parses 12 MB")
	}
	retained := func(n int) uint64 {
		data := repeatLog(t, n)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		l, _ := Parse(bytes.NewReader(data))
		data = nil
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(l)
		return after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
	}
	_ = retained(1)
	small, large := retained(30), retained(300)
	if large > 2*small+(4<<20) {
		t.Errorf("a log 10 times longer holds %d bytes against %d", large, small)
	}
}

// BenchmarkParseScale parses 1, 10 and 100 copies of a recorded log and
// reports MB/s, the bytes allocated and the bytes the parsed Log holds
// (held-B); x10 and x100 report held-growth, their held bytes over x1's.
func BenchmarkParseScale(b *testing.B) {
	var base float64
	for _, n := range []int{1, 10, 100} {
		data := repeatLog(b, n)
		b.Run(fmt.Sprintf("x%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var l *Log
			for range b.N {
				l, _ = Parse(bytes.NewReader(data))
			}
			b.StopTimer()
			held := float64(heldBy(func() { runtime.KeepAlive(l); l = nil }))
			b.ReportMetric(held, "held-B")
			if n == 1 {
				base = held
			} else if base > 0 {
				b.ReportMetric(held/base, "held-growth")
			}
		})
	}
}

// heldBy is how many heap bytes drop reclaims.
func heldBy(drop func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	drop()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return before.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
}

// splitPrefix reads what reNCCLPrefix matches, on every fixture line and
// on made-up prefixes.
func TestSplitPrefixMatchesRegexp(t *testing.T) {
	var prefixes []string
	for _, in := range fixtures(t) {
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if i := strings.Index(line, "NCCL "); i >= 0 {
				prefixes = append(prefixes, line[:i])
			}
		}
	}
	prefixes = append(prefixes, "", " ", "[0] ", "x[0] ", "h:1:2 ", "h:1:2 [3] ", "a:b:1:2 [0] f.cc:12 ", "-1node7:1:2 [0] ", "h:1:2  [0] ",
		"h:1: [0] ", ":1:2 [0] ", "h:x:2 [0] ", "[0] f.cc:1 ", "f.cc:1 ", "[] ", "[0]", "h:1:2\t[0] ", "a [b] ", "a:1 [0] ", "x f:1 [0] g:2 ",
		"[0] r_t f(a*):12 ", "x[0]abc f(a):1 ", "9ab f():2 ", "h:1:2 [0] ret f(x):3 ", "[0] (f):1 ")
	for _, p := range prefixes {
		want := make([]string, 6)
		start := len(p)
		if pm := reNCCLPrefix.FindStringSubmatchIndex(p); pm != nil {
			start = pm[0]
			for g := 1; g <= 5; g++ {
				if pm[2*g] >= 0 {
					want[g] = p[pm[2*g]:pm[2*g+1]]
				}
			}
		}
		gotStart, h, pid, tid, dev, where := splitPrefix(p)
		got := []string{"", h, pid, tid, dev, where}
		if gotStart != start || !reflect.DeepEqual(got, want) {
			t.Errorf("splitPrefix(%q) = %d %q, regexp %d %q", p, gotStart, got, start, want)
		}
	}
}

// FuzzSplitPrefix holds splitPrefix to reNCCLPrefix on any text.
func FuzzSplitPrefix(f *testing.F) {
	for _, p := range []string{"h:1:2 [0] ", "a:b:1:2 [0] f.cc:12 ", "x[0] ", "f.cc:1 ", "-1node7:1:2 [0] "} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		start := len(p)
		want := make([]string, 6)
		if pm := reNCCLPrefix.FindStringSubmatchIndex(p); pm != nil {
			start = pm[0]
			for g := 1; g <= 5; g++ {
				if pm[2*g] >= 0 {
					want[g] = p[pm[2*g]:pm[2*g+1]]
				}
			}
		}
		gotStart, h, pid, tid, dev, where := splitPrefix(p)
		if got := []string{"", h, pid, tid, dev, where}; gotStart != start || !reflect.DeepEqual(got, want) {
			t.Errorf("splitPrefix(%q) = %d %q, regexp %d %q", p, gotStart, got, start, want)
		}
	})
}
