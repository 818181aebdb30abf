package doctor

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/commlab/commlab/probes/child"
)

// ErrLaunch is returned for a launch plan that cannot be built.
var ErrLaunch = errors.New("doctor: bad launch request")

// Launch says how to run the doctor across nodes with the user's own
// launcher: the doctor never starts one of its own.
type Launch struct {
	Launcher string // "mpirun", "srun" or "torchrun"
	// Hostfile is mpirun's --hostfile; Hosts the nodes by name (read from
	// the hostfile, or given), for srun's --nodelist, mpirun's --host and
	// torchrun's rendezvous host.
	Hostfile string
	Hosts    []string
	Nodes    int    // nodes; 0 takes the number of Hosts
	PerNode  int    // GPUs (ranks) per node
	Binary   string // the commlab binary, as the nodes see it
	Out      string // a directory every node can write (a shared file system)
	// Collective is the program that runs the cross-node collective sweep
	// (nccl-tests' all_reduce_perf by default).
	Collective []string
	// Master is torchrun's rendezvous host:port (default: the first host,
	// port 29500).
	Master string
}

// Plan is the commands a Launch runs, in order, the one command that
// reads everything they leave into one report, and what to know.
type Plan struct {
	Commands [][]string
	FollowUp []string
	Notes    []string
	// Outputs are the files and folders the commands write under Out.
	Outputs []string
}

// ncclLogEnv are the settings every rank of the sweep runs with: NCCL's
// log, one file per process (NCCL expands %h and %p).
func ncclLogEnv(out string) []string {
	return []string{"NCCL_DEBUG=INFO", "NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH,TUNING,ENV",
		"NCCL_DEBUG_FILE=" + filepath.Join(out, "nccl.%h.%p.log")}
}

// Where a plan's outputs go under Out.
func nodesDir(out string) string  { return filepath.Join(out, "nodes") }
func sweepFile(out string) string { return filepath.Join(out, "nccl-tests.txt") }
func torchDir(out string) string  { return filepath.Join(out, "torch") }
func reportDir(out string) string { return filepath.Join(out, "report") }

