package doctor

import (
	"fmt"
	"sort"
	"strings"

	"github.com/commlab/commlab/probes/parse/flightrec"
)

// CheckHang reads the ranks' Flight Recorder dumps of one job through
// flightrec.Analyze: the rank and the collective that fell behind, ranks
// that disagree on a collective's sizes or order, unpaired sends.
func CheckHang(dumps []*flightrec.Dump) (Verdict, *flightrec.Analysis) {
	v := Verdict{Layer: LayerHang, Check: "hang", Chapter: chapterTroubleshoot}
	if len(dumps) == 0 {
		v.Status, v.Summary = Skipped, "no Flight Recorder dumps: give --fr DIR with one dump per rank (TORCH_NCCL_DUMP_ON_TIMEOUT=1 writes them)"
		return v, nil
	}
	a := flightrec.Analyze(dumps)
	v.Evidence = append(v.Evidence, fmt.Sprintf("%d dumps, ranks %s", len(dumps), flightrec.RankRanges(a.Ranks)))
	for _, g := range a.Groups {
		v.Evidence = append(v.Evidence, g.Verdict)
	}
	v.Evidence = append(v.Evidence, a.Warnings...)
	if len(a.Findings) == 0 {
		v.Status = OK
		v.Summary = fmt.Sprintf("no rank behind and no mismatch in %d process group(s)", len(a.Groups))
		return v, a
	}
	v.Status = Fail
	var parts []string
	for _, f := range a.Findings {
		parts = append(parts, f.Detail)
	}
	v.Summary = strings.Join(parts, "; ")
	v.Next = "look at what the culprit rank was doing before the collective (its stack in the dump, py-spy dump on the live process): a slow data loader, an exception, a branch the other ranks did not take"
	return v, a
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
		v.Status, v.Summary = Skipped, "no per-rank times (give one run per node with --rank-runs, or the job's per-rank step times)"
		return v
	}
	ts := make([]float64, len(times))
	for i, t := range times {
		ts[i] = t.TimeUS
	}
	sort.Float64s(ts)
	median := ts[len(ts)/2]
	if len(ts)%2 == 0 {
		median = (ts[len(ts)/2-1] + ts[len(ts)/2]) / 2
	}
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
	switch {
	case ratio >= slowFail:
		v.Status = Fail
	case ratio >= slowWarn:
		v.Status = Warn
	default:
		v.Status = OK
		v.Summary = fmt.Sprintf("%d ranks, the slowest %.2fx the median (%s)", len(times), ratio, usText(median))
		return v
	}
	v.Summary = fmt.Sprintf("%s takes %s, %.2fx the median %s: every collective waits for it", who, usText(worst.TimeUS), ratio, usText(median))
	v.Next = "run the node's own checks (this report on that node: PCIe width, NVLink, NIC rate, clocks and thermals in nvidia-smi -q) and a pairwise run between it and a good node"
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
		v.Status = Skipped
		v.Summary = fmt.Sprintf("%d collectives timed on every rank (TORCH_NCCL_ENABLE_TIMING=1 records durations); %d needed", ops, minStragglerOps)
		return v
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
		v.Status = Warn
		v.Summary = fmt.Sprintf("rank %d arrives last at %d of %d collectives: the other ranks wait for it (their collectives take %.1fx as long)", rank, n, ops, ratio)
		v.Next = "profile rank " + fmt.Sprint(rank) + " between collectives (data loading, host work, its GPU's clocks); a pairwise or per-node run tells a slow node from slow work"
		return v
	}
	v.Status = OK
	v.Summary = fmt.Sprintf("no rank is consistently last in %d timed collectives", ops)
	return v
}
