package doctor

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/commlab/commlab/parse/flightrec"
	"github.com/commlab/commlab/parse/hanglab"
	"github.com/commlab/commlab/probes"
)

// CheckHang reads a hang from what the evidence holds: the ranks' Flight
// Recorder dumps through flightrec (timing on or off as the dumps, the
// job's environment or its log say), their stacks (py-spy or
// faulthandler), the nodes' kernel logs and NCCL's WARN lines. It follows
// the decision tree: a rank that left no dump first (did it crash or get
// killed?), every rank inside one collective with none done (the network
// or a dead rank), ranks at different places (the alignment of sequence
// ids), unpaired sends. The analysis is returned for the report.
func CheckHang(ev *Evidence) (Verdict, *flightrec.Analysis) {
	v := Verdict{Layer: LayerHang, Check: "hang", Chapter: chapterTroubleshoot}
	dumps := ev.FlightRecorder
	if len(dumps) == 0 {
		summary := "no Flight Recorder dumps: give --fr DIR with one dump per rank"
		if d := ev.TorchSetting("TORCH_NCCL_DUMP_ON_TIMEOUT"); d.Known && truthy(d.Value) {
			summary += "; this job writes them at a timeout (" + d.String() + "), to TORCH_FR_DUMP_TEMP_FILE<rank> (unset: $XDG_CACHE_HOME/torch/comm_lib_trace_rank_<rank>, else ~/.cache/torch/comm_lib_trace_rank_<rank>: PyTorch c10d's DebugInfoWriter::getWriter)"
		} else if d.Known {
			summary += "; this job writes none at a timeout (" + d.String() + "): set TORCH_NCCL_DUMP_ON_TIMEOUT=1"
		} else {
			summary += "; whether this job writes them at a timeout is not known (" + d.Source + ")"
		}
		v.judge(Skipped, summary, "")
		return v, nil
	}
	opt := flightrec.Options{}
	if t := ev.timingSetting(); t.Known {
		opt.Timing, opt.TimingSource = flightrec.TimingOff, t.String()
		if truthy(t.Value) {
			opt.Timing = flightrec.TimingOn
		}
	}
	a := flightrec.AnalyzeWith(dumps, opt)
	v.Evidence = append(v.Evidence, fmt.Sprintf("%d dumps, ranks %s", len(dumps), flightrec.RankRanges(a.Ranks)))
	for _, g := range a.Groups {
		v.Evidence = append(v.Evidence, g.Verdict)
		if !g.NoEvents && g.StuckSeq > 0 {
			why := g.TimingWhy
			if why == "" {
				why = "neither the dumps nor the job's environment or log say"
			}
			v.Evidence = append(v.Evidence, fmt.Sprintf("pg %s: start events %s (%s)", g.PG, g.Timing, why))
		}
	}
	v.Evidence = append(v.Evidence, a.Warnings...)
	v.Evidence = append(v.Evidence, a.Notes...)
	v.Evidence = append(v.Evidence, stackLines(ev.Stacks)...)

	kinds := map[string]flightrec.Finding{}
	var order []string
	for _, f := range a.Findings {
		if _, ok := kinds[f.Kind]; !ok {
			order = append(order, f.Kind)
		}
		kinds[f.Kind] = f
	}
	if len(a.Findings) == 0 {
		if g, ranks, where, ok := stuckByStacks(a, ev.Stacks); ok {
			// A backend without completion records (gloo) dumps the same
			// last collective on every rank whether it finished or not;
			// the stacks say it did not.
			v.judge(Fail, fmt.Sprintf("every rank (%s) called %s #%d of pg %s last and every rank's stack is inside it (%s): no rank is behind, the collective itself cannot finish; this points at the network or a dead rank",
				flightrec.RankRanges(ranks), opAt(dumps, g.PG, g.States[0].LastEnqueued), g.States[0].LastEnqueued, g.PG, where), sameNext)
			v.Branch = BranchHangSame
			v.Evidence = append(v.Evidence, fmt.Sprintf("pg %s: %s records no completion, so the dumps alone cannot tell a finished collective from a stuck one", g.PG, g.Backend))
			return v, a
		}
		if g, ok := noCompletionGroup(a); ok {
			// gloo records no completion: the same last collective on every
			// rank is what a finished step and a hang both leave.
			base := fmt.Sprintf("cannot tell: pg %s (%s) records no completion, and every rank's dump ends at the same collective (#%d), which a finished step and a hang inside that collective both leave", g.PG, orDash(g.Backend), g.States[0].LastEnqueued)
			if outside := ranksOutsideCollective(ev.Stacks); len(ev.Stacks) > 0 {
				v.judge(Skipped, base+fmt.Sprintf("; the stacks do not put every rank inside it (%s elsewhere)", orNone(outside)),
					"read the stacks of the ranks outside torch.distributed: a rank still working (a data loader, an exception) is the one the others wait for, if they wait")
			} else {
				v.judge(Skipped, base+"; give the ranks' stacks (--stacks DIR, py-spy dump --pid on each) to tell them apart",
					"py-spy dump --pid <each rank's pid> > rank_N.txt while the job hangs, then --stacks DIR: a rank whose stack is inside torch.distributed is waiting in the collective")
			}
			v.Evidence = append(v.Evidence, fmt.Sprintf("pg %s: %s records no completion, so the dumps alone cannot tell a finished collective from a stuck one", g.PG, orDash(g.Backend)))
			return v, a
		}
		v.judge(OK, fmt.Sprintf("no rank behind and no mismatch in %d process group(s)", len(a.Groups)), "")
		return v, a
	}
	summary, next := strings.Join(a.Verdict, "; "), ""
	causes := kernelCauses(ev)
	warns := ncclWarnLines(ev, 5)
	switch {
	case has(kinds, flightrec.FindingNoDump):
		f := kinds[flightrec.FindingNoDump]
		v.Branch = BranchHangSame
		summary = fmt.Sprintf("%s left no dump: did %s crash or get killed? ", flightrec.RanksPhrase(f.Ranks), flightrec.Pronoun(f.Ranks)) + summary
		next = fmt.Sprintf("first find out whether %s process is alive: ps on its node, py-spy dump --pid (a dead process leaves no stack), its stderr for an exception or 'terminate called', the node's dmesg for an Xid or the OOM killer; the other ranks only wait for it", possessiveOf(f.Ranks))
		v.Evidence = append(v.Evidence, aliveLines(ev.Stacks, f.Ranks)...)
	case has(kinds, flightrec.FindingAllStuck):
		v.Branch = BranchHangSame
		summary += "; this points at the network or a dead rank"
		next = sameNext
		if g, ok := stuckGroup(a); ok && g.Timing != flightrec.TimingOn {
			v.Evidence = append(v.Evidence, "the dump cannot tell whether the GPUs started the collective (start events "+g.Timing.String()+"); TORCH_NCCL_ENABLE_TIMING=1 records them next time")
			summary += "; or one rank's GPU is held by earlier work (a long or hung kernel, another process on it) and has not reached the collective: with start events " + g.Timing.String() + " the dumps cannot tell that from a collective stuck in the network"
			next = "first nvidia-smi on every node (a GPU at 100% with no progress, or another process on it, is the rank the others wait for) and py-spy dump on each rank; then " + sameNext
		}
	case has(kinds, flightrec.FindingUnpairedP2P) || has(kinds, flightrec.FindingCrossGroup):
		v.Branch = BranchHangSome
		next = "match every send with its receive (the p2p entries name the peer); for groups waiting on each other, call the collectives of each group in one order on every rank"
	default:
		v.Branch = BranchHangDiffer
		next = "look at what the culprit rank was doing before the collective (its stack: py-spy dump on the live process, --stacks DIR): a slow data loader, an exception, a branch the other ranks did not take"
	}
	if len(causes) > 0 {
		summary += "; the kernel log names a cause: " + causes[0]
		v.Evidence = append(v.Evidence, causes...)
	}
	v.judge(Fail, summary, next)
	if len(warns) > 0 {
		v.Evidence = append(v.Evidence, warns...)
	}
	v.Evidence = append(v.Evidence, "findings in order: "+strings.Join(order, ", "))
	return v, a
}