// Plan builds the commands: the doctor on every node (one process per
// node, each writing its report under Out/nodes/<host>), the collective
// sweep over all ranks with NCCL's log (its table saved to
// Out/nccl-tests.txt), and the follow-up that reads both, with the NCCL
// logs, into one report in Out/report.
func (l Launch) Plan() (Plan, error) {
	if l.Nodes == 0 {
		l.Nodes = len(l.Hosts)
	}
	if l.Nodes < 1 || l.PerNode < 1 {
		return Plan{}, fmt.Errorf("%w: nodes and GPUs per node must be positive (got %d, %d)", ErrLaunch, l.Nodes, l.PerNode)
	}
	if l.Out == "" {
		return Plan{}, fmt.Errorf("%w: an output directory every node can write is needed", ErrLaunch)
	}
	if len(l.Hosts) > 0 && l.Nodes > len(l.Hosts) {
		return Plan{}, fmt.Errorf("%w: %d nodes asked, but the hosts name %d (%s)", ErrLaunch, l.Nodes, len(l.Hosts), strings.Join(l.Hosts, ","))
	}
	hosts := l.Hosts
	if len(hosts) > l.Nodes {
		hosts = hosts[:l.Nodes]
	}
	bin := l.Binary
	if bin == "" {
		bin = "commlab"
	}
	coll := l.Collective
	if len(coll) == 0 {
		coll = []string{"all_reduce_perf", "-b", "8", "-e", "8G", "-f", "2", "-g", "1"}
	}
	doctor := []string{bin, "doctor", "--node-dir", nodesDir(l.Out)}
	n, ranks, g := strconv.Itoa(l.Nodes), strconv.Itoa(l.Nodes*l.PerNode), strconv.Itoa(l.PerNode)
	p := Plan{Outputs: []string{nodesDir(l.Out) + "/<host>/report.json", filepath.Join(l.Out, "nccl.<host>.<pid>.log"), reportDir(l.Out)}}
	p.Commands = append(p.Commands, []string{"mkdir", "-p", nodesDir(l.Out)})
	save := func(c []string) []string {
		return []string{"sh", "-c", ShellLine(c) + " > " + ShellLine([]string{sweepFile(l.Out)}) + " 2>&1"}
	}
	followUp := []string{bin, "doctor", "--nodes", nodesDir(l.Out), "--nccl-log", filepath.Join(l.Out, "nccl.*.log"), "--out", reportDir(l.Out)}
	switch l.Launcher {
	case "mpirun":
		place := func(per string) []string {
			switch {
			case l.Hostfile != "":
				return []string{"--hostfile", l.Hostfile}
			case len(hosts) > 0:
				var hs []string
				for _, h := range hosts {
					hs = append(hs, h+":"+per)
				}
				return []string{"--host", strings.Join(hs, ",")}
			}
			return nil
		}
		if l.Hostfile == "" && len(hosts) == 0 {
			return Plan{}, fmt.Errorf("%w: mpirun needs --hostfile (or --hosts)", ErrLaunch)
		}
		c := append(append([]string{"mpirun"}, place("1")...), "-np", n, "--map-by", "ppr:1:node")
		p.Commands = append(p.Commands, append(c, doctor...))
		c = append(append([]string{"mpirun"}, place(g)...), "-np", ranks, "--map-by", "ppr:"+g+":node")
		for _, e := range ncclLogEnv(l.Out) {
			c = append(c, "-x", e)
		}
		p.Commands = append(p.Commands, save(append(c, coll...)))
		followUp = append(followUp, "--nccl-tests", sweepFile(l.Out))
		p.Outputs = append(p.Outputs, sweepFile(l.Out))
	case "srun":
		c := []string{"srun", "-N", n}
		if len(hosts) > 0 {
			c = append(c, "--nodelist="+strings.Join(hosts, ","))
		}
		p.Commands = append(p.Commands, append(append(append([]string(nil), c...), "--ntasks-per-node=1"), doctor...))
		// srun's --export splits on commas, which NCCL_DEBUG_SUBSYS holds:
		// the settings go through env(1) on each rank instead.
		sweep := append(append(append([]string(nil), c...), "--ntasks-per-node="+g, "env"), ncclLogEnv(l.Out)...)
		p.Commands = append(p.Commands, save(append(sweep, coll...)))
		followUp = append(followUp, "--nccl-tests", sweepFile(l.Out))
		p.Outputs = append(p.Outputs, sweepFile(l.Out))
	case "torchrun":
		master := l.Master
		if master == "" && len(hosts) > 0 {
			master = hosts[0] + ":29500"
		}
		if master == "" {
			return Plan{}, fmt.Errorf("%w: torchrun needs --master host:port (or --hosts) for its rendezvous", ErrLaunch)
		}
		p.Commands = append(p.Commands, doctor)
		script := filepath.Join(l.Out, "bench_torch.py")
		p.Commands = append(p.Commands, []string{"sh", "-c", ShellLine(child.Request{Probe: child.TorchScript}.CommandFor(bin)) + " > " + ShellLine([]string{script})})
		p.Commands = append(p.Commands, []string{"mkdir", "-p", torchDir(l.Out)})
		c := []string{"env"}
		c = append(c, ncclLogEnv(l.Out)...)
		c = append(c, "torchrun", "--nnodes", n, "--nproc-per-node", g, "--rdzv-backend", "c10d", "--rdzv-endpoint", master,
			script, "--what", "nccl", "--out")
		// Each node's local rank 0 writes its run, named by the node.
		p.Commands = append(p.Commands, []string{"sh", "-c", ShellLine(c) + " " + ShellLine([]string{torchDir(l.Out)}) + `/"$(hostname)".json`})
		followUp = append(followUp, "--rank-runs", torchDir(l.Out))
		p.Outputs = append(p.Outputs, torchDir(l.Out)+"/<host>.json")
		p.Notes = append(p.Notes, fmt.Sprintf("torchrun starts processes on its own node only: run these commands on each of the %d nodes (the same lines on each), then the last one once", l.Nodes))
	default:
		return Plan{}, fmt.Errorf("%w: unknown launcher %q (mpirun, srun or torchrun)", ErrLaunch, l.Launcher)
	}
	p.FollowUp = followUp
	p.Notes = append(p.Notes,
		fmt.Sprintf("%d node(s) x %d GPU(s) = %d ranks; each node's doctor writes %s; the sweep leaves NCCL's log in %s",
			l.Nodes, l.PerNode, l.Nodes*l.PerNode, filepath.Join(nodesDir(l.Out), "<host>", "report.json"), filepath.Join(l.Out, "nccl.<host>.<pid>.log")),
		"then read everything into one report: "+ShellLine(followUp))
	return p, nil
}

