package doctor

import (
	"strings"
	"time"

	"github.com/commlab/commlab/parse/dmesg"
	"github.com/commlab/commlab/parse/flightrec"
	"github.com/commlab/commlab/parse/hanglab"
	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/probes"
)

// Evidence is everything the checks read, any subset of it: a check whose
// evidence is absent says so (Skipped) instead of guessing. On a GPU
// machine the doctor command fills it by probing; elsewhere from the files
// a user brings (--topo, --nccl-log, --fr, --env, ...).
type Evidence struct {
	Host string    `json:"host,omitempty"`
	Date time.Time `json:"date"`
	// Topology is the machine's GPUs, NICs and paths (NVML and sysfs, or a
	// parsed nvidia-smi topo -m).
	Topology *probes.Topology `json:"topology,omitempty"`
	// PCI holds ACS, IOMMU and bridge chains (sysfs as root, or lspci -vvv).
	PCI *probes.PCIFacts `json:"pci,omitempty"`
	// AllowedCPUs is the cpulist this process may run on
	// (/proc/self/status Cpus_allowed_list), when probed live.
	AllowedCPUs string `json:"allowed_cpus,omitempty"`
	// Bandwidth is a copy-bandwidth run (commlab probe bandwidth):
	// host-device, device-local and peer-to-peer samples.
	Bandwidth *probes.Run `json:"-"`
	// NCCL is a collective sweep (commlab probe nccl, or nccl-tests read
	// into a Run) whose "nccl-debug" log, when present, also fills
	// NCCLLog.
	NCCL *probes.Run `json:"-"`
	// NCCLTests is an nccl-tests run read into a Run (commlab probe
	// nccl-tests; its raw output in Logs["output"]), for the curve doctor.
	NCCLTests *probes.Run `json:"-"`
	// NCCLLog is a parsed NCCL_DEBUG=INFO log.
	NCCLLog     *nccllog.Log `json:"-"`
	NCCLLogName string       `json:"nccl_log,omitempty"`
	// FlightRecorder are the ranks' Flight Recorder dumps of one job.
	FlightRecorder []*flightrec.Dump `json:"-"`
	// Stacks are the ranks' stack dumps (py-spy or faulthandler), read
	// beside the dumps: where each process was, and which were gone.
	Stacks []hanglab.Stack `json:"-"`
	// Kernel are the kernel logs (dmesg) of the job's nodes: Xid events,
	// GPUs fallen off the bus, NIC ports down.
	Kernel []KernelLog `json:"-"`
	// RDMA are the nodes' RDMA tool outputs (show_gids, ibv_devinfo -v,
	// ibstat, rdma link): GIDs, port states and MTUs.
	RDMA []RDMAOutput `json:"-"`
	// Counters are the nodes' NIC port counters (perfquery, sysfs,
	// ethtool -S), one reading or two of each port.
	Counters []CounterInput `json:"-"`
	// NoRDMA says why the live probe found no RDMA device on this machine
	// ("no sys/class/infiniband ..."); the RDMA checks skip with it.
	NoRDMA string `json:"no_rdma,omitempty"`
	// Interfaces are this node's network interfaces with their addresses
	// (probed live), for the follow-up's socket-subnets check.
	Interfaces []NetInterface `json:"interfaces,omitempty"`
	// TorchSettings are the settings PyTorch's ProcessGroupNCCL printed
	// when the job started (effective values, defaults included:
	// "TORCH_NCCL_DUMP_ON_TIMEOUT": "1"), TorchSettingsSource where.
	TorchSettings       map[string]string `json:"torch_settings,omitempty"`
	TorchSettingsSource string            `json:"torch_settings_source,omitempty"`
	// Launcher is what started the job's processes as the evidence shows
	// it ("torchrun", "python"), LauncherWhy the evidence; "" when unknown.
	Launcher    string `json:"launcher,omitempty"`
	LauncherWhy string `json:"launcher_why,omitempty"`
	// Problems are the inputs that could not be read, whole or in part,
	// each with the reason (the "evidence" check reports them).
	Problems []Input `json:"problems,omitempty"`
	// Env is the job's environment (NCCL_*, TORCH_*, ...) and EnvSource
	// where it came from ("this process", a file name).
	Env       map[string]string `json:"env,omitempty"`
	EnvSource string            `json:"env_source,omitempty"`
	// TorchVersion is the PyTorch the environment is linted for
	// ("2.11.0"); "" lints for the newest rules.
	TorchVersion string `json:"torch_version,omitempty"`
	// RankTimes are per-rank (or per-node) times of the same work, for
	// finding a slow rank.
	RankTimes []RankTime `json:"rank_times,omitempty"`
	// NodeReports are the doctor's reports of each node of a run across
	// nodes (--nodes DIR).
	NodeReports []*Report `json:"-"`
	// Collective are the curve doctor's verdicts on the busbw curve
	// (plateau against ceiling, small-message floor, dips): the collective
	// layer's checks, built in curve*.go and joined here as they come.
	Collective []Verdict `json:"-"`
	// Framework are verdicts on overlap from a torch trace
	// (parse/torchtrace), joined as they come; the environment
	// lint is the doctor's own.
	Framework []Verdict `json:"-"`
	// Inputs names each piece of evidence and where it came from, for the
	// report's provenance.
	Inputs []Input `json:"inputs,omitempty"`
}