// sameNext is the same-place branch's checks, in order.
const sameNext = "check, in order: every rank's process alive (py-spy dump on each; --stacks DIR reads them); dmesg on every node for NVRM Xid (a GPU fault) or a NIC port down (--dmesg FILE reads it); ibstat on each NIC: State Active, and the error counters (symbol errors, link downed, port rcv errors) not rising; the NCCL WARN lines just before the stop (NCCL_DEBUG=WARN)"

// stuckByStacks finds a process group whose dumps record no completion
// (gloo), where every member dumped, every dump ends at the same
// collective, and every member's stack stands inside torch.distributed:
// every rank is in that collective. It returns the group, its ranks and
// the frame.
func stuckByStacks(a *flightrec.Analysis, stacks []hanglab.Stack) (flightrec.GroupReport, []int, string, bool) {
	frame := map[int]string{}
	for _, s := range stacks {
		if f := s.Where(); !s.Gone && f.Func != "" && strings.Contains(f.File, "torch/distributed/") {
			frame[s.Rank] = fmt.Sprintf("%s (%s:%d)", f.Func, path.Base(f.File), f.Line)
		}
	}
	for _, g := range a.Groups {
		if !g.NoEvents || len(g.NoDump) > 0 || len(g.States) < 2 {
			continue
		}
		last := g.States[0].LastEnqueued
		var ranks []int
		wheres := map[string]bool{}
		for _, st := range g.States {
			f, ok := frame[st.Rank]
			if st.LastEnqueued != last || last == 0 || !ok {
				ranks = nil
				break
			}
			ranks = append(ranks, st.Rank)
			wheres[f] = true
		}
		if len(ranks) == 0 {
			continue
		}
		ws := slices.Sorted(maps.Keys(wheres))
		return g, ranks, strings.Join(ws, ", "), true
	}
	return flightrec.GroupReport{}, nil, "", false
}

