package costmodel

// CollectiveQuery: one collective question as a person asks it (`commlab
// model`), resolved to the alpha-beta model's Params or to a Machine for
// the calibrated model over NCCL's tuner. Its errors name the option at
// fault (OptionError) so that a command can say it with its own flag.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/commlab/commlab/units"
)

// Option names one input of a CollectiveQuery.
type Option string

// The inputs of a CollectiveQuery, one per field.
const (
	OptionSize           Option = "size"
	OptionSweep          Option = "sweep"
	OptionAlgorithm      Option = "algorithm"
	OptionProtocol       Option = "protocol"
	OptionRanks          Option = "ranks"
	OptionNodes          Option = "nodes"
	OptionPreset         Option = "preset"
	OptionBandwidth      Option = "bandwidth"
	OptionLatency        Option = "latency"
	OptionInterBandwidth Option = "inter-bandwidth"
	OptionInterLatency   Option = "inter-latency"
	OptionNCCL           Option = "nccl"
	OptionLink           Option = "link"
	OptionNICPath        Option = "nic-path"
	OptionNVLS           Option = "nvls"
	OptionTable          Option = "table"
	OptionThreadGPUs     Option = "thread-gpus"
	OptionIssue          Option = "issue"
)

// OptionError is a CollectiveQuery refused because of one of its inputs.
// Its text names options through Text, so that a command can name its
// flags instead ("--nodes 0: need at least 1 node").
type OptionError struct {
	// Option is the input at fault.
	Option Option
	// Err is the cause, when another error is (a unit that did not parse,
	// an unknown preset); nil otherwise.
	Err error
	// format and args make the message; Option values among args are
	// named by Text's caller.
	format string
	args   []any
}

func optionError(o Option, cause error, format string, args ...any) *OptionError {
	return &OptionError{Option: o, Err: cause, format: format, args: args}
}

// Text is the message with every option named by name.
func (e *OptionError) Text(name func(Option) string) string {
	args := make([]any, len(e.args))
	for i, a := range e.args {
		if o, ok := a.(Option); ok {
			a = name(o)
		}
		args[i] = a
	}
	return fmt.Sprintf(e.format, args...)
}

func (e *OptionError) Error() string {
	return "costmodel: " + e.Text(func(o Option) string { return string(o) })
}

// Unwrap is the cause, and ErrParams: every OptionError is a bad parameter.
func (e *OptionError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrParams}
	}
	return []error{ErrParams, e.Err}
}

// CollectiveQuery asks for a collective's time over sizes, on a machine
// given as a node preset or as link rates, under the alpha-beta model or,
// when Algorithm or Protocol is "auto", the calibrated model over NCCL's
// tuner. Sizes, rates and times are written as a person types them
// ("1MiB", "25GB/s", "5us"). A zero value takes the default its comment
// names; Given lists inputs set explicitly, so that one set where it cannot
// apply is refused even at its default value (nvls true with the alpha-beta
// model).
type CollectiveQuery struct {
	Collective string
	// Size is one message size; Sweep is ParseSweep's input. Exactly one
	// is set.
	Size, Sweep string
	// Algorithm: ParseAlgorithm's names ("" is ring), or "auto" and
	// NCCLAlgorithm's names for the tuner. Protocol: ParseProtocol's
	// ("" is ideal), or "auto" and NCCLProtocol's.
	Algorithm, Protocol string
	// Ranks is the GPU count: 0 is the preset's GPUs x Nodes, else 8.
	// Nodes is the node count: 0 is 1.
	Ranks, Nodes int
	// Preset is a node preset (NodeByName); Bandwidth and Latency the
	// in-node link's rate and per-step latency, over the preset's (5us
	// without one); InterBandwidth and InterLatency the network's per GPU,
	// over the preset's. Latency cannot apply to the tuner, which has
	// NCCL's own latencies; its InterLatency is the network's own latency
	// added to every network hop.
	Preset                       string
	Bandwidth, Latency           string
	InterBandwidth, InterLatency string

	// The tuner's alone.
	// NCCL is a version or family; "" is DefaultNCCL.
	NCCL string
	// Link is the in-node path, "pcie" or "nvlink": "" is the preset's,
	// or CustomLinkFor the bandwidth without a preset.
	Link string
	// NICPath is the GPU-to-NIC distance as nvidia-smi topo -m prints it
	// (pix, pxb, pxn, phb, sys); "" is PIX on NVSwitch boards, else PHB.
	NICPath string
	// NVLSOff is NCCL_NVLS_ENABLE=0.
	NVLSOff bool
	// Table asks for NCCL's init tuning table too.
	Table bool
	// ThreadGPUs is the GPUs one host thread drives (0 is 1); Issue the
	// host time to issue one operation to one GPU ("" is the fitted one).
	ThreadGPUs int
	Issue      string

	Given []Option
}

