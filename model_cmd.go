package main

import (
	"encoding/json"
	"fmt"
	"io"
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
	fs := newFlags("commlab model", stderr,
		"usage: commlab model <collective> [--algo A] [-n N] [--nodes M] [--size S | --sweep 8B:8GB] [--bw B] [--lat L] [--proto P] [--preset NAME] [--json]",
		"collectives: broadcast, reduce, all_reduce, all_gather, reduce_scatter, all_to_all, scatter, gather, sendrecv")
	algo := fs.String("algo", "ring", "ring|tree|dbtree|rhd|hier|nvls|collnet|auto (auto: NCCL-like tuner)")
	ranks := fs.Int("n", 0, "number of GPUs (default: preset GPUs x nodes, else 8)")
	nodes := fs.Int("nodes", 1, "number of nodes the GPUs spread over")
	size := fs.String("size", "", "message size, e.g. 1M or 1MiB (2^20), 1MB (10^6), 64KB, 1e9")
	sweep := fs.String("sweep", "", "size sweep MIN:MAX[:FACTOR] or a list A,B,C, e.g. 8B:8GB")
	bw := fs.String("bw", "", "per-GPU link bandwidth inside a node, e.g. 25GB/s, 400Gb/s, '900GB/s bidirectional'")
	lat := fs.String("lat", "", "per-step latency alpha, e.g. 5us (default: preset's, else 5us)")
	interBW := fs.String("inter-bw", "", "per-GPU network bandwidth between nodes (default: preset's, else --bw)")
	interLat := fs.String("inter-lat", "", "per-step latency between nodes (default: preset's, else --lat)")
	proto := fs.String("proto", "", "simple|ll|ll128|auto (default: ideal, no protocol cost)")
	preset := fs.String("preset", "", "node preset: "+presetNames())
	family := fs.String("nccl", "2.23", "NCCL version family of the tuner: 2.19, 2.23 or 2.28")
	table := fs.Bool("table", false, "with --algo auto: also print NCCL's init tuning table")
	jsonOut := fs.Bool("json", false, "print JSON: an object, or a list for --sweep")
	pos, status, ok := parseFlags(fs, args)
	if !ok {
		return status
	}
	usageErr := func(format string, a ...any) int { return fail(fs, stderr, 2, format, a...) }
	if len(pos) != 1 {
		fs.Usage()
		return usageErr("want exactly one collective, got %d arguments", len(pos))
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
		return usageErr("--nodes must be at least 1")
	}

	// The node: a preset, or one built from --bw and --lat.
	var node costmodel.Node
	if *preset != "" {
		if node, err = costmodel.NodeByName(*preset); err != nil {
			return usageErr("--preset: %v", err)
		}
	}
	n := *ranks
	if n == 0 {
		n = 8
		if *preset != "" {
			n = node.GPUs * *nodes
		}
	}
	if n < 1 || n%*nodes != 0 {
		return usageErr("-n %d does not spread evenly over %d nodes", n, *nodes)
	}
	p := costmodel.Params{Collective: coll, Ranks: n, Nodes: *nodes, Alpha: node.Intra.Alpha, Beta: node.Intra.Beta(),
		InterAlpha: node.NIC.Alpha, InterBeta: node.InterBeta()}
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
		return usageErr("need --bw (e.g. --bw 25GB/s) or --preset (%s)", presetNames())
	}

	var rows []modelResult
	header := ""
	if strings.EqualFold(*algo, "auto") || strings.EqualFold(*proto, "auto") {
		name := node.Name
		if name == "" {
			name = "custom"
		}
		header = fmt.Sprintf("%s, NCCL %s-family tuner, %d node(s) of %s", coll, *family, *nodes, name)
		rows, err = modelTuner(p, node, *preset != "", *algo, *proto, *family, sizes, *table && !*jsonOut, stdout)
	} else {
		rows, err = modelAlphaBeta(p, *algo, *proto, sizes)
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
	printModel(stdout, header, p, rows, *sweep != "")
	return 0
}

func presetNames() string {
	var names []string
	for _, n := range costmodel.Nodes() {
		names = append(names, n.Name)
	}
	return strings.Join(names, ", ")
}