// noCompletionGroup finds a process group whose dumps record no
// completion (gloo) and where every member dumped and ends at one
// collective: the dumps cannot say whether it finished.
func noCompletionGroup(a *flightrec.Analysis) (flightrec.GroupReport, bool) {
	for _, g := range a.Groups {
		if !g.NoEvents || len(g.NoDump) > 0 || len(g.States) < 2 || g.States[0].LastEnqueued == 0 {
			continue
		}
		same := true
		for _, st := range g.States {
			same = same && st.LastEnqueued == g.States[0].LastEnqueued
		}
		if same {
			return g, true
		}
	}
	return flightrec.GroupReport{}, false
}

// ranksOutsideCollective names the ranks whose stack is not inside
// torch.distributed ("rank 1 at load_batch").
func ranksOutsideCollective(stacks []hanglab.Stack) []string {
	var out []string
	for _, s := range stacks {
		f := s.Where()
		if s.Gone || !strings.Contains(f.File, "torch/distributed/") {
			at := f.Func
			if s.Gone {
				at = "no process"
			}
			out = append(out, fmt.Sprintf("rank %d at %s", s.Rank, orDash(at)))
		}
	}
	return out
}

// opAt names collective seq of group pg as the dumps recorded it.
func opAt(dumps []*flightrec.Dump, pg string, seq int64) string {
	for _, d := range dumps {
		for _, e := range d.Entries {
			if e.PGName == pg && !e.IsP2P && e.CollectiveSeqID == seq && e.Op != "" {
				return e.Op
			}
		}
	}
	return "collective"
}

func has(m map[string]flightrec.Finding, k string) bool {
	_, ok := m[k]
	return ok
}

