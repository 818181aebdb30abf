package c10dlab

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/commlab/commlab/prose"
)

// The chapter's tables and lines over a run's parts: the machinery its
// cells call, so that a cell shows what it reads, not how it formats.

// Table is every rank's store traffic in order: one row per call (the key
// and the value's size) or per mark the rank wrote between calls.
func (p *StorePart) Table() *prose.Table {
	t := prose.NewTable("rank", "ms since the rank started", "call", "key", "value")
	for _, rk := range p.Ranks {
		for _, op := range rk.Ops {
			if op.Op == "mark" {
				t.Row(strconv.Itoa(rk.Rank), prose.Num(op.TMS), "", "("+op.Key+")", "")
				continue
			}
			value := ""
			if op.Bytes > 0 {
				value = prose.Size(float64(op.Bytes))
			}
			t.Row(strconv.Itoa(rk.Rank), prose.Num(op.TMS), op.Op, "`"+op.Key+"`", value)
		}
	}
	return t
}

// WatchdogLines are the log lines, rank 0's, of each mode that say when the
// watchdog caught the timeout, asked for the dumps and took the process
// down, each after its mode in brackets.
func (p *TimeoutPart) WatchdogLines() []string {
	var out []string
	for _, run := range p.Runs {
		if len(run.Ranks) == 0 {
			continue
		}
		for _, what := range []string{"Watchdog caught collective operation timeout", "Broadcasting signal exception_dump", "Some NCCL operations have failed"} {
			if l := run.Ranks[0].LogWith(what); l != "" {
				out = append(out, "["+run.Mode+"] "+l)
			}
		}
	}
	return out
}

// EndingsTable is how each mode's rank 0 ended and the dumps it left, from
// a log's endings (FirstRunEndings).
func EndingsTable(endings []LoggedEnding) *prose.Table {
	t := prose.NewTable("mode", "rank 0's process", "Flight Recorder dumps")
	for _, e := range endings {
		exit := ""
		if len(e.Exits) > 0 {
			exit = e.Exits[0].String()
		}
		t.Row(e.Mode, exit, strconv.Itoa(e.Dumps))
	}
	return t
}

// Text says what the compile part found: the eager result's type, Dynamo's
// graph, and for each Inductor configuration run the calls of its
// generated code and those issued between the collective and its wait.
func (c *CompilePart) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "eager: funcol.all_reduce returned an %s (it waits at its first use); compiled matches eager: %v\n", c.EagerResultType, c.CompiledMatchesEager)
	fmt.Fprintln(&b, "Dynamo's graph:", strings.Join(c.DynamoOps, " -> "))
	for _, name := range InductorConfigs {
		code, ok := c.Inductor[name]
		if !ok {
			continue
		}
		if code.Error != "" {
			fmt.Fprintf(&b, "Inductor, %s: %s\n", name, code.Error)
			continue
		}
		under := "nothing, the wait follows the collective at once"
		if u := code.UnderCollective(); len(u) > 0 {
			under = strings.Join(u, ", ")
		}
		fmt.Fprintf(&b, "Inductor, %s: %s\n    between the collective and its wait: %s\n", name, strings.Join(code.Ops, " -> "), under)
	}
	return b.String()
}

// Markdown is the coalescing tables, one per tensor size, each under a line
// that says the size, the op and the ranks: per group size, the group's
// median time by each method and the separate calls' time per tensor; on a
// GPU each cell adds the kernels and the NCCL calls one group made (the
// profiler lists ProcessGroupNCCL's "nccl:..." ranges among the GPU
// events: they count as calls). Below the tables, why a method was not
// supported, and on a GPU how much less the largest group cost through
// all_reduce_coalesced than one by one.
func (p *CoalescePart) Markdown() string {
	var b strings.Builder
	why := map[string]string{}
	for _, size := range p.Sizes() {
		t := prose.NewTable("tensors", "separate", "coalescing_manager", "all_reduce_coalesced", "flat (one buffer)", "separate per tensor")
		for _, n := range p.Counts() {
			cells := []string{strconv.Itoa(n)}
			for _, method := range CoalesceMethods {
				cells = append(cells, p.cell(p.Row(method, n, size), why))
			}
			per := ""
			if row := p.Row("separate", n, size); row != nil && row.Error == "" {
				per = prose.Us(row.TotalUS / float64(n))
			}
			t.Row(append(cells, per)...)
		}
		ranks := prose.Plural(p.World, "rank")
		if p.World == 1 {
			ranks = "one rank"
		}
		fmt.Fprintf(&b, "**%s per tensor, %s over %s**", prose.Size(float64(size)), p.Op, ranks)
		if r := p.Row("separate", 1, size); r != nil && r.GPUKernels > 0 {
			b.WriteString(" (each cell: the group's time · the GPU kernels / the NCCL calls it made)")
		}
		b.WriteString("\n\n" + t.Markdown() + "\n")
	}
	for _, method := range CoalesceMethods {
		if why[method] != "" {
			fmt.Fprintf(&b, "%s: %s\n\n", method, why[method])
		}
	}
	for _, line := range p.gains() {
		b.WriteString(line + "\n\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// cell is one method's time for a group, with the kernels and calls on a
// GPU; a method that failed reads "not supported" and its error goes to why.
func (p *CoalescePart) cell(row *CoalesceRow, why map[string]string) string {
	switch {
	case row == nil:
		return ""
	case row.Error != "":
		why[row.Method] = row.Error
		return "not supported"
	}
	cell := prose.Us(row.TotalUS)
	if row.GPUKernels > 0 {
		kernels, calls := 0, 0
		for name, n := range row.KernelNames {
			if strings.HasPrefix(name, "nccl:") {
				calls += n
			} else {
				kernels += n
			}
		}
		cell += fmt.Sprintf(" · %d / %d", kernels, calls)
	}
	return cell
}

// gains says, on a GPU, for each tensor size how the largest group's time
// one by one compares with all_reduce_coalesced.
func (p *CoalescePart) gains() []string {
	counts := p.Counts()
	if len(counts) == 0 {
		return nil
	}
	var out []string
	n := counts[len(counts)-1]
	for _, size := range p.Sizes() {
		one, grouped := p.Row("separate", n, size), p.Row("all_reduce_coalesced", n, size)
		if one == nil || grouped == nil || one.Error != "" || grouped.Error != "" || one.GPUKernels == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("%d tensors of %s: one by one %s (%s a tensor), all_reduce_coalesced %s (%s a tensor): %.1fx less",
			n, prose.Size(float64(size)), prose.Us(one.TotalUS), prose.Us(one.TotalUS/float64(n)),
			prose.Us(grouped.TotalUS), prose.Us(grouped.TotalUS/float64(n)), one.TotalUS/grouped.TotalUS))
	}
	return out
}
