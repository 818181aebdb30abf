package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/units"
)

// modelResult is one predicted point as --json prints it.
type modelResult struct {
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
}

func resultOf(r costmodel.Row) modelResult {
	return modelResult{Collective: r.Collective, Algorithm: r.Algorithm, Protocol: r.Protocol, Ranks: r.Ranks,
		Nodes: r.Nodes, Bytes: r.Bytes, TimeS: r.Time, LatencyS: r.LatencyTerm, BandwidthS: r.BandwidthTerm,
		AlgBWGBps: r.AlgBW / 1e9, BusBWGBps: r.BusBW / 1e9, Bound: r.Bound}
}

func runModel(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "tp-allreduce":
			return runModelTPAllReduce(args[1:], stdout, stderr)
		case "kv":
			return runModelKV(args[1:], stdout, stderr)
		}
	}
	fs := newFlags("commlab model", stderr,
		"usage: commlab model <collective> [--algo A] [-n N] [--nodes M] [--size S | --sweep 8B:8GB] [--bw B] [--lat L] [--proto P] [--preset NAME] [--json]",
		"collectives: broadcast, reduce, all_reduce, all_gather, reduce_scatter, all_to_all, scatter, gather, sendrecv",
		"inference: commlab model tp-allreduce ... (decode all_reduces, backend choice), commlab model kv ... (KV cache bytes and transfer time)")
	algo := fs.String("algo", "ring", "ring|tree|dbtree|rhd|hier|nvls|collnet|auto (auto: NCCL-like tuner)")
	ranks := fs.Int("n", 0, "number of GPUs (default: preset GPUs x nodes, else 8)")
	nodes := fs.Int("nodes", 1, "number of nodes the GPUs spread over")
	size := fs.String("size", "", "message size, e.g. 1M or 1MiB (2^20), 1MB (10^6), 64KB, 1e9")
	sweep := fs.String("sweep", "", "size sweep MIN:MAX[:FACTOR] (ends at MAX) or a list A,B,C, e.g. 8B:8GB")
	bw := fs.String("bw", "", "per-GPU link bandwidth inside a node, e.g. 25GB/s, 400Gb/s, '900GB/s bidirectional'")
	lat := fs.String("lat", "", "per-step latency alpha, e.g. 5us (default: preset's, else 5us)")
	interBW := fs.String("inter-bw", "", "per-GPU network bandwidth between nodes (default: preset's, else --bw)")
	interLat := fs.String("inter-lat", "", "per-step latency between nodes (default: preset's, else --lat)")
	proto := fs.String("proto", "", "simple|ll|ll128|auto (default: ideal, no protocol cost)")
	preset := fs.String("preset", "", "node preset: "+presetNames())
	family := fs.String("nccl", "2.23", "NCCL version family of the tuner: 2.19, 2.23 or 2.28")
	link := fs.String("link", "", "with --algo auto: in-node path, pcie|nvlink (default: the preset's; with --bw alone, pcie up to 64 GB/s one way, else nvlink)")
	nicPath := fs.String("nic-path", "", "with --algo auto: GPU-to-NIC distance as nvidia-smi topo -m prints it, pix|pxb|pxn|phb|sys (default: pix on NVSwitch boards, else phb)")
	nvls := fs.Bool("nvls", true, "with --algo auto: NVLS where the node has it; --nvls=false is NCCL_NVLS_ENABLE=0 (the lab's H200s run so)")
	table := fs.Bool("table", false, "with --algo auto: also print NCCL's init tuning table")
	jsonOut := fs.Bool("json", false, "print JSON: an object, or a list for --sweep")
	pos, status, ok := parseFlags(fs, args)
	if !ok {
		return status
	}
	usageErr := func(format string, a ...any) int { return fail(fs, stderr, 2, format, a...) }
	if len(pos) != 1 {
		return usageErr("want exactly one collective, got %d arguments (run with -h for the flags)", len(pos))
	}
	coll, err := costmodel.ParseCollective(pos[0])
	if err != nil {
		return usageErr("%v", err)
	}
	if (*size == "") == (*sweep == "") {
		return usageErr("give either --size or --sweep")
	}
	var sizes []float64
	if *size != "" {
		s, err := units.ParseSize(*size)
		if err != nil {
			return usageErr("--size: %v", err)
		}
		sizes = []float64{float64(s)}
	} else if sizes, err = costmodel.ParseSweep(*sweep); err != nil {
		return usageErr("--sweep: %v", err)
	}
	if *nodes < 1 {
		return usageErr("--nodes %d: need at least 1 node", *nodes)
	}
	nSet := false
	fs.Visit(func(f *flag.Flag) { nSet = nSet || f.Name == "n" })
	if nSet && *ranks < 1 {
		return usageErr("-n %d: need at least 1 GPU", *ranks)
	}
	tuned := strings.EqualFold(*algo, "auto") || strings.EqualFold(*proto, "auto")
	var p costmodel.Params
	p.Collective = coll
	if tuned {
		if _, err := costmodel.NCCLAlgorithm(*algo); err != nil {
			return usageErr("--algo: %v", err)
		}
		if _, err := costmodel.NCCLProtocol(*proto); err != nil {
			return usageErr("--proto: %v", err)
		}
	} else {
		if p.Algorithm, err = costmodel.ParseAlgorithm(*algo); err != nil {
			return usageErr("--algo: %v", err)
		}
		if p.Protocol, err = costmodel.ParseProtocol(*proto); err != nil {
			return usageErr("--proto: %v", err)
		}
	}

	// The node: a preset, or one built from --bw and --lat.
	var node costmodel.Node
	if *preset != "" {
		if node, err = costmodel.NodeByName(*preset); err != nil {
			return usageErr("--preset: %v", err)
		}
	}
	n := *ranks
	if !nSet {
		n = 8
		if *preset != "" {
			n = node.GPUs * *nodes
		}
	}
	if n%*nodes != 0 {
		return usageErr("-n %d does not spread evenly over %d nodes", n, *nodes)
	}
	if *preset != "" && n/(*nodes) < node.GPUs {
		// Part of each board: the preset's links, n/nodes GPUs per node.
		if node, err = node.WithGPUs(n / *nodes); err != nil {
			return usageErr("-n: %v", err)
		}
	}
	*link = strings.ToLower(strings.TrimSpace(*link))
	if *link != "" && *link != "pcie" && *link != "nvlink" {
		return usageErr("--link %q: want pcie or nvlink", *link)
	}
	if *nicPath != "" {
		if !tuned {
			return usageErr("--nic-path applies to the tuner (--algo auto or --proto auto)")
		}
		switch strings.ToUpper(*nicPath) {
		case "PIX", "PXB", "PXN", "PHB", "SYS":
		default:
			return usageErr("--nic-path %q: want pix, pxb, pxn, phb or sys", *nicPath)
		}
	}
	p.Ranks, p.Nodes = n, *nodes
	p.Alpha, p.Beta, p.InterAlpha, p.InterBeta = node.Intra.Alpha, node.Intra.Beta(), node.NIC.Alpha, node.InterBeta()
	if *preset == "" {
		p.Alpha = 5e-6
	}
	if *bw != "" {
		b, err := costmodel.ParseBandwidth(*bw)
		if err != nil {
			return usageErr("--bw: %v", err)
		}
		p.Beta = b.OneWay()
		node.Intra.Bandwidth = b
	}
	if *lat != "" {
		l, err := costmodel.ParseDuration(*lat)
		if err != nil {
			return usageErr("--lat: %v", err)
		}
		p.Alpha = float64(l)
	}
	if *interBW != "" {
		b, err := costmodel.ParseBandwidth(*interBW)
		if err != nil {
			return usageErr("--inter-bw: %v", err)
		}
		p.InterBeta = b.OneWay()
	}
	if *interLat != "" {
		l, err := costmodel.ParseDuration(*interLat)
		if err != nil {
			return usageErr("--inter-lat: %v", err)
		}
		p.InterAlpha = float64(l)
	}
	if p.Beta <= 0 {
		// Say first what would be wrong even with a bandwidth.
		if !tuned {
			q := p
			q.Beta, q.Bytes = 1, sizes[0]
			if _, err := costmodel.Predict(q); errors.Is(err, costmodel.ErrUnsupported) {
				return usageErr("%v", err)
			}
		}
		return usageErr("need --bw (e.g. --bw 25GB/s) or --preset (%s)", presetNames())
	}

	var rows []modelResult
	header := ""
	if tuned {
		linkNote := ""
		if *preset == "" {
			if node, err = costmodel.CustomNode(p, *link); err != nil {
				return usageErr("--link: %v", err)
			}
			if *link == "" {
				linkNote = fmt.Sprintf(" (assumed from --bw %v; set --link)", costmodel.Bandwidth{BytesPerSecond: p.Beta})
			}
		} else if *link != "" {
			node.Intra.Kind = *link
			node.NVSwitch = *link == "nvlink"
			node.NVLS = node.NVLS && node.NVSwitch
		}
		if *nicPath != "" {
			node.NICPath = strings.ToUpper(*nicPath)
		}
		nvlsNote := "no NVLS"
		switch {
		case node.NVLS && !*nvls:
			node.NVLS = false
			nvlsNote = "NVLS off (NCCL_NVLS_ENABLE=0)"
		case node.NVLS:
			nvlsNote = "NVLS on"
		}
		kind := node.Intra.Kind
		if kind != "pcie" {
			kind = "nvlink"
		}
		header = fmt.Sprintf("%s, NCCL %s-family tuner, %d node(s) of %s: %d GPUs each, in-node link %s%s, %s",
			coll, *family, *nodes, node.Name, node.GPUs, kind, linkNote, nvlsNote)
		if *nodes > 1 {
			path := node.NICPath
			if path == "" {
				path = "PIX"
				if !node.NVSwitch {
					path = "PHB"
				}
			}
			header += ", NIC " + path
		}
		rows, err = modelTuner(node, p, *family, sizes, *algo, *proto, *table && !*jsonOut, stdout)
	} else {
		rows, err = modelAlphaBeta(p, sizes)
	}
	if err != nil {
		return usageErr("%v", err)
	}
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if *sweep == "" {
			err = enc.Encode(rows[0])
		} else {
			err = enc.Encode(rows)
		}
		if err != nil {
			fmt.Fprintf(stderr, "commlab model: %v\n", err)
			return 1
		}
		return 0
	}
	crossover := ""
	if !tuned {
		crossover = crossoverLine(p)
	}
	printModel(stdout, header, crossover, p, rows, *sweep != "")
	return 0
}

