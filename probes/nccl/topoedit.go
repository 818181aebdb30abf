package nccl

import (
	"context"
	"fmt"
	"strings"

	"github.com/commlab/commlab/parse/ncclxml"
	"github.com/commlab/commlab/probes"
)

// MeasureTopologyEdit is the seed's topology exercise in one call: a run
// in a child that dumps NCCL's topology, the dump edited as edit says
// (ncclxml.Edits: "nvlink-count=0", "nic-remote-cpu", ...), and a second
// run in a child that reads the edited file through NCCL_TOPO_FILE. The
// result is the edited run; the first run's NCCL log and dumps ride along
// in its Logs as "base-nccl-debug", "base-nccl-topo-dump" and
// "base-nccl-graph-dump", so one saved run holds both sides of the
// comparison. An edit that does not apply to this machine's topology (no
// NVLink on one GPU) is an error wrapping ncclxml.ErrEdit, returned with the
// base run.
func MeasureTopologyEdit(ctx context.Context, cfg Config, edit string, argv []string) (*probes.Run, error) {
	base := cfg
	base.DumpTopology, base.TopoXML = true, ""
	// NCCL writes the dump during init, so a first run that fails later
	// still gives the topology to edit.
	baseRun, baseErr := MeasureInChild(ctx, base, argv)
	if baseRun == nil || baseRun.Logs["nccl-topo-dump"] == "" {
		if baseErr != nil {
			return baseRun, fmt.Errorf("nccl: topology edit: first run: %w", baseErr)
		}
		return baseRun, fmt.Errorf("nccl: topology edit: NCCL wrote no topology dump (NCCL_TOPO_DUMP_FILE needs NCCL 2.6 or later)")
	}
	dump := baseRun.Logs["nccl-topo-dump"]
	root, err := ncclxml.ReadTree(strings.NewReader(dump))
	if err != nil {
		return baseRun, fmt.Errorf("nccl: topology edit: the dump: %w", err)
	}
	what, err := ncclxml.ApplyEdit(root, edit)
	if err != nil {
		return baseRun, fmt.Errorf("nccl: topology edit: %w", err)
	}
	var edited strings.Builder
	if err := root.WriteXML(&edited); err != nil {
		return baseRun, fmt.Errorf("nccl: topology edit: %w", err)
	}
	next := cfg
	next.DumpTopology, next.TopoXML = true, edited.String()
	run, err := MeasureInChild(ctx, next, argv)
	if run == nil {
		return baseRun, fmt.Errorf("nccl: topology edit: second run: %w", err)
	}
	if run.Logs == nil {
		run.Logs = map[string]string{}
	}
	for _, name := range []string{"nccl-debug", "nccl-topo-dump", "nccl-graph-dump"} {
		if s, ok := baseRun.Logs[name]; ok {
			run.Logs["base-"+name] = s
		}
	}
	if run.Settings == nil {
		run.Settings = map[string]string{}
	}
	run.Settings["topo_edit"] = edit
	if baseErr != nil {
		run.Notes = append(run.Notes, "first run: "+baseErr.Error())
	}
	run.Notes = append(run.Notes, "NCCL_TOPO_FILE: the first run's NCCL_TOPO_DUMP_FILE with "+edit+": "+what)
	if err != nil {
		return run, fmt.Errorf("nccl: topology edit: second run: %w", err)
	}
	return run, nil
}