// ShellLine prints a command as one shell line, quoting words that need it.
func ShellLine(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t'\"$*?;&|<>()%\\") {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			out[i] = a
		}
	}
	return strings.Join(out, " ")
}

// RankTimesFromReports reads each node's report (the doctor run on every
// node) into per-node times of the largest all_reduce its sweep measured,
// for finding a slow node.
func RankTimesFromReports(reports []*Report) []RankTime {
	var out []RankTime
	for i, r := range reports {
		us, ok := r.Metrics["all_reduce_large_us"]
		if !ok {
			continue
		}
		out = append(out, RankTime{Rank: i, Host: r.Host, What: "all_reduce " + sizeText(r.Metrics["all_reduce_large_bytes"]) + " on the node", TimeUS: us})
	}
	return out
}

// ReadHostfile reads the hosts of an mpirun hostfile ("host slots=8",
// "host:8", "# comments"), in order, once each.
func ReadHostfile(text string) []string {
	var hosts []string
	seen := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		h, _, _ := strings.Cut(f[0], ":")
		if !seen[h] {
			seen[h] = true
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// pairFile is where one pairwise run's output goes: OUT/pairs/a+b.txt.
func pairFile(out, a, b string) string { return filepath.Join(out, "pairs", a+"+"+b+".txt") }

// PairwisePlan adds one two-node sweep per pair of hosts, each writing
// nccl-tests' output to Out/pairs/<a>+<b>.txt: a slow node is slow in every
// pair it is part of. Only mpirun and srun can place ranks on two chosen
// hosts; the pairs run one after the other.
func (l Launch) PairwisePlan(hosts []string) (Plan, error) {
	if len(hosts) < 3 {
		return Plan{}, fmt.Errorf("%w: pairwise runs need at least 3 hosts (got %d): with two, the pair is the job", ErrLaunch, len(hosts))
	}
	if l.PerNode < 1 || l.Out == "" {
		return Plan{}, fmt.Errorf("%w: pairwise runs need --per-node and --out", ErrLaunch)
	}
	coll := []string{"all_reduce_perf", "-b", "1G", "-e", "1G", "-g", "1", "-n", "20"}
	g := strconv.Itoa(l.PerNode)
	var p Plan
	p.Commands = append(p.Commands, []string{"mkdir", "-p", filepath.Join(l.Out, "pairs")})
	for i, a := range hosts {
		for _, b := range hosts[i+1:] {
			var c []string
			switch l.Launcher {
			case "mpirun":
				c = append([]string{"mpirun", "--host", a + ":" + g + "," + b + ":" + g, "-np", strconv.Itoa(2 * l.PerNode)}, coll...)
			case "srun":
				c = append([]string{"srun", "-N", "2", "-w", a + "," + b, "--ntasks-per-node=" + g}, coll...)
			default:
				return Plan{}, fmt.Errorf("%w: pairwise runs need mpirun or srun, not %q", ErrLaunch, l.Launcher)
			}
			p.Commands = append(p.Commands, []string{"sh", "-c", ShellLine(c) + " > " + ShellLine([]string{pairFile(l.Out, a, b)}) + " 2>&1"})
		}
	}
	p.Notes = append(p.Notes, fmt.Sprintf("%d pairwise runs of all_reduce at 1 GiB, one after the other; then: commlab doctor --pairs %s", len(hosts)*(len(hosts)-1)/2, filepath.Join(l.Out, "pairs")))
	return p, nil
}

// NodeTimesFromPairs turns pairwise results (the time of one all_reduce
// between two nodes, by "a+b") into one time per node: the median of the
// fastest pair it is part of. A slow node makes all its pairs slow, so even
// its fastest is; a good node has at least one fast pair (with another good
// node), and a slow link slows only one pair.
func NodeTimesFromPairs(pairs map[string]float64, what string) []RankTime {
	byNode := map[string][]float64{}
	for k, us := range pairs {
		a, b, ok := strings.Cut(k, "+")
		if !ok {
			continue
		}
		byNode[a] = append(byNode[a], us)
		byNode[b] = append(byNode[b], us)
	}
	var out []RankTime
	for i, n := range slices.Sorted(maps.Keys(byNode)) {
		ts := byNode[n]
		sort.Float64s(ts)
		out = append(out, RankTime{Rank: i, Host: n, What: fmt.Sprintf("%s, fastest of its %d pairs", what, len(ts)), TimeUS: ts[0]})
	}
	return out
}