func modelAlphaBeta(p costmodel.Params, algo, proto string, sizes []float64) ([]modelResult, error) {
	a, err := costmodel.ParseAlgorithm(algo)
	if err != nil {
		return nil, fmt.Errorf("--algo: %w", err)
	}
	pr, err := costmodel.ParseProtocol(proto)
	if err != nil {
		return nil, fmt.Errorf("--proto: %w", err)
	}
	p.Algorithm, p.Protocol = a, pr
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

// ncclAlgoName maps --algo to the tuner's algorithm names ("" = free).
func ncclAlgoName(algo string) (string, error) {
	switch strings.ToLower(algo) {
	case "auto", "":
		return "", nil
	case "ring":
		return "Ring", nil
	case "tree", "dbtree":
		return "Tree", nil // NCCL's tree is a double binary tree
	case "nvls":
		return "NVLS", nil
	case "collnet":
		return "CollNetDirect", nil
	}
	return "", fmt.Errorf("--algo %s is not one of NCCL's algorithms (ring, tree, nvls, collnet, auto)", algo)
}

func modelTuner(p costmodel.Params, node costmodel.Node, havePreset bool, algo, proto, family string, sizes []float64, printTable bool, w io.Writer) ([]modelResult, error) {
	if !havePreset {
		// A node of n/nodes GPUs on the given link, one NIC per GPU.
		kind := "nvlink"
		node = costmodel.Node{Name: "custom", GPUs: p.Ranks / p.Nodes, NVSwitch: true, NICs: p.Ranks / p.Nodes, ComputeCapability: 90,
			Intra: costmodel.Link{Kind: kind, Bandwidth: costmodel.Bandwidth{BytesPerSecond: p.Beta}, Alpha: p.Alpha},
			NIC:   costmodel.Link{Kind: "ib", Bandwidth: costmodel.Bandwidth{BytesPerSecond: p.InterBeta}, Alpha: p.InterAlpha}}
	}
	if p.Ranks != node.GPUs*p.Nodes {
		return nil, fmt.Errorf("the tuner models whole nodes: -n %d is not %d GPUs x %d nodes of %s (drop -n)", p.Ranks, node.GPUs, p.Nodes, node.Name)
	}
	fa, err := ncclAlgoName(algo)
	if err != nil {
		return nil, err
	}
	fp := ""
	switch strings.ToLower(proto) {
	case "auto", "":
	case "simple":
		fp = "Simple"
	case "ll":
		fp = "LL"
	case "ll128":
		fp = "LL128"
	default:
		return nil, fmt.Errorf("--proto %q: want simple, ll, ll128 or auto", proto)
	}
	T, err := costmodel.Tune(costmodel.NCCLTopology(node, p.Nodes, family))
	if err != nil {
		return nil, err
	}
	if printTable {
		fmt.Fprint(w, T.String())
		fmt.Fprintln(w)
	}
	var out []modelResult
	for _, s := range sizes {
		f, err := T.Force(p.Collective, s, fa, fp)
		if err != nil {
			return nil, err
		}
		c := f.Forced
		t := c.TimeUs * 1e-6
		r := modelResult{Collective: string(p.Collective), Algorithm: c.Algorithm, Protocol: c.Protocol, Ranks: p.Ranks,
			Nodes: p.Nodes, Bytes: s, TimeS: t, LatencyS: c.LatencyUs * 1e-6}
		r.BandwidthS = t - r.LatencyS
		if r.BandwidthS < 0 {
			r.BandwidthS = 0
		}
		if t > 0 {
			r.AlgBWGBps = s / t / 1e9
			r.BusBWGBps = r.AlgBWGBps * costmodel.BusBWFactor(p.Collective, p.Ranks)
		}
		r.Bound = "bandwidth"
		if r.LatencyS > r.BandwidthS {
			r.Bound = "latency"
		}
		if fa != "" || fp != "" {
			r.ForcedRatio = f.Slowdown
		}
		out = append(out, r)
	}
	return out, nil
}

func printModel(w io.Writer, header string, p costmodel.Params, rows []modelResult, sweep bool) {
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
		fmt.Fprintln(w)
	}
	if !sweep {
		if header != "" {
			fmt.Fprintf(w, "pick    %s/%s\n", r0.Algorithm, r0.Protocol)
		}
		fmt.Fprintf(w, "size    %v (%v)\n", costmodel.Bytes(r0.Bytes), costmodel.Bytes(r0.Bytes).IEC())
		fmt.Fprintf(w, "time    %v = %v latency + %v bandwidth (%s-bound)\n",
			costmodel.Seconds(r0.TimeS), costmodel.Seconds(r0.LatencyS), costmodel.Seconds(r0.BandwidthS), r0.Bound)
		fmt.Fprintf(w, "algbw   %.4g GB/s\nbusbw   %.4g GB/s\n", r0.AlgBWGBps, r0.BusBWGBps)
		if r0.ForcedRatio != 0 {
			fmt.Fprintf(w, "forcing %s/%s costs %.3gx the tuner's free pick\n", r0.Algorithm, r0.Protocol, r0.ForcedRatio)
		}
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "size\talgo\tproto\ttime\tlatency\tbandwidth\talgbw GB/s\tbusbw GB/s\tbound\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%v\t%s\t%s\t%v\t%v\t%v\t%.4g\t%.4g\t%s\t\n", costmodel.Bytes(r.Bytes), r.Algorithm, r.Protocol,
			costmodel.Seconds(r.TimeS), costmodel.Seconds(r.LatencyS), costmodel.Seconds(r.BandwidthS), r.AlgBWGBps, r.BusBWGBps, r.Bound)
	}
	tw.Flush()
}