// CollectivePlan is a CollectiveQuery resolved: what to predict, and with
// which model.
type CollectivePlan struct {
	// Tuned is the calibrated model over NCCL's tuner; else alpha-beta.
	Tuned bool
	// Params holds the collective, ranks and nodes, and the alpha-beta
	// model's terms (the in-node and network rates either way).
	Params Params
	Sizes  []float64
	// Machine is what the tuner models (Tuned only); Algorithm and
	// Protocol are Machine.Sweep's inputs.
	Machine             Machine
	Algorithm, Protocol string
	// LinkAssumed says the in-node link of a node built from rates was
	// assumed from the bandwidth (CustomLinkFor), no Link given.
	LinkAssumed bool
	// NCCLGiven says the NCCL version was chosen, not the default.
	NCCLGiven bool
	Table     bool
}

// given says whether o was set: listed in Given, or away from its zero.
func (q CollectiveQuery) given(o Option) bool {
	if slices.Contains(q.Given, o) {
		return true
	}
	set := map[Option]bool{
		OptionRanks: q.Ranks != 0, OptionNodes: q.Nodes != 0, OptionThreadGPUs: q.ThreadGPUs != 0,
		OptionNCCL: q.NCCL != "", OptionLink: q.Link != "", OptionNICPath: q.NICPath != "",
		OptionNVLS: q.NVLSOff, OptionTable: q.Table, OptionIssue: q.Issue != "", OptionLatency: q.Latency != "",
		OptionInterBandwidth: q.InterBandwidth != "", OptionInterLatency: q.InterLatency != "",
	}
	return set[o]
}

// orDefault is v, or def when o was not given.
func (q CollectiveQuery) orDefault(o Option, v, def int) int {
	if !q.given(o) {
		return def
	}
	return v
}