// crossoverLine says where the alpha-beta model of p turns from latency-
// to bandwidth-bound, e.g. "crossover 1 MB: below it the latency term
// dominates"; the tuner's pick changes with size, so it has none.
func crossoverLine(p costmodel.Params) string {
	x, err := costmodel.Crossover(p)
	if err != nil {
		return "crossover none: " + strings.TrimPrefix(err.Error(), "costmodel: bad parameters: ")
	}
	return fmt.Sprintf("crossover %v: below it the latency term dominates", costmodel.Bytes(x))
}

func presetNames() string {
	var names []string
	for _, n := range costmodel.Nodes() {
		names = append(names, n.Name)
	}
	return strings.Join(names, ", ")
}

// modelAlphaBeta predicts p at every size with the alpha-beta model.
func modelAlphaBeta(p costmodel.Params, sizes []float64) ([]modelResult, error) {
	rows, err := costmodel.SweepSizes(p, sizes)
	if err != nil {
		return nil, err
	}
	out := make([]modelResult, len(rows))
	for i, r := range rows {
		out[i] = resultOf(r)
		if out[i].Protocol == "" {
			out[i].Protocol = "ideal"
		}
	}
	return out, nil
}

// modelTuner predicts with the NCCL-like tuner over whole nodes, and
// prints its table first when asked.
func modelTuner(node costmodel.Node, p costmodel.Params, family string, sizes []float64, algo, proto string, printTable bool, w io.Writer) ([]modelResult, error) {
	if p.Ranks != node.GPUs*p.Nodes {
		return nil, fmt.Errorf("the tuner models whole nodes of at most %d GPUs: -n %d over %d node(s) of %s is %d per node", node.GPUs, p.Ranks, p.Nodes, node.Name, p.Ranks/p.Nodes)
	}
	T, rows, err := costmodel.TuneSweep(node, p.Nodes, family, p.Collective, sizes, algo, proto)
	if err != nil {
		return nil, err
	}
	if printTable {
		fmt.Fprint(w, T.String())
		fmt.Fprintln(w)
	}
	out := make([]modelResult, len(rows))
	for i, r := range rows {
		out[i] = resultOf(r.Row)
		out[i].ForcedRatio = r.Slowdown
	}
	return out, nil
}

