package probes

import (
	"fmt"
	"io"
	"strings"

	"github.com/commlab/commlab/units"
)

// String prints the sample in one line with units, e.g. "all_reduce 1 GiB,
// 8 ranks: median 5.1 ms (min 5 ms, max 5.2 ms), algbw 210 GB/s, busbw
// 367.5 GB/s" or "p2p_write GPU0->GPU1 64 MiB: ...". A notebook shows a
// sample, and a slice of them, as a table with the same units.
func (s Sample) String() string {
	var b strings.Builder
	b.WriteString(s.Op)
	if s.Src != 0 || s.Dst != 0 {
		fmt.Fprintf(&b, " %s->%s", device(s.Src), device(s.Dst))
	}
	fmt.Fprintf(&b, " %s", units.Readable(float64(s.Bytes), "B"))
	if s.Ranks > 1 {
		fmt.Fprintf(&b, ", %d ranks", s.Ranks)
	}
	if s.InPlace {
		b.WriteString(", in place")
	}
	if s.Label != "" {
		b.WriteString(", " + s.Label)
	}
	fmt.Fprintf(&b, ": median %s (min %s, max %s)", units.Readable(s.MedianUS, "us"),
		units.Readable(s.MinUS, "us"), units.Readable(s.MaxUS, "us"))
	if s.AlgBW > 0 {
		fmt.Fprintf(&b, ", algbw %s", units.Readable(s.AlgBW, "GB/s"))
	}
	if s.BusBW > 0 {
		fmt.Fprintf(&b, ", busbw %s", units.Readable(s.BusBW, "GB/s"))
	}
	if s.Wrong > 0 {
		fmt.Fprintf(&b, ", %d wrong", s.Wrong)
	}
	return b.String()
}

func device(i int) string {
	if i < 0 {
		return "host"
	}
	return fmt.Sprintf("GPU%d", i)
}

// maxTextSamples bounds the samples Run.String lists.
const maxTextSamples = 20

// String prints the run's kind and provenance, then its samples one a line
// (the first 20, and how many more), then its error if it stopped early.
func (r *Run) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s run: %s\n", r.Kind, r.Provenance())
	for i, s := range r.Samples {
		if i == maxTextSamples {
			fmt.Fprintf(&b, "... %d more samples\n", len(r.Samples)-i)
			break
		}
		b.WriteString(s.String() + "\n")
	}
	if r.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", r.Error)
	}
	return strings.TrimRight(b.String(), "\n")
}

// String is the topology's Summary: a notebook draws the topology, and a
// terminal prints these lines.
func (t *Topology) String() string { return strings.TrimRight(t.Summary(), "\n") }

// WriteReport writes a run's summary as text: the run's provenance line
// (none when run is nil), what body writes, and one "error: ..." line for
// each of errs. The text is built whole before it is written, so a reader
// never sees half of it.
func WriteReport(w io.Writer, run *Run, errs []string, body func(b *strings.Builder)) error {
	var b strings.Builder
	if run != nil {
		fmt.Fprintf(&b, "%s\n", run.Provenance())
	}
	body(&b)
	for _, e := range errs {
		fmt.Fprintf(&b, "error: %s\n", e)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
