package overlap

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/commlab/commlab/prose"
)

// The core question's answer, written from a run's cases: chapter 5's
// core-question cell shows it whole, numbers and caveats together.

// Settings are the core question's settings in the order the chapter
// shows them, each with the environment that made it (as a column head:
// the zero-width spaces let a narrow page break the long names).
var Settings = []struct{ Name, Head string }{
	{"default", "default"},
	{"blocking-wait", "with TORCH_NCCL_\u200bBLOCKING_WAIT=1"},
	{"avoid-record-streams", "with TORCH_NCCL_\u200bAVOID_RECORD_\u200bSTREAMS=1"},
}

// CoreAnswer answers the core question from the all_gather and race
// cases: a table of when each thing happened, in µs after the call
// started, then the answer in sentences that follow the numbers (started
// or not, finished or not, how many elements the race corrupted) with the
// conditions they hold under and what a one-rank stand-in leaves out.
func (r *Result) CoreAnswer() string {
	var b strings.Builder
	t := prose.NewTable("setting", "call returned", "queued GEMMs ended", "copy started", "wait() returned", "copy ended", "next kernel started")
	for _, s := range Settings[:2] { // the default, and wait() blocking the CPU
		c := r.Case("all_gather", s.Name)
		if c == nil || c.CommActivities == 0 {
			continue
		}
		after := ""
		if c.AfterStartUS > 0 {
			after = c.rel(c.AfterStartUS)
		}
		t.Row(s.Name, c.rel(c.CallReturnUS), c.rel(c.QueuedEndUS), c.rel(c.CommStartUS), c.rel(c.WaitReturnUS), c.rel(c.CommEndUS), after)
	}
	def := r.Case("all_gather", "default")
	if def == nil || def.CommActivities == 0 {
		return "No all_gather case was recorded: the core question has no timeline to answer from.\n"
	}
	gemms := r.Run.Settings["cq_gemms"]
	fmt.Fprintf(&b, "`all_gather_into_tensor` of %s with `async_op=True`, on the GPU one %s of %s; µs after the call started:\n\n%s\n",
		prose.Size(float64(r.cqBytes())), def.CommKinds, prose.Us(def.CommEndUS-def.CommStartUS), t.Markdown())
	b.WriteString(r.startAnswer(def, gemms))
	b.WriteString(r.waitAnswer(def))
	b.WriteString(r.raceAnswer())
	b.WriteString("- **What this one-rank stand-in leaves out.** The copy has no peer. Across GPUs the collective is a ring " +
		"kernel that can start and then spin until every rank's kernel has started, so \"started\" also depends on when " +
		"each rank reaches the call; and a race corrupts the values sent to every rank. No run across GPUs is recorded here.\n")
	return b.String()
}

// rel is t in µs after the call started.
func (c *Case) rel(t float64) string { return prose.Us(t - c.CallStartUS) }

// cqBytes is the core question's collective size (the script's
// --cq-bytes), from the case's facts or the run's settings.
func (r *Result) cqBytes() int64 {
	if n, err := strconv.ParseInt(r.Run.Settings["cq_bytes"], 10, 64); err == nil {
		return n
	}
	return 0
}

func (r *Result) startAnswer(c *Case, gemms string) string {
	var b strings.Builder
	if c.StartedByReturn() {
		fmt.Fprintf(&b, "- **Started when the call returned?** Yes, here: the copy started at %s, before the call returned at %s.",
			c.rel(c.CommStartUS), c.rel(c.CallReturnUS))
	} else {
		fmt.Fprintf(&b, "- **Started when the call returned?** No: the call returned at %s having *enqueued* the copy, which started at %s, %s after the %s GEMMs queued ahead of it on the current stream ended (%s).",
			c.rel(c.CallReturnUS), c.rel(c.CommStartUS), prose.Us(c.CommStartUS-c.QueuedEndUS), gemms, c.rel(c.QueuedEndUS))
	}
	b.WriteString(" ProcessGroupNCCL's stream waits for what the current stream held at the call, so this holds only because GEMMs were queued ahead: with an idle current stream the collective can start before the call returns.")
	if sum := r.Case("all_reduce_sum", "default"); sum != nil {
		fmt.Fprintf(&b, " (An in-place SUM all_reduce on one rank launched %d GPU activities: NCCL has nothing to do.", sum.CommActivities)
		if avg := r.Case("all_reduce_avg", "default"); avg != nil && avg.CommActivities > 0 {
			fmt.Fprintf(&b, " The AVG all_reduce's one-rank kernel, %s, had started when the call returned: %s; had ended when wait() returned: %s.",
				prose.Us(avg.CommEndUS-avg.CommStartUS), yesNo(avg.StartedByReturn()), yesNo(avg.FinishedByWaitReturn()))
		}
		b.WriteString(")")
	}
	return b.String() + "\n"
}