func printModel(w io.Writer, header, crossover string, p costmodel.Params, rows []modelResult, sweep bool) {
	r0 := rows[0]
	if header != "" {
		fmt.Fprintln(w, header)
	} else {
		fmt.Fprintf(w, "%s, %s/%s, %d GPUs on %d node(s), alpha %v, beta %v one-way",
			r0.Collective, r0.Algorithm, r0.Protocol, r0.Ranks, r0.Nodes,
			costmodel.Seconds(p.Alpha), costmodel.Bandwidth{BytesPerSecond: p.Beta})
		if p.Nodes > 1 {
			fmt.Fprintf(w, "; between nodes alpha %v, beta %v per GPU", costmodel.Seconds(p.InterAlpha), costmodel.Bandwidth{BytesPerSecond: p.InterBeta})
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
			costmodel.Seconds(r0.TimeS), costmodel.Seconds(r0.LatencyS), costmodel.Seconds(r0.BandwidthS), r0.Bound)
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
			costmodel.Seconds(r.TimeS), costmodel.Seconds(r.LatencyS), costmodel.Seconds(r.BandwidthS), units.Number(r.AlgBWGBps), units.Number(r.BusBWGBps), r.Bound)
	}
	tw.Flush()
}

// formatBytes prints a size the way it reads back exactly (units.FormatSize):
// 1 KiB, 1 GB, 1000001 B.
func formatBytes(b float64) string {
	if b != math.Trunc(b) || math.Abs(b) >= 1<<62 {
		return costmodel.Bytes(b).String()
	}
	return units.FormatSize(int64(b))
}
