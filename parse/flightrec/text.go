package flightrec

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
)

// Text renders the analysis for a terminal or a notebook cell: the verdict,
// then per process group each rank's last enqueued, started and completed
// collective.
func (a *Analysis) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Flight Recorder: %d dump(s), ranks %s\n", len(a.Ranks), RankRanges(a.Ranks))
	b.WriteString("verdict:\n")
	for _, v := range a.Verdict {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	for _, w := range a.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	for _, n := range a.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, g := range a.Groups {
		fmt.Fprintf(&b, "\npg %s: %d member(s)", pgLabel(g.PG, g.Desc), len(g.Members))
		if g.StuckSeq > 0 {
			fmt.Fprintf(&b, ", stuck in %s #%d", g.StuckOp, g.StuckSeq)
		}
		if !g.NoEvents {
			fmt.Fprintf(&b, ", start events %s", g.Timing)
		}
		b.WriteString("\n  rank  enqueued  started  completed  entries  source\n")
		for _, s := range g.States {
			if !s.Dumped {
				fmt.Fprintf(&b, "  %4d  (no dump)\n", s.Rank)
				continue
			}
			src := "entries"
			if s.FromStatus {
				src = "pg_status"
			}
			fmt.Fprintf(&b, "  %4d  %8d  %7s  %9s  %7d  %s\n", s.Rank, s.LastEnqueued, seqOrDash(s.LastStarted), seqOrDash(s.LastCompleted), s.Entries, src)
		}
		for _, f := range g.Findings {
			fmt.Fprintf(&b, "  %s: %s\n", f.Kind, f.Detail)
		}
	}
	return b.String()
}

func seqOrDash(v int64) string {
	if v < 0 {
		return "-"
	}
	return strconv.FormatInt(v, 10)
}

// String is Text without its trailing newline, as fmt.Println and a
// notebook's text/plain show the analysis.
func (a *Analysis) String() string { return strings.TrimRight(a.Text(), "\n") }

// String prints the dump in one line: its file, rank, format, version,
// NCCL and entry counts.
func (d *Dump) String() string {
	s := fmt.Sprintf("%s: rank %d, %s dump version %s", d.File, d.Rank, d.Format, d.Version)
	if d.CommLibVersion != "" {
		s += ", NCCL " + d.CommLibVersion
	}
	return s + fmt.Sprintf(", %d entries, %d process group(s)", len(d.Entries), len(d.ProcessGroups))
}

// WriteSummary writes what a person reads first about a set of dumps: one
// line per dump (its file, rank, format, version, NCCL and entry counts),
// then a blank line and the analysis a has made of them (Analysis.Text).
func WriteSummary(w io.Writer, dumps []*Dump, a *Analysis) error {
	return parse.WriteBuffered(w, func(w io.Writer) {
		for _, d := range dumps {
			fmt.Fprintln(w, d)
		}
		fmt.Fprintln(w)
		fmt.Fprint(w, a.Text())
	})
}

// ShapesText writes tensor shapes as a person reads them: one tensor's
// dimensions joined by "x" ("16x1024"), several tensors separated by
// "; ", a scalar as "scalar"; Go's [[16 1024]] is no way to say it.
func ShapesText(shapes [][]int64) string {
	parts := make([]string, 0, len(shapes))
	for _, dims := range shapes {
		if len(dims) == 0 {
			parts = append(parts, "scalar")
			continue
		}
		ds := make([]string, len(dims))
		for i, d := range dims {
			ds[i] = strconv.FormatInt(d, 10)
		}
		parts = append(parts, strings.Join(ds, "x"))
	}
	return strings.Join(parts, "; ")
}