func stuckGroup(a *flightrec.Analysis) (flightrec.GroupReport, bool) {
	for _, g := range a.Groups {
		if g.StuckSeq > 0 {
			return g, true
		}
	}
	return flightrec.GroupReport{}, false
}

// possessiveOf names whose process: "rank 3's" for one rank (flightrec's
// own possessive says "its", too vague for an instruction), "their" for
// several.
func possessiveOf(rs []int) string {
	if len(rs) == 1 {
		return fmt.Sprintf("rank %d's", rs[0])
	}
	return "their"
}

// stackLines sums the stacks up: ranks whose main thread stands in the
// same place are one line.
func stackLines(stacks []hanglab.Stack) []string {
	where := map[string][]int{}
	var keys []string
	for _, s := range stacks {
		k := ""
		switch f := s.Where(); {
		case s.Gone:
			k = s.Source + " could not read the process: it was not running"
		case f.Func != "":
			k = fmt.Sprintf("%s: in %s (%s:%d)", s.Source, f.Func, path.Base(f.File), f.Line)
		default:
			continue
		}
		if _, ok := where[k]; !ok {
			keys = append(keys, k)
		}
		where[k] = append(where[k], s.Rank)
	}
	var out []string
	for _, k := range keys {
		out = append(out, fmt.Sprintf("stack of %s, %s", flightrec.RanksPhrase(where[k]), k))
	}
	return out
}

// aliveLines say, from the stacks, whether the ranks without a dump were
// running.
func aliveLines(stacks []hanglab.Stack, ranks []int) []string {
	var out []string
	for _, r := range ranks {
		found := false
		for _, s := range stacks {
			if s.Rank != r {
				continue
			}
			found = true
			if s.Gone {
				out = append(out, fmt.Sprintf("rank %d's process was gone when its stack was taken (%s: %s)", r, s.Source, s.Error))
			} else {
				out = append(out, fmt.Sprintf("rank %d's process was alive when its stack was taken: %s", r, s))
			}
		}
		if !found && len(stacks) > 0 {
			out = append(out, fmt.Sprintf("rank %d left no stack either", r))
		}
	}
	return out
}

// ncclWarnLines are the first n NCCL WARN lines of the log.
func ncclWarnLines(ev *Evidence, n int) []string {
	if ev.NCCLLog == nil {
		return nil
	}
	var out []string
	for _, w := range ev.NCCLLog.Warnings {
		if len(out) == n {
			out = append(out, fmt.Sprintf("... %d more NCCL WARN lines", ev.NCCLLog.Total("warnings")-n))
			break
		}
		out = append(out, fmt.Sprintf("NCCL WARN (%s): %s", w.Source, w.Text))
	}
	return out
}

// Slow-rank thresholds: a rank this much slower than the median of the
// others is flagged. Run-to-run spread on one healthy node is a few per
// cent (the lab's H200 runs), so 1.2 leaves room without hiding a node that
// is a fifth slower.
const (
	slowWarn = 1.2
	slowFail = 1.5
)

// CheckRanks finds a slow rank or node from per-rank times of the same
// work: one much slower than the median sets everyone's pace in a
// collective.
func CheckRanks(times []RankTime) Verdict {
	v := Verdict{Layer: LayerCollective, Check: "slow-rank", Chapter: chapterTroubleshoot}
	if len(times) < 2 {
		return v.judge(Skipped, "no per-rank times (give one run per node with --rank-runs, or the job's per-rank step times)", "")
	}
	ts := make([]float64, len(times))
	for i, t := range times {
		ts[i] = t.TimeUS
	}
	median := probes.Median(ts)
	worst, ratio := times[0], 0.0
	for _, t := range times {
		who := fmt.Sprintf("rank %d", t.Rank)
		if t.Host != "" {
			who += " (" + t.Host + ")"
		}
		v.Evidence = append(v.Evidence, fmt.Sprintf("%s: %s %s", who, t.What, usText(t.TimeUS)))
		if median > 0 && t.TimeUS/median > ratio {
			worst, ratio = t, t.TimeUS/median
		}
	}
	who := fmt.Sprintf("rank %d", worst.Rank)
	if worst.Host != "" {
		who += " on " + worst.Host
	}
	slow := fmt.Sprintf("%s takes %s, %.2fx the median %s: every collective waits for it", who, usText(worst.TimeUS), ratio, usText(median))
	const next = "run the node's own checks (this report on that node: PCIe width, NVLink, NIC rate, clocks and thermals in nvidia-smi -q) and a pairwise run between it and a good node"
	switch {
	case ratio >= slowFail:
		v.judge(Fail, slow, next)
	case ratio >= slowWarn:
		v.judge(Warn, slow, next)
	default:
		v.judge(OK, fmt.Sprintf("%d ranks, the slowest %.2fx the median (%s)", len(times), ratio, usText(median)), "")
	}
	return v
}

