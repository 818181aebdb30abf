package costmodel

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/commlab/commlab/units"
)

// CollectiveResult is one predicted point as `commlab model --json`
// prints it.
type CollectiveResult struct {
	Collective  string  `json:"collective"`
	Algorithm   string  `json:"algorithm"`
	Protocol    string  `json:"protocol,omitempty"`
	Ranks       int     `json:"ranks"`
	Nodes       int     `json:"nodes"`
	Bytes       float64 `json:"bytes"`
	TimeS       float64 `json:"time_s"`
	LatencyS    float64 `json:"latency_s"`
	BandwidthS  float64 `json:"bandwidth_s"`
	AlgBWGBps   float64 `json:"algbw_gbps"`
	BusBWGBps   float64 `json:"busbw_gbps"`
	Bound       string  `json:"bound"`
	ForcedRatio float64 `json:"forced_slowdown,omitempty"`
	// NCCLTimeS is NCCL's own prediction (its tuner) for the pick, and
	// FloorS the host floor, with --algo auto.
	NCCLTimeS float64 `json:"nccl_model_time_s,omitempty"`
	FloorS    float64 `json:"host_floor_s,omitempty"`
}

func resultOf(r Row) CollectiveResult {
	return CollectiveResult{Collective: r.Collective, Algorithm: r.Algorithm, Protocol: r.Protocol, Ranks: r.Ranks,
		Nodes: r.Nodes, Bytes: r.Bytes, TimeS: r.Time, LatencyS: r.LatencyTerm, BandwidthS: r.BandwidthTerm,
		AlgBWGBps: r.AlgBW / 1e9, BusBWGBps: r.BusBW / 1e9, Bound: r.Bound}
}

// tunerHeader is the first line of the tuner's answer: the NCCL family
// and the machine as modelled.
func tunerHeader(plan CollectivePlan) string {
	m := plan.Machine
	node := m.Node
	linkNote := ""
	if plan.LinkAssumed {
		linkNote = fmt.Sprintf(" (assumed from --bw %v; set --link)", Bandwidth{BytesPerSecond: plan.Params.Beta})
	}
	nvlsNote := "no NVLS"
	switch {
	case node.NVLS && m.NVLSOff:
		nvlsNote = "NVLS off (NCCL_NVLS_ENABLE=0)"
	case node.NVLS:
		nvlsNote = "NVLS on"
	}
	kind := node.Intra.Kind
	if kind != "pcie" {
		kind = "nvlink"
	}
	fam, _ := NCCLFamily(m.NCCL)
	famNote := fam + "-family tuner"
	if m.NCCL != fam {
		famNote = fmt.Sprintf("NCCL %s: %s", m.NCCL, famNote)
	}
	if !plan.NCCLGiven {
		famNote += " (the default, newest modelled)"
	}
	header := fmt.Sprintf("%s, calibrated model over NCCL's %s, %d node(s) of %s: %d GPUs each, in-node link %s%s, %s",
		plan.Params.Collective, famNote, m.Nodes, node.Name, node.GPUs, kind, linkNote, nvlsNote)
	if m.Nodes > 1 {
		path := node.NICPath
		if path == "" {
			path = "PIX"
			if !node.NVSwitch {
				path = "PHB"
			}
		}
		header += fmt.Sprintf(", %d NIC(s) %s at %v, NIC %s", node.NICs, node.NIC.Name, node.NIC.Bandwidth, path)
		if node.NIC.NetLatency > 0 {
			header += fmt.Sprintf(", network latency %v per hop", Seconds(node.NIC.NetLatency))
		}
	}
	if h := m.Harness; h.ThreadGPUs > 1 || h.IssueUs > 0 {
		iss := h.IssueUs
		if iss == 0 {
			iss = FitIssueUs
		}
		header += fmt.Sprintf(", %d GPU(s) per host thread at %.3g us each", h.ThreadGPUs, iss)
	}
	return header
}

// crossoverLine says where the alpha-beta model of p turns from latency-
// to bandwidth-bound, e.g. "crossover 1 MB: below it the latency term
// dominates"; the tuner's pick changes with size, so it has none.
func crossoverLine(p Params) string {
	x, err := Crossover(p)
	if err != nil {
		return "crossover none: " + strings.TrimPrefix(err.Error(), "costmodel: bad parameters: ")
	}
	return fmt.Sprintf("crossover %v: below it the latency term dominates", Bytes(x))
}

// Predict answers the plan at each of its sizes: with the calibrated model
// over NCCL's tuner when plan.Tuned, else with the alpha-beta model. With
// table set, a tuned plan writes NCCL's init tuning table to it first.
func (plan CollectivePlan) Predict(table io.Writer) ([]CollectiveResult, error) {
	if plan.Tuned {
		return modelTuner(plan, table)
	}
	return modelAlphaBeta(plan.Params, plan.Sizes)
}