func (r *Result) waitAnswer(c *Case) string {
	var b strings.Builder
	if c.FinishedByWaitReturn() {
		fmt.Fprintf(&b, "- **Finished when wait() returned?** Yes, here: wait() ran from %s to %s, the copy ended at %s.", c.rel(c.WaitStartUS), c.rel(c.WaitReturnUS), c.rel(c.CommEndUS))
	} else {
		fmt.Fprintf(&b, "- **Finished when wait() returned?** No: wait() ran from %s to %s and the copy ended at %s. wait() only made the current stream wait for the collective's end event;",
			c.rel(c.WaitStartUS), c.rel(c.WaitReturnUS), c.rel(c.CommEndUS))
		if c.AfterStartUS > 0 {
			fmt.Fprintf(&b, " the kernel issued right after it started at %s, %s after the copy ended.", c.rel(c.AfterStartUS), prose.Us(c.AfterStartUS-c.CommEndUS))
		}
	}
	if bw := r.Case("all_gather", "blocking-wait"); bw != nil && bw.CommActivities > 0 {
		ended := "so the copy had ended when it returned"
		if !bw.FinishedByWaitReturn() {
			ended = "so even then the copy had not ended when it returned"
		}
		fmt.Fprintf(&b, " With TORCH_NCCL_BLOCKING_WAIT=1 the CPU blocks in wait(), which polls: it ran from %s to %s and the copy ended at %s, %s",
			bw.rel(bw.WaitStartUS), bw.rel(bw.WaitReturnUS), bw.rel(bw.CommEndUS), ended)
		if bw.AfterStartUS > 0 {
			fmt.Fprintf(&b, ", and the next kernel started at %s, %s after the copy ended", bw.rel(bw.AfterStartUS), prose.Us(bw.AfterStartUS-bw.CommEndUS))
		}
		b.WriteString(".")
	}
	return b.String() + "\n"
}

func (r *Result) raceAnswer() string {
	var counts, orders []string
	sameOrder := true
	var total any
	for _, s := range Settings {
		c := r.Case("modify_before_wait", s.Name)
		if c == nil {
			continue
		}
		total = c.Facts["out_elements"]
		counts = append(counts, count(c.Facts["out_modified_elements"])+" ("+s.Name+")")
		// Which kernel started first, not the intervals: Exercise 3 asks how long they ran side by side.
		copyFirst, fillFirstEnd := c.CommStartUS < c.ModifyStartUS, c.ModifyEndUS < c.CommEndUS
		sameOrder = sameOrder && copyFirst && fillFirstEnd
		orders = append(orders, fmt.Sprintf("%s: the copy started first: %s, the fill ended first: %s", s.Name, yesNo(copyFirst), yesNo(fillFirstEnd)))
	}
	if len(counts) == 0 {
		return ""
	}
	order := "in each run the copy started first and the fill overtook it before it ended"
	if !sameOrder {
		order = strings.Join(orders, "; ")
	}
	s := "- **The input modified in between** (filled with 2.0 after the call, before wait()) is a data race: the fill runs on the current stream while the collective reads the input on its own, and how much of the output it corrupts depends on which reaches the GPU first. Here " +
		order + ", and " + prose.List(counts) + " of the " + count(total) + " output elements hold 2.0; if the fill gets there first, every element can hold 2.0."
	if c := r.Case("modify_after_wait", "default"); c != nil {
		s += fmt.Sprintf(" The same fill after wait() started %s after the copy ended: %s output elements hold 2.0.", prose.Us(c.ModifyStartUS-c.CommEndUS), count(c.Facts["out_modified_elements"]))
	}
	return s + "\n"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// count writes a count the script recorded, grouped ("268,435,456").
func count(v any) string {
	if n, err := strconv.Atoi(fmt.Sprint(v)); err == nil {
		return prose.Count(n)
	}
	return fmt.Sprint(v)
}