// minStragglerOps is how many completed, timed collectives the straggler
// reading needs before it says anything.
const minStragglerOps = 5

// CheckStraggler reads the Flight Recorder's per-collective durations
// (recorded when TORCH_NCCL_ENABLE_TIMING=1) across ranks. In a
// collective every rank waits for the last to arrive, so the late rank
// shows the shortest duration and the others the longest: the rank whose
// duration is the shortest in most collectives, by a wide margin, is the
// one the others wait for (a slow data loader, a slow GPU, a busy CPU).
func CheckStraggler(dumps []*flightrec.Dump) Verdict {
	v := Verdict{Layer: LayerHang, Check: "straggler", Chapter: chapterTroubleshoot}
	type key struct {
		pg  int64
		seq int64
	}
	durs := map[key]map[int]float64{}
	for _, d := range dumps {
		for _, e := range d.Entries {
			if !e.HasDuration || e.IsP2P || e.State != flightrec.StateCompleted || e.CollectiveSeqID == 0 {
				continue
			}
			k := key{e.PGID, e.CollectiveSeqID}
			if durs[k] == nil {
				durs[k] = map[int]float64{}
			}
			durs[k][d.Rank] = e.DurationMs
		}
	}
	shortest := map[int]int{}
	var ratios []float64
	ops := 0
	for _, byRank := range durs {
		if len(byRank) < 2 || len(byRank) < len(dumps) {
			continue
		}
		ops++
		minR, minD := -1, 0.0
		var others []float64
		for r, d := range byRank {
			if minR < 0 || d < minD || (d == minD && r < minR) {
				minR, minD = r, d
			}
		}
		for r, d := range byRank {
			if r != minR {
				others = append(others, d)
			}
		}
		sort.Float64s(others)
		shortest[minR]++
		if minD > 0 {
			ratios = append(ratios, others[len(others)/2]/minD)
		}
	}
	if ops < minStragglerOps {
		return v.judge(Skipped, fmt.Sprintf("%d collectives timed on every rank (TORCH_NCCL_ENABLE_TIMING=1 records durations); %d needed", ops, minStragglerOps), "")
	}
	rank, n := -1, 0
	for r, c := range shortest {
		if c > n || (c == n && r < rank) {
			rank, n = r, c
		}
	}
	sort.Float64s(ratios)
	ratio := 0.0
	if len(ratios) > 0 {
		ratio = ratios[len(ratios)/2]
	}
	v.Evidence = append(v.Evidence, fmt.Sprintf("%d collectives timed on all %d ranks; rank %d had the shortest duration in %d; the others' median duration is %.1fx its own", ops, len(dumps), rank, n, ratio))
	if float64(n) >= 0.8*float64(ops) && ratio >= 2 {
		return v.judge(Warn, fmt.Sprintf("rank %d arrives last at %d of %d collectives: the other ranks wait for it (their collectives take %.1fx as long)", rank, n, ops, ratio),
			"profile rank "+fmt.Sprint(rank)+" between collectives (data loading, host work, its GPU's clocks); a pairwise or per-node run tells a slow node from slow work")
	}
	return v.judge(OK, fmt.Sprintf("no rank is consistently last in %d timed collectives", ops), "")
}
