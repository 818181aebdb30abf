package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/commlab/commlab/parse/flightrec"
	"github.com/commlab/commlab/probes"
)

// Report is the doctor's answer: the verdicts of every check, the seed's
// final questions answered from the evidence, the numbers a later run is
// compared with (Metrics), and the job-prolog exit code.
type Report struct {
	Tool     string    `json:"tool"`
	Host     string    `json:"host,omitempty"`
	Date     time.Time `json:"date"`
	Inputs   []Input   `json:"inputs"`
	Answers  []Answer  `json:"answers"`
	Verdicts []Verdict `json:"verdicts"`
	// Picks are NCCL's logged all_reduce picks beside the tuner's.
	Picks []PickRow `json:"picks,omitempty"`
	// Metrics are the measured numbers --baseline compares: peak
	// host-device and peer-to-peer bandwidth, the collective's busbw
	// plateau and small-message floor.
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// Gaps are the warnings and failures, causes first (RankGaps); Tree
	// is chapter 6's decision tree marked by the verdicts (MarkTree).
	Gaps     []Gap          `json:"gaps"`
	Tree     []TreeMark     `json:"tree"`
	Counts   map[string]int `json:"counts"`
	ExitCode int            `json:"exit_code"`
	// Command is the command line that made the report, when known.
	Command string `json:"command,omitempty"`
	// Baseline names the saved report this one was compared with.
	Baseline string `json:"baseline,omitempty"`
	// Network is this node's socket interfaces, read by the follow-up
	// across nodes (socket-subnets).
	Network *NodeNetwork `json:"network,omitempty"`

	// Evidence behind the report, for the HTML page's tables and charts.
	Evidence *Evidence           `json:"-"`
	Hang     *flightrec.Analysis `json:"-"`
}

// Answer is one of the seed's final questions and what the evidence says.
type Answer struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	// Checks are the verdicts ("layer/check") the answer rests on.
	Checks []string `json:"checks,omitempty"`
	Status Status   `json:"status"`
}

// Questions are the seed's final questions, in its order.
var Questions = []string{
	"How many bytes, how many ranks?",
	"Latency-bound or bandwidth-bound?",
	"Which link does the traffic take?",
	"GPUDirect RDMA or not?",
	"Why this algorithm?",
	"Does communication overlap compute?",
	"Where is the gap?",
	"Who hung?",
}

// Diagnose runs every check on the evidence and answers the questions.
func Diagnose(ev *Evidence) *Report {
	if ev.Date.IsZero() {
		ev.Date = time.Now().UTC()
	}
	nodes := ev.Nodes()
	env := ev.Env
	var vs []Verdict
	vs = append(vs, CheckTopology(ev.Topology, ev.PCI, ev.AllowedCPUs, nodes)...)
	vs = append(vs, CheckNVLink(ev.Topology, ev.Bandwidth)...)
	vs = append(vs, CheckNIC(ev.Topology, ev.PCI, ev.NCCLLog, nodes)...)
	vs = append(vs, CheckCounters(ev))
	ncclVs := CheckNCCL(ev.NCCLLog, ev.Topology, mergedEnv(env, ev), nodes)
	if run := ev.NCCL; run != nil && run.Settings["library"] != "" {
		// Which NCCL the sweep loaded: PyTorch's wheel and the system's
		// libnccl often differ (2.28.9 and 2.28.3 on the lab's H200).
		for i := range ncclVs {
			if ncclVs[i].Check == "nccl-version" {
				ncclVs[i].Evidence = append(ncclVs[i].Evidence, fmt.Sprintf("the sweep loaded %s (NCCL %s)", run.Settings["library"], orDash(run.NCCL)))
			}
		}
	}
	vs = append(vs, ncclVs...)
	if len(ev.Collective) > 0 {
		vs = append(vs, ev.Collective...)
	} else {
		vs = append(vs, skipped(LayerCollective, "busbw-curve", "no curve doctor verdicts: give an nccl-tests output (commlab doctor --nccl-tests) or run on the GPU machine", chapterTroubleshoot))
	}
	vs = append(vs, CheckRanks(ev.RankTimes))
	if len(ev.Framework) > 0 {
		vs = append(vs, ev.Framework...)
	} else {
		vs = append(vs, skipped(LayerFramework, "overlap", "no torch profiler trace: give --trace TRACE.json (overlap of NCCL kernels with compute)", chapterPyTorch))
	}
	vs = append(vs, LintEnv(ev)...)
	hang, analysis := CheckHang(ev)
	vs = append(vs, hang, CheckProcesses(ev), CheckKernel(ev))
	if len(ev.FlightRecorder) > 1 {
		vs = append(vs, CheckStraggler(ev.FlightRecorder))
	}
	if len(ev.NodeReports) > 1 {
		vs = append(vs, CheckSocketSubnets(ev.NodeReports, mergedEnv(env, ev)))
	}
	vs = append([]Verdict{CheckEvidence(ev)}, vs...)

	r := &Report{Tool: "commlab doctor", Host: ev.Host, Date: ev.Date, Inputs: ev.Inputs, Verdicts: vs, Evidence: ev, Hang: analysis}
	if ev.NCCLLog != nil && ev.NCCLLog.NRanks() > 1 {
		if table, _, ok := TunerFor(ev.Topology, ev.NCCLLog, mergedEnv(env, ev), nodes); ok {
			r.Picks = ComparePicks(ev.NCCLLog, table)
		}
	}
	if len(ev.Interfaces) > 0 {
		r.Network = &NodeNetwork{Interfaces: ev.Interfaces, SocketIfname: env["NCCL_SOCKET_IFNAME"]}
	}
	r.Metrics = metrics(ev)
	r.Answers = answers(r, ev, nodes)
	r.finish()
	return r
}

