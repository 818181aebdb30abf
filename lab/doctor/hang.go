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
