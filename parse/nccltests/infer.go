package nccltests

// What a run's columns say when its header does not: the collective
// (Run.Collective, Run.CollectiveFrom) and the rank count (Run.Ranks,
// Run.RanksFrom). nccl-tests (src/*.cu, 2.19) prints, per collective:
//
//	collective      size / (count x type size)  redop    root   busbw / algbw
//	all_reduce      1                           an op    -1     2(n-1)/n
//	reduce_scatter  n                           an op    -1     (n-1)/n
//	all_gather      n                           none     -1     (n-1)/n
//	alltoall        n                           none     -1     (n-1)/n
//	hypercube       n                           (blank)  -1     1
//	gather          n                           none     0..    (n-1)/n
//	scatter         n                           none     0..    (n-1)/n
//	broadcast       1                           none     0..    1
//	reduce          1                           an op    0..    1
//	sendrecv        1                           an op    -1     1
//
// Before 2.13 each test printed only its own columns: no redop column
// where the collective takes no operation (all_gather, alltoall,
// hypercube, sendrecv, broadcast, gather, scatter), no root column where
// it has no root; 2.13 printed a blank redop for all_gather and
// hypercube. A row without an operation is then a collective without
// one, a row without a root an unrooted one, whatever the layout.
// busbw and algbw are printed
// to two decimals (one or none once they pass 1000 and 10000 GB/s), so
// each row bounds busbw/algbw to an interval; the intersection over the
// rows bounds the factor, and the factor the rank count.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

type collectiveShape struct {
	name string
	// perRank: size is the count times the ranks (1 for the others).
	perRank bool
	// op: whether the redop column holds a reduction (opAny: it did in
	// some versions and not in others).
	op opKind
	// rooted: the root column holds a rank; otherwise -1.
	rooted bool
	// factor is busbw/algbw on n ranks.
	factor func(n float64) float64
}

type opKind int

const (
	opNo opKind = iota
	opYes
	opAny
)

var (
	twoRing   = func(n float64) float64 { return 2 * (n - 1) / n }
	oneRing   = func(n float64) float64 { return (n - 1) / n }
	unitRatio = func(float64) float64 { return 1 }
)

// shapes lists every collective nccl-tests has, in the order their names
// are given when the columns fit several.
var shapes = []collectiveShape{
	{"all_reduce", false, opYes, false, twoRing},
	{"reduce_scatter", true, opYes, false, oneRing},
	{"all_gather", true, opNo, false, oneRing},
	{"alltoall", true, opNo, false, oneRing},
	{"hypercube", true, opNo, false, unitRatio},
	{"gather", true, opNo, true, oneRing},
	{"scatter", true, opNo, true, oneRing},
	{"broadcast", false, opNo, true, unitRatio},
	{"reduce", false, opYes, true, unitRatio},
	// sendrecv printed no redop before 2.13, "sum" since.
	{"sendrecv", false, opAny, false, unitRatio},
}

// maxRanks bounds the rank counts considered.
const maxRanks = 1 << 20

// typeSizes are the bytes per element of the type names nccl-tests
// prints, old ("char", "int") and new.
var typeSizes = map[string]int64{
	"int8": 1, "uint8": 1, "char": 1, "f8e4m3": 1, "f8e5m2": 1, "fp8_e4m3": 1, "fp8_e5m2": 1,
	"half": 2, "bfloat16": 2, "float16": 2, "bf16": 2,
	"int32": 4, "uint32": 4, "int": 4, "float": 4, "float32": 4,
	"int64": 8, "uint64": 8, "double": 8, "float64": 8,
}

// columnEvidence is what the rows show.
type columnEvidence struct {
	// ratio is size/(count x type size) when every row that tells agrees
	// (0: no row tells; -1: the rows disagree).
	ratio int64
	// op: a row holds a reduction; rooted: a row names a root.
	op, rooted bool
	// fLo..fHi bounds busbw/algbw; fKnown when a row bounded it, fEmpty
	// when the rows' bounds do not meet.
	fLo, fHi       float64
	fKnown, fEmpty bool
}