// Input is one piece of evidence and its origin.
type Input struct {
	What   string `json:"what"`   // "topology", "nccl log", ...
	Source string `json:"source"` // file name or probe command
	Note   string `json:"note,omitempty"`
}

// KernelLog is one node's kernel log, read by parse/dmesg.
type KernelLog struct {
	Name string     `json:"name"`
	Host string     `json:"host,omitempty"`
	Log  *dmesg.Log `json:"-"`
}

// RankTime is one rank's time for a piece of work all ranks do alike (a
// training step, a per-node benchmark at one size).
type RankTime struct {
	Rank   int     `json:"rank"`
	Host   string  `json:"host,omitempty"`
	What   string  `json:"what"`
	TimeUS float64 `json:"time_us" unit:"us"`
}

// ncclVersion is the NCCL the evidence shows ("2.28.9"): the log's banner,
// else the sweep's provenance.
func (e *Evidence) ncclVersion() string {
	if e.NCCLLog != nil && len(e.NCCLLog.Versions) > 0 {
		return strings.TrimSpace(strings.SplitN(e.NCCLLog.Versions[0], "+", 2)[0])
	}
	if e.NCCL != nil {
		return e.NCCL.NCCL
	}
	return ""
}

// AddInput records where a piece of evidence came from.
func (e *Evidence) AddInput(what, source, note string) {
	e.Inputs = append(e.Inputs, Input{What: what, Source: source, Note: note})
}

// AddProblem records an input, or a part of one, that could not be read,
// and why.
func (e *Evidence) AddProblem(what, source, why string) {
	e.Problems = append(e.Problems, Input{What: what, Source: source, Note: why})
}

// Nodes is how many nodes the job spans as far as the evidence tells:
// the NCCL log's nNodes or distinct hosts, the rank times' hosts; 1 when
// nothing says more.
func (e *Evidence) Nodes() int {
	n := 1
	if l := e.NCCLLog; l != nil {
		for _, r := range l.Ranks {
			n = max(n, r.NNodes)
		}
		n = max(n, len(l.Hosts()))
	}
	hosts := map[string]bool{}
	for _, r := range e.RankTimes {
		if r.Host != "" {
			hosts[r.Host] = true
		}
	}
	return max(n, len(hosts))
}

// RankTimesFromRuns takes one run per rank or node (commlab probe nccl on
// each, or each node's nccl-tests) and returns each one's median time of
// op at the largest size all runs measured.
func RankTimesFromRuns(runs []*probes.Run, op string) []RankTime {
	common := map[int64]int{}
	for _, r := range runs {
		seen := map[int64]bool{}
		for _, s := range r.Samples {
			if s.Op == op && !seen[s.Bytes] {
				seen[s.Bytes] = true
				common[s.Bytes]++
			}
		}
	}
	var size int64
	for b, n := range common {
		if n == len(runs) && b > size {
			size = b
		}
	}
	if size == 0 {
		return nil
	}
	var out []RankTime
	for i, r := range runs {
		for _, s := range r.Samples {
			if s.Op == op && s.Bytes == size && !s.InPlace {
				out = append(out, RankTime{Rank: i, Host: r.Host, What: op + " " + sizeText(float64(size)), TimeUS: s.MedianUS})
				break
			}
		}
	}
	return out
}

// EnvFromText reads NAME=VALUE lines (an env dump, a .env file, `export`
// lines); comments and other lines are skipped.
func EnvFromText(text string) map[string]string {
	env := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "export "))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			continue
		}
		env[k] = strings.Trim(v, `"'`)
	}
	return env
}

// CommEnv keeps the variables the lint reads from a whole environment:
// NCCL_*, TORCH_*, CUDA_*, NVSHMEM_* and PYTORCH_*.
func CommEnv(env map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		for _, p := range []string{"NCCL_", "TORCH_", "CUDA_", "NVSHMEM_", "PYTORCH_"} {
			if strings.HasPrefix(k, p) {
				out[k] = v
				break
			}
		}
	}
	return out
}