// Plan checks the query and resolves it, in the order a person reads the
// options: sizes, counts, the model's names, the tuner's inputs, the
// node, the links.
func (q CollectiveQuery) Plan() (CollectivePlan, error) {
	var plan CollectivePlan
	coll, err := ParseCollective(q.Collective)
	if err != nil {
		return plan, err
	}
	if (q.Size == "") == (q.Sweep == "") {
		return plan, optionError(OptionSize, nil, "give either %s or %s", OptionSize, OptionSweep)
	}
	if q.Size != "" {
		s, err := units.ParseSize(q.Size)
		if err != nil {
			return plan, optionError(OptionSize, err, "%s: %v", OptionSize, err)
		}
		plan.Sizes = []float64{float64(s)}
	} else if plan.Sizes, err = ParseSweep(q.Sweep); err != nil {
		return plan, optionError(OptionSweep, err, "%s: %v", OptionSweep, err)
	}
	nodes := q.orDefault(OptionNodes, q.Nodes, 1)
	if nodes < 1 {
		return plan, optionError(OptionNodes, nil, "%s %d: need at least 1 node", OptionNodes, nodes)
	}
	if q.given(OptionRanks) && q.Ranks < 1 {
		return plan, optionError(OptionRanks, nil, "%s %d: need at least 1 GPU", OptionRanks, q.Ranks)
	}
	algo := q.Algorithm
	if algo == "" {
		algo = "ring"
	}
	plan.Tuned = strings.EqualFold(algo, "auto") || strings.EqualFold(q.Protocol, "auto")
	plan.Algorithm, plan.Protocol = algo, q.Protocol
	p := &plan.Params
	p.Collective = coll
	if plan.Tuned {
		if _, err := NCCLAlgorithm(algo); err != nil {
			return plan, optionError(OptionAlgorithm, err, "%s: %v", OptionAlgorithm, err)
		}
		if _, err := NCCLProtocol(q.Protocol); err != nil {
			return plan, optionError(OptionProtocol, err, "%s: %v", OptionProtocol, err)
		}
		if q.given(OptionLatency) {
			return plan, optionError(OptionLatency, nil, "%s sets the alpha-beta model's per-step latency; %s auto uses NCCL's own per-hop latencies (tuning.cc), so it cannot apply (%s adds a network's latency)",
				OptionLatency, OptionAlgorithm, OptionInterLatency)
		}
	} else {
		if p.Algorithm, err = ParseAlgorithm(algo); err != nil {
			return plan, optionError(OptionAlgorithm, err, "%s: %v", OptionAlgorithm, err)
		}
		if p.Protocol, err = ParseProtocol(q.Protocol); err != nil {
			return plan, optionError(OptionProtocol, err, "%s: %v", OptionProtocol, err)
		}
		for _, o := range []Option{OptionNCCL, OptionLink, OptionNICPath, OptionNVLS, OptionTable, OptionThreadGPUs, OptionIssue} {
			if q.given(o) {
				return plan, optionError(o, nil, "%s applies to the tuner (%s auto or %s auto); the alpha-beta model of %s %s has no NCCL in it",
					o, OptionAlgorithm, OptionProtocol, OptionAlgorithm, algo)
			}
		}
	}
	harness := Harness{ThreadGPUs: q.orDefault(OptionThreadGPUs, q.ThreadGPUs, 1)}
	if harness.ThreadGPUs < 1 {
		return plan, optionError(OptionThreadGPUs, nil, "%s %d: need at least 1", OptionThreadGPUs, harness.ThreadGPUs)
	}
	if q.Issue != "" {
		d, err := ParseDuration(q.Issue)
		if err != nil {
			return plan, optionError(OptionIssue, err, "%s: %v", OptionIssue, err)
		}
		if float64(d) <= 0 {
			return plan, optionError(OptionIssue, nil, "%s %s: want a time above 0", OptionIssue, q.Issue)
		}
		harness.IssueUs = float64(d) * 1e6
	}
	family := q.NCCL
	if family == "" {
		family = DefaultNCCL
	}
	plan.NCCLGiven = q.given(OptionNCCL)
	if plan.Tuned {
		if _, err := NCCLFamily(family); err != nil {
			return plan, optionError(OptionNCCL, err, "%s: %v", OptionNCCL, err)
		}
	}

	node, n, err := q.node(nodes)
	if err != nil {
		return plan, err
	}
	link := strings.ToLower(strings.TrimSpace(q.Link))
	if link != "" && link != "pcie" && link != "nvlink" {
		return plan, optionError(OptionLink, nil, "%s %q: want pcie or nvlink", OptionLink, link)
	}
	if q.NICPath != "" {
		switch strings.ToUpper(q.NICPath) {
		case "PIX", "PXB", "PXN", "PHB", "SYS":
		default:
			return plan, optionError(OptionNICPath, nil, "%s %q: want pix, pxb, pxn, phb or sys", OptionNICPath, q.NICPath)
		}
	}
	if nodes == 1 {
		for _, o := range []Option{OptionInterBandwidth, OptionInterLatency, OptionNICPath} {
			if q.given(o) {
				return plan, optionError(o, nil, "%s describes the network between nodes; with %s 1 nothing crosses it", o, OptionNodes)
			}
		}
	}
	p.Ranks, p.Nodes = n, nodes
	if err := q.rates(p, &node); err != nil {
		return plan, err
	}
	if p.Beta <= 0 {
		// Say first what would be wrong even with a bandwidth.
		if !plan.Tuned {
			r := *p
			r.Beta, r.Bytes = 1, plan.Sizes[0]
			if _, err := Predict(r); errors.Is(err, ErrUnsupported) {
				return plan, err
			}
		}
		return plan, optionError(OptionBandwidth, nil, "need %s (e.g. %s 25GB/s) or %s (%s)", OptionBandwidth, OptionBandwidth, OptionPreset, NodeNames())
	}
	if !plan.Tuned {
		return plan, nil
	}
	if q.Preset == "" {
		if node, err = CustomNode(*p, link); err != nil {
			return plan, optionError(OptionLink, err, "%s: %v", OptionLink, err)
		}
		plan.LinkAssumed = link == ""
	} else if link != "" {
		node.Intra.Kind = link
		node.NVSwitch = link == "nvlink"
		node.NVLS = node.NVLS && node.NVSwitch
		node.Intra.NCCLBandwidth = 0
	}
	if q.NICPath != "" {
		node.NICPath = strings.ToUpper(q.NICPath)
	}
	// The network options apply to the tuner's nodes too: one NIC per GPU
	// at InterBandwidth, and InterLatency as the network's own latency.
	if q.InterBandwidth != "" {
		node.NICs = node.GPUs
		node.NIC.Name = "custom"
		node.NIC.Bandwidth = Bandwidth{BytesPerSecond: p.InterBeta}
		node.NIC.NCCLBandwidth = p.InterBeta / 1e9
	}
	if q.InterLatency != "" {
		node.NIC.NetLatency, node.NIC.NetLatencyFit = p.InterAlpha, ""
	}
	if p.Ranks != node.GPUs*p.Nodes {
		return plan, optionError(OptionRanks, nil, "the tuner models whole nodes of at most %d GPUs: %s %d over %d node(s) of %s is %d per node",
			node.GPUs, OptionRanks, p.Ranks, p.Nodes, node.Name, p.Ranks/p.Nodes)
	}
	plan.Machine = Machine{Node: node, Nodes: nodes, NCCL: family, NVLSOff: q.NVLSOff, Harness: harness}
	plan.Table = q.Table
	return plan, nil
}