// printTolerance is half the last printed digit of a bandwidth v as
// nccl-tests prints it (getFloatStr, width 6), widened a little for the
// JSON's exact values and rounding in the other direction.
func printTolerance(v float64) float64 {
	switch a := math.Abs(v); {
	case a < 999.995:
		return 0.0051
	case a < 9999.95:
		return 0.051
	default:
		return 0.51 + a*1e-4
	}
}

func (r *Run) evidence() columnEvidence {
	ev := columnEvidence{fLo: 0, fHi: math.Inf(1)}
	for _, row := range r.Rows {
		if row.RedOp != "" && row.RedOp != "none" {
			ev.op = true
		}
		if row.Root >= 0 {
			ev.rooted = true
		}
		if ts, ok := typeSizes[strings.ToLower(row.Type)]; ok && row.Count > 0 && row.SizeBytes > 0 {
			ratio := int64(-1)
			if row.SizeBytes%(row.Count*ts) == 0 {
				ratio = row.SizeBytes / (row.Count * ts)
			}
			switch {
			case ev.ratio == 0:
				ev.ratio = ratio
			case ev.ratio != ratio:
				ev.ratio = -1
			}
		}
		for _, m := range []Measurement{row.OutOfPlace, row.InPlace} {
			if !m.Present || m.NotANumber {
				continue
			}
			ta, tb := printTolerance(m.AlgBW), printTolerance(m.BusBW)
			if m.AlgBW-ta <= 0 {
				continue // too small to bound anything
			}
			lo := math.Max(0, m.BusBW-tb) / (m.AlgBW + ta)
			hi := (m.BusBW + tb) / (m.AlgBW - ta)
			ev.fKnown = true
			ev.fLo, ev.fHi = math.Max(ev.fLo, lo), math.Min(ev.fHi, hi)
		}
	}
	ev.fEmpty = ev.fKnown && ev.fLo > ev.fHi
	return ev
}

// candidate is a collective and a rank count the columns fit; ranksLo..
// ranksHi when the count is a range (0, 0: unbounded).
type candidate struct {
	shape            collectiveShape
	ranksLo, ranksHi int
}

func (c candidate) ranks() int {
	if c.ranksLo > 0 && c.ranksLo == c.ranksHi {
		return c.ranksLo
	}
	return 0
}

// rankRange is the n whose factor falls in [lo, hi], for a factor that
// grows with n; ok false when none does.
func rankRange(factor func(float64) float64, lo, hi float64) (int, int, bool) {
	if factor(maxRanks) < lo || factor(1) > hi {
		return 0, 0, false
	}
	// Smallest n with factor(n) >= lo, largest with factor(n) <= hi.
	first := sort1(func(n int) bool { return factor(float64(n)) >= lo })
	last := sort1(func(n int) bool { return factor(float64(n)) > hi }) - 1
	if first > last {
		return 0, 0, false
	}
	return first, last, true
}