// WriteText prints the plan's rows as `commlab model` does: a header
// line, then one size's time, algbw and busbw, or with sweep a table of
// every size.
func (plan CollectivePlan) WriteText(w io.Writer, rows []CollectiveResult, sweep bool) {
	header, crossover := "", ""
	if plan.Tuned {
		header = tunerHeader(plan)
	} else {
		crossover = crossoverLine(plan.Params)
	}
	printModel(w, header, crossover, plan.Params, rows, sweep)
}

// modelAlphaBeta predicts p at every size with the alpha-beta model.
func modelAlphaBeta(p Params, sizes []float64) ([]CollectiveResult, error) {
	rows, err := SweepSizes(p, sizes)
	if err != nil {
		return nil, err
	}
	out := make([]CollectiveResult, len(rows))
	for i, r := range rows {
		out[i] = resultOf(r)
		if out[i].Protocol == "" {
			out[i].Protocol = "ideal"
		}
	}
	return out, nil
}

// modelTuner predicts with the calibrated model over NCCL's tuner, and
// prints the tuner's table to w first unless w is nil.
func modelTuner(plan CollectivePlan, w io.Writer) ([]CollectiveResult, error) {
	T, rows, err := plan.Machine.Sweep(plan.Params.Collective, plan.Sizes, plan.Algorithm, plan.Protocol)
	if err != nil {
		return nil, err
	}
	if w != nil {
		fmt.Fprint(w, T.String())
		fmt.Fprintln(w)
	}
	out := make([]CollectiveResult, len(rows))
	for i, r := range rows {
		out[i] = resultOf(r.Row)
		out[i].ForcedRatio = r.Slowdown
		out[i].NCCLTimeS = r.NCCLTime
		out[i].FloorS = r.Floor
	}
	return out, nil
}

func printModel(w io.Writer, header, crossover string, p Params, rows []CollectiveResult, sweep bool) {
	r0 := rows[0]
	if header != "" {
		fmt.Fprintln(w, header)
	} else {
		fmt.Fprintf(w, "%s, %s/%s, %d GPUs on %d node(s), alpha %v, beta %v one-way",
			r0.Collective, r0.Algorithm, r0.Protocol, r0.Ranks, r0.Nodes,
			Seconds(p.Alpha), Bandwidth{BytesPerSecond: p.Beta})
		if p.Nodes > 1 {
			fmt.Fprintf(w, "; between nodes alpha %v, beta %v per GPU", Seconds(p.InterAlpha), Bandwidth{BytesPerSecond: p.InterBeta})
		}
		if sweep && crossover != "" {
			// On the header, so the table's rows stay last.
			fmt.Fprintf(w, "; %s", strings.SplitN(crossover, ":", 2)[0])
		}
		fmt.Fprintln(w)
	}
	if !sweep {
		if header != "" {
			fmt.Fprintf(w, "pick    %s/%s\n", r0.Algorithm, r0.Protocol)
		}
		fmt.Fprintf(w, "size    %s (%s bytes)\n", formatBytes(r0.Bytes), units.Number(r0.Bytes))
		fmt.Fprintf(w, "time    %v = %v latency + %v bandwidth (%s-bound)\n",
			Seconds(r0.TimeS), Seconds(r0.LatencyS), Seconds(r0.BandwidthS), r0.Bound)
		fmt.Fprintf(w, "algbw   %s\nbusbw   %s\n", units.Readable(r0.AlgBWGBps, "GB/s"), units.Readable(r0.BusBWGBps, "GB/s"))
		if r0.ForcedRatio != 0 {
			fmt.Fprintf(w, "forcing %s/%s costs %s the tuner's free pick\n", r0.Algorithm, r0.Protocol, units.Readable(r0.ForcedRatio, "x"))
		}
		if crossover != "" {
			fmt.Fprintln(w, crossover)
		}
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "size\talgo\tproto\ttime\tlatency\tbandwidth\talgbw GB/s\tbusbw GB/s\tbound\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%v\t%s\t%s\t%v\t%v\t%v\t%s\t%s\t%s\t\n", formatBytes(r.Bytes), r.Algorithm, r.Protocol,
			Seconds(r.TimeS), Seconds(r.LatencyS), Seconds(r.BandwidthS), units.Number(r.AlgBWGBps), units.Number(r.BusBWGBps), r.Bound)
	}
	tw.Flush()
}

// formatBytes prints a size the way it reads back exactly (units.FormatSize):
// 1 KiB, 1 GB, 1000001 B.
func formatBytes(b float64) string {
	if b != math.Trunc(b) || math.Abs(b) >= 1<<62 {
		return Bytes(b).String()
	}
	return units.FormatSize(int64(b))
}