// node is the query's preset (the zero Node without one), cut to the GPUs
// per node that Ranks asks for, and the GPU count.
func (q CollectiveQuery) node(nodes int) (Node, int, error) {
	var node Node
	var err error
	if q.Preset != "" {
		if node, err = NodeByName(q.Preset); err != nil {
			return node, 0, optionError(OptionPreset, err, "%s: %v", OptionPreset, err)
		}
	}
	n := q.Ranks
	if !q.given(OptionRanks) {
		n = 8
		if q.Preset != "" {
			n = node.GPUs * nodes
		}
	}
	if n%nodes != 0 {
		return node, 0, optionError(OptionRanks, nil, "%s %d does not spread evenly over %d nodes", OptionRanks, n, nodes)
	}
	if q.Preset != "" && n/nodes < node.GPUs {
		// Part of each board: the preset's links, n/nodes GPUs per node.
		if node, err = node.WithGPUs(n / nodes); err != nil {
			return node, 0, optionError(OptionRanks, err, "%s: %v", OptionRanks, err)
		}
	}
	return node, n, nil
}

// rates sets p's terms from the node and the rates and latencies given
// over it; a bandwidth given replaces the node's in-node rate too.
func (q CollectiveQuery) rates(p *Params, node *Node) error {
	p.Alpha, p.Beta, p.InterAlpha, p.InterBeta = node.Intra.Alpha, node.Intra.Beta(), node.NIC.Alpha, node.InterBeta()
	if q.Preset == "" {
		p.Alpha = 5e-6
	}
	if q.Bandwidth != "" {
		b, err := ParseBandwidth(q.Bandwidth)
		if err != nil {
			return optionError(OptionBandwidth, err, "%s: %v", OptionBandwidth, err)
		}
		p.Beta = b.OneWay()
		node.Intra.Bandwidth = b
		node.Intra.NCCLBandwidth = 0 // rated from the new rate as NCCL rates this kind of link
	}
	if q.Latency != "" {
		l, err := ParseDuration(q.Latency)
		if err != nil {
			return optionError(OptionLatency, err, "%s: %v", OptionLatency, err)
		}
		p.Alpha = float64(l)
	}
	if q.InterBandwidth != "" {
		b, err := ParseBandwidth(q.InterBandwidth)
		if err != nil {
			return optionError(OptionInterBandwidth, err, "%s: %v", OptionInterBandwidth, err)
		}
		p.InterBeta = b.OneWay()
	}
	if q.InterLatency != "" {
		l, err := ParseDuration(q.InterLatency)
		if err != nil {
			return optionError(OptionInterLatency, err, "%s: %v", OptionInterLatency, err)
		}
		p.InterAlpha = float64(l)
	}
	return nil
}