// sort1 is the smallest n in [1, maxRanks] with f(n) true (f monotone),
// maxRanks+1 when none.
func sort1(f func(int) bool) int {
	lo, hi := 1, maxRanks+1
	for lo < hi {
		mid := (lo + hi) / 2
		if f(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

func (ev columnEvidence) fits(s collectiveShape) (candidate, bool) {
	c := candidate{shape: s}
	if s.op != opAny && ev.op != (s.op == opYes) {
		return c, false
	}
	if ev.rooted != s.rooted {
		return c, false
	}
	lo, hi := 1, maxRanks
	switch {
	case ev.ratio > 1:
		if !s.perRank {
			return c, false
		}
		lo, hi = int(ev.ratio), int(ev.ratio)
	case ev.ratio == 1 && s.perRank:
		lo, hi = 1, 1 // size = count x 1 rank
	}
	if ev.fKnown {
		if ev.fEmpty {
			return c, false
		}
		flo, fhi, ok := rankRange(s.factor, ev.fLo, ev.fHi)
		if !ok {
			return c, false
		}
		if s.factor(2) == s.factor(maxRanks) { // factor 1 whatever n
			flo, fhi = 1, maxRanks
		}
		lo, hi = max(lo, flo), min(hi, fhi)
		if lo > hi {
			return c, false
		}
	}
	if lo == 1 && hi == maxRanks {
		return c, true
	}
	c.ranksLo, c.ranksHi = lo, hi
	return c, true
}

// describe is the evidence in words, for CollectiveFrom and RanksFrom.
func (ev columnEvidence) describe() string {
	var parts []string
	if ev.op {
		parts = append(parts, "redop a reduction")
	} else {
		parts = append(parts, "redop none")
	}
	if ev.rooted {
		parts = append(parts, "a root rank")
	} else {
		parts = append(parts, "no root")
	}
	switch {
	case ev.ratio == 1:
		parts = append(parts, "size = count x type size")
	case ev.ratio > 1:
		parts = append(parts, fmt.Sprintf("size = %d x count x type size", ev.ratio))
	}
	if ev.fKnown && !ev.fEmpty {
		parts = append(parts, "busbw/algbw = "+factorText(ev.fLo, ev.fHi))
	}
	return strings.Join(parts, ", ")
}

func factorText(lo, hi float64) string {
	if hi-lo < 0.002 || math.IsInf(hi, 1) {
		v := math.Round((lo+math.Min(hi, lo+0.001))/2*1000) / 1000
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(math.Round(lo*1000)/1000, 'f', -1, 64) + " to " + strconv.FormatFloat(math.Round(hi*1000)/1000, 'f', -1, 64)
}

// infer fills Collective (when the output does not name it), Ranks,
// RanksFrom, CollectiveFrom and Notes from the columns and the device
// lines.
func (r *Run) infer() {
	if r.Collective != "" && r.CollectiveFrom == "" {
		r.CollectiveFrom = "program name"
	}
	devices := map[int]string{}
	for _, d := range r.Devices {
		who := fmt.Sprintf("%s pid %d", d.Host, d.PID)
		if prev, ok := devices[d.Rank]; ok && prev != who {
			r.Notes = append(r.Notes, fmt.Sprintf("rank %d is printed by two processes (%s and %s): each ran the benchmark alone (nccl-tests built without MPI, or two jobs in one file)", d.Rank, prev, who))
		}
		devices[d.Rank] = who
	}
	nDev := len(devices)
	r.noteRestarts()
	if len(r.Rows) == 0 {
		r.setRanksWithoutRows(nDev)
		return
	}
	ev := r.evidence()
	var fit []candidate
	for _, s := range shapes {
		if c, ok := ev.fits(s); ok {
			fit = append(fit, c)
		}
	}
	// Several collectives fit (sendrecv and a 2-rank all_reduce look
	// alike): the device lines, when they name a count, choose.
	if len(fit) > 1 && nDev > 0 {
		var agree []candidate
		for _, c := range fit {
			if c.ranksLo == 0 || (nDev >= c.ranksLo && nDev <= c.ranksHi) {
				agree = append(agree, c)
			}
		}
		if len(agree) > 0 {
			fit = agree
		}
	}
	what := ev.describe()
	named := normalizeCollective(r.Collective)
	if r.Collective != "" {
		var same []candidate
		known := false
		for _, c := range fit {
			if normalizeCollective(c.shape.name) == named {
				same = append(same, c)
			}
		}
		for _, s := range shapes {
			known = known || normalizeCollective(s.name) == named
		}
		if known && len(same) == 0 && what != "" {
			r.Notes = append(r.Notes, fmt.Sprintf("the output names %s but its columns (%s) fit %s", r.Collective, what, names(fit)))
		}
		fit = same
	} else {
		switch names := names(fit); {
		case len(fit) == 1:
			r.Collective = fit[0].shape.name
			r.CollectiveFrom = "columns: " + what + ": " + r.Collective
		case len(fit) == 0 && ev.fEmpty:
			r.CollectiveFrom = fmt.Sprintf("not told: busbw/algbw differs between rows (%.3g to %.3g), no collective's factor", ev.fHi, ev.fLo)
		case len(fit) == 0:
			r.CollectiveFrom = "not told: no collective of nccl-tests has these columns (" + what + ")"
		default:
			r.CollectiveFrom = "not told: the columns (" + what + ") fit " + names
		}
	}
	// The rank count the remaining candidates agree on.
	n, lo, hi := 0, 0, 0
	for i, c := range fit {
		if i == 0 {
			n, lo, hi = c.ranks(), c.ranksLo, c.ranksHi
			continue
		}
		if c.ranks() != n {
			n = 0
		}
		lo, hi = min(lo, c.ranksLo), max(hi, c.ranksHi)
	}
	switch {
	case n > 0 && n == nDev:
		r.Ranks, r.RanksFrom = n, "device lines" // and busbw/algbw agrees
	case n > 0:
		r.Ranks = n
		r.RanksFrom = rankReason(ev, fit, n)
		if nDev > 0 && nDev != n {
			r.Notes = append(r.Notes, fmt.Sprintf("the device lines name %d rank(s) but %s: the device lines are incomplete", nDev, r.RanksFrom))
		}
	case nDev > 0:
		r.Ranks, r.RanksFrom = nDev, "device lines"
		if lo > 0 && (nDev < lo || nDev > hi) {
			r.Notes = append(r.Notes, fmt.Sprintf("the device lines name %d rank(s) but the columns (%s) fit %d to %d", nDev, what, lo, hi))
		}
	default:
		r.setRanksWithoutRows(0)
		if r.Ranks > 0 && lo > 0 && (r.Ranks < lo || r.Ranks > hi) {
			r.Ranks, r.RanksFrom = 0, ""
		}
		if r.Ranks == 0 && lo > 0 && lo < hi && hi < maxRanks {
			r.RanksFrom = fmt.Sprintf("not told: the columns (%s) fit %d to %d ranks", what, lo, hi)
		}
	}
}

// noteRestarts notes a size that falls back below the row before it with
// the same type and operation: nccl-tests sweeps sizes upwards, so the
// rows of two runs (two processes printing at once) are mixed there.
func (r *Run) noteRestarts() {
	last := map[string]int64{}
	for _, row := range r.Rows {
		key := row.Type + "/" + row.RedOp
		if prev, ok := last[key]; ok && row.SizeBytes < prev {
			r.Notes = append(r.Notes, fmt.Sprintf("line %d: the sizes start again (%d B after %d B, same type and op): rows of two runs are mixed in this table", row.Line, row.SizeBytes, prev))
			return
		}
		last[key] = row.SizeBytes
	}
}

// setRanksWithoutRows takes the rank count from the device lines or the
// parameter line.
func (r *Run) setRanksWithoutRows(nDev int) {
	switch {
	case nDev > 0:
		r.Ranks, r.RanksFrom = nDev, "device lines"
	case r.Params.NThread*r.Params.NGpus > 0:
		r.Ranks, r.RanksFrom = r.Params.NThread*r.Params.NGpus, "nThread x nGpus (one process assumed: the output has no device lines)"
	}
}

func rankReason(ev columnEvidence, fit []candidate, n int) string {
	if ev.ratio > 1 && len(fit) > 0 && fit[0].shape.perRank {
		return fmt.Sprintf("size/count = %d (%s)", ev.ratio, names(fit))
	}
	if ev.fKnown {
		return fmt.Sprintf("busbw/algbw = %s: %s on %d rank%s", factorText(ev.fLo, ev.fHi), names(fit), n, plural(n))
	}
	return fmt.Sprintf("%s on %d rank%s", names(fit), n, plural(n))
}

// names joins the candidates' collectives: "gather or scatter".
func names(fit []candidate) string {
	var out []string
	for _, c := range fit {
		out = append(out, c.shape.name)
	}
	switch len(out) {
	case 0:
		return "no collective of nccl-tests"
	case 1:
		return out[0]
	}
	return strings.Join(out[:len(out)-1], ", ") + " or " + out[len(out)-1]
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Told names the collective of a run whose output does not (a launch file
// or a command line kept elsewhere, a user's --coll; from says which) and
// reads the rank count its columns give for that collective: a 2-rank
// all_reduce and a sendrecv print the same columns, and once the
// collective is known busbw/algbw = 1 is 2 ranks. A run whose output
// names its collective keeps it; the columns contradicting the told one
// is a note, as for a named program. Reports whether it took the name.
func (r *Run) Told(collective, from string) bool {
	if r.Collective != "" || collective == "" {
		return false
	}
	if from == "" {
		from = "told"
	}
	notes := r.Notes
	r.Collective, r.CollectiveFrom = collective, from
	r.Ranks, r.RanksFrom, r.Notes = 0, "", nil
	r.infer()
	for _, n := range r.Notes {
		if !slices.Contains(notes, n) {
			notes = append(notes, n)
		}
	}
	r.Notes = notes
	return true
}
