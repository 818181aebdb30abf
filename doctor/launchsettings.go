package doctor

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// LaunchSettings are the doctor's launcher settings as `commlab doctor
// --launcher` takes them: nodes given as --nodes N or --num-nodes N, the
// hosts as a list or a hostfile, GPUs as --per-node or --gpus-per-node.
type LaunchSettings struct {
	Launcher, Hostfile, Hosts, Master, Out, Binary string
	// Nodes is --nodes as given (a number here); NumNodes --num-nodes.
	Nodes                          string
	NumNodes, PerNode, GPUsPerNode int
	// Pairwise adds a two-node all_reduce per pair of hosts; JSON asks
	// the follow-up for JSON.
	Pairwise, JSON bool
}

// Plan resolves the settings and returns the plan: the commands, the
// pairwise ones when asked, and the follow-up that reads them. Its errors
// are the settings' fault.
func (s LaunchSettings) Plan() (Plan, error) {
	nodes := s.NumNodes
	if s.Nodes != "" {
		n, err := strconv.Atoi(s.Nodes)
		if err != nil || n < 1 {
			return Plan{}, fmt.Errorf("--nodes %q: with --launcher, the number of nodes", s.Nodes)
		}
		if nodes != 0 && nodes != n {
			return Plan{}, fmt.Errorf("--nodes %d and --num-nodes %d disagree", n, nodes)
		}
		nodes = n
	}
	perNode := s.PerNode
	if s.GPUsPerNode > 0 {
		perNode = s.GPUsPerNode
	}
	var hosts []string
	switch {
	case s.Hosts != "":
		hosts = HostList(s.Hosts)
	case s.Hostfile != "":
		data, err := os.ReadFile(s.Hostfile)
		if err != nil {
			return Plan{}, err
		}
		hosts = ReadHostfile(string(data))
	}
	if nodes == 0 && len(hosts) == 0 {
		nodes = 2
	}
	l := Launch{Launcher: s.Launcher, Hostfile: s.Hostfile, Hosts: hosts, Nodes: nodes, PerNode: perNode,
		Binary: s.Binary, Out: s.Out, Master: s.Master}
	plan, err := l.Plan()
	if err != nil {
		return Plan{}, err
	}
	if s.Pairwise {
		pp, err := l.PairwisePlan(hosts)
		if err != nil {
			return Plan{}, err
		}
		plan.Commands = append(plan.Commands, pp.Commands...)
		plan.Notes = append(plan.Notes, pp.Notes...)
		plan.FollowUp = append(plan.FollowUp, "--pairs", filepath.Join(s.Out, "pairs"))
	}
	if s.JSON {
		plan.FollowUp = append(plan.FollowUp, "--json")
	}
	return plan, nil
}

// WriteText prints the plan as a person runs it: its notes after "# ",
// each command as a shell line, the follow-up last.
func (p Plan) WriteText(w io.Writer) {
	for _, n := range p.Notes {
		fmt.Fprintln(w, "# "+n)
	}
	for _, c := range p.Commands {
		fmt.Fprintln(w, ShellLine(c))
	}
	fmt.Fprintln(w, ShellLine(p.FollowUp))
}
