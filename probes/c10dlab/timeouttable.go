package c10dlab

import (
	"strconv"
	"strings"

	"github.com/commlab/commlab/prose"
)

// Heading says in one line what the timeout runs were: ranks, timeout,
// how long the collective was held past it and, for a shortened live run,
// the dump wait it set.
func (p *TimeoutPart) Heading() string {
	wait := ""
	if p.DumpWaitMS > 0 {
		wait = ", TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC=" + prose.Num(p.DumpWaitMS)
	}
	return prose.Plural(p.World, "rank") + ", timeout " + prose.Secs(p.TimeoutS) + ", the collective held " +
		prose.Secs(p.StallS) + " past it" + wait + "; the mode is TORCH_NCCL_ASYNC_ERROR_HANDLING"
}

// Table is one row per mode of what rank 0 saw, in seconds after the
// collective was issued: what wait() did, what the next all_reduce did,
// the time from the watchdog catching the timeout to the process being
// taken down (read from the log lines' time of day), how the process
// ended and how many Flight Recorder dumps it left.
func (p *TimeoutPart) Table() *prose.Table {
	t := prose.NewTable("mode", "wait() on rank 0", "after the call", "the next all_reduce", "after the call", "timeout caught to process down", "process", "dumps")
	for _, run := range p.Runs {
		if len(run.Ranks) == 0 {
			continue
		}
		r0 := run.Ranks[0]
		issued, _ := r0.Reached("collective issued")
		first, after := "returned, nothing raised", ""
		if m, ok := r0.Reached("wait() raised"); ok {
			first, after = said(m), prose.Secs(m.TS-issued.TS)
		} else if m, ok := r0.Reached("wait() returned"); ok {
			first, after = "returned", prose.Secs(m.TS-issued.TS)
		}
		next, nextAfter := "not reached", ""
		if m, ok := r0.Reached("a second all_reduce"); ok {
			next, nextAfter = said(m), prose.Secs(m.TS-issued.TS)
			if m.Error == "" {
				next = "completed"
			}
		}
		down := "no watchdog log"
		caught, caughtOK := r0.LogSeconds("Watchdog caught collective operation timeout")
		failed, failedOK := r0.LogSeconds("Some NCCL operations have failed")
		if caughtOK && failedOK {
			down = prose.Secs(failed - caught)
		}
		t.Row(run.Mode, first, after, next, nextAfter, down, r0.Exit.String()+", last reached: "+r0.Last().What, strconv.Itoa(len(run.FRDumps)))
	}
	return t
}

// said is what a mark says in a table cell: "raised" and the error, with
// gloo's source location prefix ("[.../gloo/transport/...:N] ") left out,
// or the mark's own words.
func said(m Mark) string {
	e := m.Error
	if i := strings.Index(e, "] "); i > 0 && strings.Contains(e[:i], "gloo/") {
		if j := strings.Index(e, "["); j >= 0 && j < i {
			e = e[:j] + e[i+2:]
		}
	}
	if e == "" {
		return m.What
	}
	return "raised " + e
}
