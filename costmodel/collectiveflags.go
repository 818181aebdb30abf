package costmodel

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// QueryFlags are the flags of `commlab model` that stand for the inputs
// of a CollectiveQuery.
var QueryFlags = map[Option]string{
	OptionSize: "--size", OptionSweep: "--sweep", OptionAlgorithm: "--algo",
	OptionProtocol: "--proto", OptionRanks: "-n", OptionNodes: "--nodes",
	OptionPreset: "--preset", OptionBandwidth: "--bw", OptionLatency: "--lat",
	OptionInterBandwidth: "--inter-bw", OptionInterLatency: "--inter-lat", OptionNCCL: "--nccl",
	OptionLink: "--link", OptionNICPath: "--nic-path", OptionNVLS: "--nvls",
	OptionTable: "--table", OptionThreadGPUs: "--thread-gpus", OptionIssue: "--issue",
}

// OptionOfFlag is the query input that the flag named name (without its
// dashes) sets.
func OptionOfFlag(name string) (Option, bool) {
	for o, f := range QueryFlags {
		if strings.TrimLeft(f, "-") == name {
			return o, true
		}
	}
	return "", false
}

// FlagErrorText is err's message with the query's inputs named by their
// flags: "--nodes 0: need at least 1 node".
func FlagErrorText(err error) string {
	var oe *OptionError
	if !errors.As(err, &oe) {
		return err.Error()
	}
	return oe.Text(func(o Option) string { return QueryFlags[o] })
}

// UsageLines lists the node presets and the network links between nodes,
// as commlab model -h shows them under their headings.
func UsageLines() (presets, links []string) {
	for _, n := range Nodes() {
		presets = append(presets, fmt.Sprintf("  %-20s %s", n.Name, n.Description))
	}
	for _, l := range Links() {
		if k := l.Kind; k == "ib" || k == "roce" || k == "efa" || k == "tcpx" || k == "tcpxo" {
			links = append(links, fmt.Sprintf("  %-20s %s", l.Name, l.Description))
		}
	}
	return presets, links
}

// QueryUsage is the usage of `commlab model`, with the presets and network
// links it knows.
func QueryUsage() []string {
	usage := []string{
		"usage: commlab model <collective> [--algo A] [-n N] [--nodes M] [--size S | --sweep 8B:8GB] [--bw B] [--lat L] [--proto P] [--preset NAME] [--json]",
		"collectives: broadcast, reduce, all_reduce, all_gather, reduce_scatter, all_to_all, scatter, gather, sendrecv",
		"--algo auto (or --proto auto) is the calibrated model: NCCL's tuner picks, NCCL " + DefaultNCCL +
			"-family constants unless --nccl says otherwise; `commlab model calibrate` shows it beside published measurements",
		"inference: commlab model tp-allreduce ... (decode all_reduces, backend choice), commlab model kv ... (KV cache bytes and transfer time)",
		"presets (--preset):",
	}
	presets, links := UsageLines()
	usage = append(usage, presets...)
	usage = append(usage, "network links (--inter-bw takes a rate; `commlab model calibrate` lists sources):")
	return append(usage, links...)
}

// QueryFlagSet holds the flags of `commlab model` (QueryFlags) until they
// are parsed and Query reads them into a CollectiveQuery.
type QueryFlagSet struct {
	q          CollectiveQuery
	nccl       string
	threadGPUs int
	nvls       bool
}

