package costmodel

import (
	"errors"
	"fmt"
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