// mergedEnv is the job's environment with what the NCCL log says was set
// by environment, so a log alone still shows NCCL_ALGO or NCCL_IB_DISABLE.
func mergedEnv(env map[string]string, ev *Evidence) map[string]string {
	out := map[string]string{}
	if ev.NCCLLog != nil {
		for _, e := range ev.NCCLLog.Env {
			out[e.Name] = e.Value
		}
	}
	if ev.NCCL != nil {
		for k, v := range ev.NCCL.Env {
			out[k] = v
		}
	}
	for k, v := range env {
		out[k] = v
	}
	return out
}

func (r *Report) finish() {
	r.Gaps = RankGaps(r.Verdicts)
	r.Tree = MarkTree(r.Verdicts)
	r.Counts = map[string]int{}
	for _, v := range r.Verdicts {
		r.Counts[v.Status.String()]++
	}
	r.ExitCode = ExitCode(r.Verdicts)
}

// metrics are the numbers a baseline comparison reads.
func metrics(ev *Evidence) map[string]float64 {
	m := map[string]float64{}
	if ev.Bandwidth != nil {
		for _, s := range bestSamples(ev.Bandwidth, "h2d_pinned", "d2h_pinned", "p2p_write", "p2p_read", "d2d") {
			key := s.Op + "_gbps"
			m[key] = math.Max(m[key], gbpsOf(s))
		}
	}
	if ev.NCCL != nil {
		for _, s := range ev.NCCL.Samples {
			if s.Op != "all_reduce" || s.InPlace {
				continue
			}
			m["all_reduce_busbw_gbps"] = math.Max(m["all_reduce_busbw_gbps"], s.BusBW)
			if float64(s.Bytes) >= m["all_reduce_large_bytes"] {
				m["all_reduce_large_bytes"], m["all_reduce_large_us"] = float64(s.Bytes), s.MedianUS
			}
			if f, ok := m["all_reduce_floor_us"]; (!ok || s.MedianUS < f) && s.MedianUS > 0 {
				m["all_reduce_floor_us"] = s.MedianUS
			}
		}
	}
	if m["all_reduce_busbw_gbps"] == 0 {
		delete(m, "all_reduce_busbw_gbps") // one rank: busbw factors are 0
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

func ref(v Verdict) string { return string(v.Layer) + "/" + v.Check }

func (r *Report) find(check string) (Verdict, bool) {
	for _, v := range r.Verdicts {
		if v.Check == check {
			return v, true
		}
	}
	return Verdict{}, false
}

// worst is the highest status among verdicts, skipped counting lowest.
func worst(vs ...Verdict) Status {
	s := Skipped
	for _, v := range vs {
		switch {
		case v.Status == Skipped:
		case s == Skipped || v.Status > s:
			s = v.Status
		}
	}
	return s
}

func answers(r *Report, ev *Evidence, nodes int) []Answer {
	get := func(checks ...string) []Verdict {
		var out []Verdict
		for _, c := range checks {
			if v, ok := r.find(c); ok {
				out = append(out, v)
			}
		}
		return out
	}
	answer := func(q int, text string, vs []Verdict) Answer {
		a := Answer{Question: Questions[q], Answer: text, Status: worst(vs...)}
		for _, v := range vs {
			a.Checks = append(a.Checks, ref(v))
		}
		return a
	}
	var out []Answer

	// 1. Bytes and ranks.
	out = append(out, answer(0, bytesAndRanks(ev, nodes), nil))

	// 2. Latency or bandwidth.
	out = append(out, answer(1, boundAnswer(r, ev), nil))

	// 3. Which link.
	link := get("nic-affinity", "nccl-transports", "nccl-network", "p2p-bandwidth")
	out = append(out, answer(2, linkAnswer(ev, link), link))

	// 4. GDR.
	gdr := get("gdr", "gpudirect-module")
	out = append(out, answer(3, summaries(gdr, "no NIC evidence"), gdr))

	// 5. Why this algorithm.
	pick := get("tuner-pick", "nccl-channels")
	out = append(out, answer(4, algorithmAnswer(r, pick), pick))

	// 6. Overlap.
	var ov []Verdict
	for _, v := range r.Verdicts {
		if v.Layer == LayerFramework && !strings.HasPrefix(v.Check, "env") {
			ov = append(ov, v)
		}
	}
	out = append(out, answer(5, summaries(ov, "not measured"), ov))

	// 7. Where is the gap: causes first.
	var bad []Verdict
	for _, v := range r.Verdicts {
		if v.Status == Fail || v.Status == Warn {
			bad = append(bad, v)
		}
	}
	ga := answer(6, GapsText(RankGaps(r.Verdicts)), nil)
	for _, g := range RankGaps(r.Verdicts) {
		ga.Checks = append(ga.Checks, g.Check)
	}
	ga.Status = worst(bad...)
	if len(bad) == 0 {
		ga.Status = OK
	}
	out = append(out, ga)

	// 8. Who hung.
	hang := get("hang", "straggler")
	out = append(out, answer(7, summaries(hang, "no dumps"), hang))
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func summaries(vs []Verdict, none string) string {
	var parts []string
	for _, v := range vs {
		if v.Status != Skipped || len(vs) == 1 {
			parts = append(parts, v.Summary)
		}
	}
	if len(parts) == 0 {
		return none
	}
	return strings.Join(parts, "; ")
}

func bytesAndRanks(ev *Evidence, nodes int) string {
	var parts []string
	if lg := ev.NCCLLog; lg != nil && lg.NRanks() > 0 {
		parts = append(parts, fmt.Sprintf("%d rank%s on %d node%s in the NCCL log", lg.NRanks(), plural(lg.NRanks()), nodes, plural(nodes)))
		var lo, hi int64
		for _, c := range lg.Choices {
			if c.Bytes > 0 && (lo == 0 || c.Bytes < lo) {
				lo = c.Bytes
			}
			hi = max(hi, c.Bytes)
		}
		for _, o := range lg.Operations {
			if o.Bytes > 0 && (lo == 0 || o.Bytes < lo) {
				lo = o.Bytes
			}
			hi = max(hi, o.Bytes)
		}
		if hi > 0 {
			parts = append(parts, fmt.Sprintf("operations from %s to %s", sizeText(float64(lo)), sizeText(float64(hi))))
		}
	}
	if run := ev.NCCL; run != nil {
		var lo, hi int64
		ranks := 0
		for _, s := range run.Samples {
			if lo == 0 || s.Bytes < lo {
				lo = s.Bytes
			}
			hi = max(hi, s.Bytes)
			ranks = max(ranks, s.Ranks)
		}
		if ranks == 0 {
			ranks = run.GPUCount
		}
		parts = append(parts, fmt.Sprintf("the sweep: %d rank%s, %s to %s", ranks, plural(ranks), sizeText(float64(lo)), sizeText(float64(hi))))
	}
	if len(ev.FlightRecorder) > 0 {
		sizes := map[string]bool{}
		for _, d := range ev.FlightRecorder {
			for _, e := range d.Entries {
				for _, in := range e.InputSizes {
					n := int64(1)
					for _, x := range in {
						n *= x
					}
					if len(in) > 0 {
						sizes[fmt.Sprintf("%s of %d elements", e.Op, n)] = true
					}
				}
			}
		}
		keys := slices.Sorted(maps.Keys(sizes))
		if len(keys) > 4 {
			keys = append(keys[:4], fmt.Sprintf("%d more", len(keys)-4))
		}
		parts = append(parts, fmt.Sprintf("%d Flight Recorder dumps: %s", len(ev.FlightRecorder), strings.Join(keys, ", ")))
	}
	if len(parts) == 0 && ev.Topology != nil {
		parts = append(parts, fmt.Sprintf("%d GPU(s) on this machine; no job evidence (log, sweep or dumps) says what sizes run", len(ev.Topology.GPUs)))
	}
	if len(parts) == 0 {
		return "not in the evidence"
	}
	return strings.Join(parts, "; ")
}

func boundAnswer(r *Report, ev *Evidence) string {
	if run := ev.NCCL; run != nil && oneRank(run) {
		// Out-of-place only: a one-rank in-place all_reduce does no work at
		// all (the recorded nccl-h200x1-proto-auto run: 1 GiB in about
		// 1 us), so it shows no floor.
		floor := math.Inf(1)
		for _, s := range run.Samples {
			if s.Op == "all_reduce" && !s.InPlace && s.MedianUS > 0 {
				floor = math.Min(floor, s.MedianUS)
			}
		}
		if !math.IsInf(floor, 1) {
			return fmt.Sprintf("one rank: NCCL runs all_reduce as a device copy, nothing crosses a link; the sweep shows the launch and copy floor (%s out of place), not a collective: run on two or more GPUs to see the curve", usText(floor))
		}
	}
	if run := ev.NCCL; run != nil {
		var samples []probes.Sample
		peak := 0.0
		for _, s := range run.Samples {
			if s.Op == "all_reduce" && !s.InPlace && s.BusBW > 0 {
				samples = append(samples, s)
				peak = math.Max(peak, s.BusBW)
			}
		}
		sort.Slice(samples, func(i, j int) bool { return samples[i].Bytes < samples[j].Bytes })
		floor := math.Inf(1)
		for _, s := range samples {
			floor = math.Min(floor, s.MedianUS)
		}
		for _, s := range samples {
			if s.BusBW >= peak/2 {
				return fmt.Sprintf("measured all_reduce: busbw reaches half its peak at %s, where the fixed cost and the transfer take equal time; below it latency-bound (floor %s), above it bandwidth-bound (up to %s)",
					sizeText(float64(s.Bytes)), usText(floor), gbpsText(peak))
			}
		}
	}
	if len(r.Picks) > 0 {
		var lat, bw []string
		for _, p := range r.Picks {
			if p.Bound == "latency" {
				lat = append(lat, sizeText(float64(p.Bytes)))
			} else {
				bw = append(bw, sizeText(float64(p.Bytes)))
			}
		}
		s := "in the tuner's model of the logged sizes:"
		if len(lat) > 0 {
			s += " latency-bound at " + rangeText(lat)
		}
		if len(bw) > 0 {
			s += " bandwidth-bound at " + rangeText(bw)
		}
		return s
	}
	return "no sweep and no logged sizes: run on the GPU machine or give --nccl-log with NCCL_DEBUG_SUBSYS=TUNING"
}

// oneRank reports whether a sweep ran on one GPU only.
func oneRank(run *probes.Run) bool {
	ranks := 0
	for _, s := range run.Samples {
		ranks = max(ranks, s.Ranks)
	}
	if ranks == 0 {
		ranks = run.GPUCount
	}
	return ranks == 1
}

func rangeText(xs []string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return xs[0] + " to " + xs[len(xs)-1] + ";"
}

func linkAnswer(ev *Evidence, vs []Verdict) string {
	var parts []string
	if t := ev.Topology; t != nil && len(t.GPUs) > 1 {
		var ks []string
		for k, n := range t.PairsByPath() {
			ks = append(ks, fmt.Sprintf("%d pair%s over %s", n, plural(n), k))
		}
		sort.Strings(ks)
		parts = append(parts, "between GPUs: "+strings.Join(ks, ", "))
	}
	if lg := ev.NCCLLog; lg != nil {
		if tc := lg.TransportCounts(); len(tc) > 0 {
			var ks []string
			for k, n := range tc {
				ks = append(ks, fmt.Sprintf("%s x%d", k, n))
			}
			sort.Strings(ks)
			parts = append(parts, "NCCL's connections: "+strings.Join(ks, ", "))
		}
	}
	for _, v := range vs {
		if v.Check == "nic-affinity" && v.Status != Skipped {
			parts = append(parts, "to the network: "+v.Summary)
		}
		if v.Check == "p2p-bandwidth" && v.Status != Skipped {
			parts = append(parts, "measured: "+v.Summary)
		}
	}
	if t := ev.Topology; t != nil && len(t.GPUs) == 1 {
		link := "PCIe"
		if l := t.GPUs[0].PCIe; l.GenMax > 0 {
			link = fmt.Sprintf("PCIe Gen%d x%d", l.GenMax, l.WidthMax)
		}
		parts = append([]string{"one GPU: no GPU-to-GPU traffic; its one link is " + link + " to the host"}, parts...)
	}
	if len(parts) == 0 {
		return "not in the evidence"
	}
	return strings.Join(parts, "; ")
}

func algorithmAnswer(r *Report, vs []Verdict) string {
	if ev := r.Evidence; len(r.Picks) == 0 && ev != nil && ((ev.NCCL != nil && oneRank(ev.NCCL)) || (ev.NCCLLog != nil && ev.NCCLLog.NRanks() == 1)) {
		return "one rank: NCCL picks no algorithm or protocol (the collective is a device copy); " + summaries(vs, "")
	}
	if len(r.Picks) == 0 {
		return summaries(vs, "no per-operation picks in the evidence (NCCL_DEBUG_SUBSYS=TUNING prints them)")
	}
	// One line per run of sizes with the same pick.
	var parts []string
	start := 0
	for i := 1; i <= len(r.Picks); i++ {
		if i < len(r.Picks) && r.Picks[i].NCCL == r.Picks[start].NCCL && r.Picks[i].Bound == r.Picks[start].Bound && r.Picks[i].Agree == r.Picks[start].Agree {
			continue
		}
		p := r.Picks[start]
		span := sizeText(float64(p.Bytes))
		if i-1 > start {
			span += " to " + sizeText(float64(r.Picks[i-1].Bytes))
		}
		agree := "the tuner agrees"
		if !p.Agree {
			agree = "the tuner would pick " + p.Model
		}
		parts = append(parts, fmt.Sprintf("%s: NCCL %s (%s-bound; %s)", span, p.NCCL, p.Bound, agree))
		start = i
	}
	return "NCCL's model of latency and bandwidth per algorithm and protocol picks the fastest: " + strings.Join(parts, "; ")
}

// CompareBaseline sets a report beside a saved healthy one: measured
// numbers that fell (bandwidth by more than 10%, the latency floor up by
// more than 20%) and checks whose status got worse become verdicts, added
// to r.
func (r *Report) CompareBaseline(base *Report, name string) {
	r.Baseline = name
	keys := slices.Sorted(maps.Keys(base.Metrics))
	for _, k := range keys {
		was, now := base.Metrics[k], r.Metrics[k]
		if _, ok := r.Metrics[k]; !ok || was <= 0 || k == "all_reduce_large_bytes" || (k == "all_reduce_large_us" && base.Metrics["all_reduce_large_bytes"] != r.Metrics["all_reduce_large_bytes"]) {
			continue
		}
		v := Verdict{Layer: metricLayer(k), Check: "baseline-" + k, Chapter: chapterTroubleshoot,
			Evidence: []string{fmt.Sprintf("baseline %s (%s): %.4g; now %.4g", name, base.Date.Format("2006-01-02"), was, now)}}
		latency := strings.HasSuffix(k, "_us") // a time: higher is worse
		switch {
		case latency && now > was*1.2:
			v.judge(Warn, fmt.Sprintf("%s rose to %s from %s in the baseline (%.2fx)", k, usText(now), usText(was), now/was), "")
		case latency:
			v.judge(OK, fmt.Sprintf("%s: %s now, %s in the baseline", k, usText(now), usText(was)), "")
		case now < was*0.9:
			v.judge(Warn, fmt.Sprintf("%s fell to %s from %s in the baseline (%s)", k, gbpsText(now), gbpsText(was), pctText(now/was)), "")
		default:
			v.judge(OK, fmt.Sprintf("%s: %s now, %s in the baseline", k, gbpsText(now), gbpsText(was)), "")
		}
		r.Verdicts = append(r.Verdicts, v)
	}
	was := map[string]Status{}
	for _, v := range base.Verdicts {
		was[ref(v)] = v.Status
	}
	var worse []string
	for _, v := range r.Verdicts {
		w, ok := was[ref(v)]
		if ok && w != Skipped && v.Status != Skipped && v.Status > w {
			worse = append(worse, fmt.Sprintf("%s: %s -> %s", ref(v), w, v.Status))
		}
	}
	if len(worse) > 0 {
		r.Verdicts = append(r.Verdicts, Verdict{Layer: LayerCollective, Check: "baseline-status", Status: Warn, Chapter: chapterTroubleshoot,
			Summary: fmt.Sprintf("%d checks got worse since the baseline", len(worse)), Evidence: worse})
	}
	r.finish()
	r.Answers = answers(r, r.Evidence, r.Evidence.Nodes())
}

func metricLayer(k string) Layer {
	switch {
	case strings.HasPrefix(k, "all_reduce"):
		return LayerCollective
	default:
		return LayerNVLink
	}
}

// ReadReport reads a report saved as JSON (the baseline).
func ReadReport(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("doctor: baseline: %w", err)
	}
	if r.Tool != "commlab doctor" {
		return nil, fmt.Errorf("doctor: baseline: not a commlab doctor report (tool %q)", r.Tool)
	}
	return &r, nil
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	return nil
}

var statusMark = map[Status]string{OK: "ok  ", Warn: "WARN", Fail: "FAIL", Skipped: "--  "}

// WriteText writes the report for a terminal: the verdicts by layer, then
// the questions and their answers.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "commlab doctor: %s, %s\n", orDash(r.Host), r.Date.Format(time.RFC3339))
	if r.Command != "" {
		fmt.Fprintf(&b, "  command: %s\n", r.Command)
	}
	for _, in := range r.Inputs {
		fmt.Fprintf(&b, "  %s: %s", in.What, in.Source)
		if in.Note != "" {
			fmt.Fprintf(&b, " (%s)", in.Note)
		}
		b.WriteByte('\n')
	}
	layer := ""
	for _, v := range r.Verdicts {
		group := strings.ToUpper(string(v.Layer))
		if strings.HasPrefix(v.Check, "baseline-") {
			group = "BASELINE (" + r.Baseline + ")"
		}
		if group != layer {
			layer = group
			fmt.Fprintf(&b, "\n%s\n", group)
		}
		fmt.Fprintf(&b, "  [%s] %-22s %s\n", statusMark[v.Status], v.Check, v.Summary)
		if v.Status == Fail || v.Status == Warn {
			for _, e := range v.Evidence {
				fmt.Fprintf(&b, "         . %s\n", e)
			}
			if v.Next != "" {
				fmt.Fprintf(&b, "         next: %s\n", v.Next)
			}
		}
	}
	b.WriteString("\nDECISION TREE (chapter 6; marked where the evidence reaches)\n")
	for _, line := range strings.Split(strings.TrimRight(TreeText(r.Tree), "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			b.WriteString("\n")
			continue
		}
		fmt.Fprintf(&b, "  %s\n", line)
	}
	b.WriteString("\nQUESTIONS\n")
	for _, a := range r.Answers {
		fmt.Fprintf(&b, "  %s\n", a.Question)
		for _, line := range strings.Split(a.Answer, "\n") {
			fmt.Fprintf(&b, "    %s\n", line)
		}
	}
	fmt.Fprintf(&b, "\n%d ok, %d warn, %d fail, %d skipped; exit status %d\n", r.Counts["ok"], r.Counts["warn"], r.Counts["fail"], r.Counts["skipped"], r.ExitCode)
	_, err := io.WriteString(w, b.String())
	return err
}