// AddFlags defines the query's flags on fs.
func (f *QueryFlagSet) AddFlags(fs *flag.FlagSet) {
	q := &f.q
	fs.StringVar(&q.Algorithm, "algo", "ring", "ring|tree|dbtree|rhd|hier|nvls|collnet, or auto (calibrated model over NCCL's tuner; nvlstree and pat too)")
	fs.IntVar(&q.Ranks, "n", 0, "number of GPUs (default: preset GPUs x nodes, else 8)")
	fs.IntVar(&q.Nodes, "nodes", 1, "number of nodes the GPUs spread over")
	fs.StringVar(&q.Size, "size", "", "message size, e.g. 1M or 1MiB (2^20), 1MB (10^6), 64KB, 1e9")
	fs.StringVar(&q.Sweep, "sweep", "", "size sweep MIN:MAX[:FACTOR] (ends at MAX) or a list A,B,C, e.g. 8B:8GB")
	fs.StringVar(&q.Bandwidth, "bw", "", "per-GPU link bandwidth inside a node, e.g. 25GB/s, 400Gb/s, '900GB/s bidirectional'")
	fs.StringVar(&q.Latency, "lat", "", "per-step latency alpha of the alpha-beta model, e.g. 5us (default: preset's, else 5us); not with auto")
	fs.StringVar(&q.InterBandwidth, "inter-bw", "", "per-GPU network bandwidth between nodes (default: preset's, else --bw)")
	fs.StringVar(&q.InterLatency, "inter-lat", "", "per-step latency between nodes (default: preset's, else --lat); with auto: the network's own latency NCCL adds to every network hop")
	fs.StringVar(&q.Protocol, "proto", "", "simple|ll|ll128|auto (default: ideal, no protocol cost)")
	fs.StringVar(&q.Preset, "preset", "", "node preset (listed above)")
	fs.StringVar(&f.nccl, "nccl", DefaultNCCL, "with auto: NCCL version (2.21.5) or tuner family (2.19, 2.23 ... 2.28); default the newest modelled")
	fs.StringVar(&q.Link, "link", "", "with --algo auto: in-node path, pcie|nvlink (default: the preset's; with --bw alone, pcie up to 64 GB/s one way, else nvlink)")
	fs.StringVar(&q.NICPath, "nic-path", "", "with --algo auto: GPU-to-NIC distance as nvidia-smi topo -m prints it, pix|pxb|pxn|phb|sys (default: pix on NVSwitch boards, else phb)")
	fs.BoolVar(&f.nvls, "nvls", true, "with --algo auto: NVLS where the node has it; --nvls=false is NCCL_NVLS_ENABLE=0")
	fs.BoolVar(&q.Table, "table", false, "with --algo auto: also print NCCL's init tuning table")
	fs.IntVar(&f.threadGPUs, "thread-gpus", 1, "with --algo auto: GPUs one host thread drives (nccl-tests -g N: N; mpirun/torchrun: 1)")
	fs.StringVar(&q.Issue, "issue", "", "with --algo auto: host time to issue one operation to one GPU (default: the fitted "+
		strconv.FormatFloat(FitIssueUs, 'g', -1, 64)+"µs; H200 VMs whose runs are recorded here: "+strconv.FormatFloat(FitLabIssueUs, 'g', -1, 64)+"µs)")
}

// Query is the query for collective once fs, on which AddFlags defined
// the flags, is parsed. Flags left at their defaults stay zero in the
// query, whose defaults are the same; those given are listed in Given, so
// that the query can tell.
func (f *QueryFlagSet) Query(fs *flag.FlagSet, collective string) CollectiveQuery {
	q := f.q
	q.Collective, q.NVLSOff, q.Given = collective, !f.nvls, nil
	fs.Visit(func(fl *flag.Flag) {
		if o, ok := OptionOfFlag(fl.Name); ok {
			q.Given = append(q.Given, o)
		}
		switch fl.Name {
		case "nccl":
			q.NCCL = f.nccl
		case "thread-gpus":
			q.ThreadGPUs = f.threadGPUs
		}
	})
	return q
}

// WriteResults prints what Predict returned as commlab model does: text,
// or with asJSON indented JSON, one object for one size and a list for a
// sweep.
func (plan CollectivePlan) WriteResults(w io.Writer, rows []CollectiveResult, sweep, asJSON bool) error {
	if !asJSON {
		plan.WriteText(w, rows, sweep)
		return nil
	}
	var v any = rows
	if !sweep {
		v = rows[0]
	}
	return writeIndentedJSON(w, v)
}

// writeIndentedJSON writes v as the model verbs' --json prints it.
func writeIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
