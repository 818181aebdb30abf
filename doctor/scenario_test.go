package doctor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/parse/flightrec"
	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/parse/nvidiasmi"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/published"
)

// The scenarios' evidence comes from real recordings wherever one exists:
// the HGX matrix behind probes/published, NCCL logs from public issues
// (parse/nccllog/testdata, SOURCES.md there) and Flight Recorder
// dumps (parse/flightrec/testdata). What no recording shows (ACS
// bits, a slow node's times) is set by hand and says so.
const (
	logDir = "../parse/nccllog/testdata/"
	frDir  = "../parse/flightrec/testdata/"
)

func loadLog(t *testing.T, name string) *nccllog.Log {
	t.Helper()
	data, err := os.ReadFile(logDir + name)
	if err != nil {
		t.Fatal(err)
	}
	lg, err := nccllog.ParseBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	return lg
}

func loadDumps(t *testing.T, dir string) []*flightrec.Dump {
	t.Helper()
	paths, _ := filepath.Glob(frDir + dir + "/*")
	sort.Strings(paths)
	dumps, err := flightrec.LoadDumps(paths)
	if err != nil {
		t.Fatal(err)
	}
	return dumps
}

// hgxBus are the NICs' PCI addresses in the scenarios: NIC i under GPU i's
// PCIe switch, as on an HGX board (the fake's GPU addresses are fixed).
var hgxNICBus = []string{"0000:19:00.0", "0000:2b:00.0", "0000:3b:00.0", "0000:5e:00.0", "0000:9b:00.0", "0000:ac:00.0", "0000:bb:00.0", "0000:dc:00.0"}

// hgxPCI returns the bridge chains of an HGX board (root port, switch
// upstream port, one downstream port per device) and ACS as a healthy
// board has it: capable, nothing enabled on the switch ports.
func hgxPCI(t *probes.Topology, acsOn bool) *probes.PCIFacts {
	f := &probes.PCIFacts{Source: "scenario (hand-set ACS bits)", ACSRead: true, Chains: map[string][]string{}}
	for i, g := range t.GPUs {
		bus := g.BusID[5:7] // "18"
		rp, usp := "0000:"+bus[:1]+"0:01.0", "0000:"+bus+"0:00.0"
		dspG, dspN := "0000:"+bus+"1:00.0", "0000:"+bus+"1:01.0"
		f.Chains[busKey(g.BusID)] = []string{rp, usp, dspG}
		f.Chains[hgxNICBus[i]] = []string{rp, usp, dspN}
		ctl := probes.ACSFlags(0)
		if acsOn && i == 0 {
			ctl = probes.ACSSrcValid | probes.ACSReqRedir | probes.ACSCmpltRedir | probes.ACSUpstreamFwd
		}
		for _, b := range []string{dspG, dspN} {
			f.ACS = append(f.ACS, probes.ACS{Address: b, Bridge: true, Cap: 0x7f, Ctl: ctl})
		}
	}
	f.IOMMU = probes.IOMMUFromGroups(64, map[string]int{"identity": 64}, []string{"intel_iommu=on", "iommu=pt"})
	return f
}

// healthy is two HGX H200 nodes as a user brings them to the doctor: the
// node's topology, its PCI facts, the NCCL log of a healthy two-node run
// over IB with GPUDirect RDMA (nccl-tests#252), a clean environment, the
// Flight Recorder dumps of a job that finished, even per-node times.
func healthy(t *testing.T) *Evidence {
	t.Helper()
	topo, err := published.HGXH200().Topology(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := range topo.NICs {
		topo.NICs[i].BusID = hgxNICBus[i]
		topo.NICs[i].Name = "mlx5_" + string(rune('0'+i))
	}
	ev := &Evidence{
		Host:     "fake-hgx-h200",
		Date:     time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC),
		Topology: topo,
		PCI:      hgxPCI(topo, false),
		NCCLLog:  loadLog(t, "ncclt252_2node_ibext_transports_excerpt.log"),
		Env: map[string]string{"NCCL_DEBUG": "INFO", "TORCH_FR_BUFFER_SIZE": "2000", "TORCH_NCCL_DUMP_ON_TIMEOUT": "1",
			"TORCH_FR_DUMP_TEMP_FILE": "/shared/fr/rank_"},
		EnvSource:      "scenario",
		FlightRecorder: loadDumps(t, "healthy_json"),
		RankTimes: []RankTime{
			{Rank: 0, Host: "node-a", What: "all_reduce 1 GiB", TimeUS: 5010},
			{Rank: 1, Host: "node-b", What: "all_reduce 1 GiB", TimeUS: 4980},
		},
	}
	ev.AddInput("topology", "probes/published hgx-h200", "")
	ev.AddInput("nccl log", "ncclt252_2node_ibext_transports_excerpt.log", "nccl-tests#252")
	return ev
}

type scenario struct {
	name  string
	build func(t *testing.T) *Evidence
	// fail are the checks that must fail; warn those that may warn as a
	// consequence. Every other check must be ok or skipped.
	fail, warn []string
}

var scenarios = []scenario{
	{name: "healthy", build: healthy},
	{name: "nics-one-socket", build: func(t *testing.T) *Evidence {
		ev := healthy(t)
		// The board's NICs all sit on socket 0: GPUs 4-7 reach one only
		// across the link between sockets.
		ev.Topology.NICs = ev.Topology.NICs[:4]
		return ev
	}, fail: []string{"nic-affinity"}, warn: []string{"gdr"}},
	{name: "gdr-off", build: func(t *testing.T) *Evidence {
		ev := healthy(t)
		ev.Topology.GPUDirect = probes.GPUDirect{PeerMem: false, NvidiaVersion: "535.104.05",
			DMABuf: "no: kernel 5.4.0-150-generic is older than 5.12"}
		ev.NCCLLog = loadLog(t, "nccl1537_roce_gdr_disabled_excerpt.log") // NCCL: GPU Direct RDMA Disabled for HCA 0 'mlx5_0'
		return ev
	}, fail: []string{"gpudirect-module", "gdr"}},
	{name: "acs-on", build: func(t *testing.T) *Evidence {
		ev := healthy(t)
		ev.PCI = hgxPCI(ev.Topology, true)
		return ev
	}, fail: []string{"acs", "gdr"}},
	{name: "socket-fallback", build: func(t *testing.T) *Evidence {
		ev := healthy(t)
		ev.NCCLLog = loadLog(t, "nccl398_2node_p2p_ipc_socket_excerpt.log") // two nodes over NET/Socket
		ev.Env["NCCL_IB_DISABLE"] = "1"
		return ev
	}, fail: []string{"nccl-network"}, warn: []string{"env-masking", "gdr"}},
	{name: "slow-rank", build: func(t *testing.T) *Evidence {
		ev := healthy(t)
		ev.RankTimes = []RankTime{
			{Rank: 0, Host: "node-a", What: "all_reduce 1 GiB", TimeUS: 5010},
			{Rank: 1, Host: "node-b", What: "all_reduce 1 GiB", TimeUS: 4980},
			{Rank: 2, Host: "node-c", What: "all_reduce 1 GiB", TimeUS: 8120}, // hand-set: a node 1.6x slower
			{Rank: 3, Host: "node-d", What: "all_reduce 1 GiB", TimeUS: 5040},
		}
		return ev
	}, fail: []string{"slow-rank"}},
	{name: "hang", build: func(t *testing.T) *Evidence {
		ev := healthy(t)
		ev.FlightRecorder = loadDumps(t, "missing_rank") // rank 3 never started all_reduce #3001
		return ev
	}, fail: []string{"hang"}},
}

func TestScenarios(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			r := Diagnose(sc.build(t))
			want := map[string]Status{}
			for _, c := range sc.fail {
				want[c] = Fail
			}
			for _, v := range r.Verdicts {
				w, listed := want[v.Check]
				switch {
				case listed && v.Status != w:
					t.Errorf("%s: %v, want %v (%s)", v.Check, v.Status, w, v.Summary)
				case !listed && v.Status == Fail:
					t.Errorf("%s fails too: %s", v.Check, v.Summary)
				case !listed && v.Status == Warn && !slices.Contains(sc.warn, v.Check):
					t.Errorf("%s warns: %s", v.Check, v.Summary)
				}
				delete(want, v.Check)
			}
			for c := range want {
				t.Errorf("no %s verdict", c)
			}
			wantCode := 0
			switch {
			case len(sc.fail) > 0:
				wantCode = 2
			case r.Counts["warn"] > 0:
				wantCode = 1
			}
			if r.ExitCode != wantCode {
				t.Errorf("exit code %d, want %d", r.ExitCode, wantCode)
			}
			var b bytes.Buffer
			if err := r.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "scenario-"+sc.name+".json"), b.Bytes())
		})
	}
}

func init() {
	scenarios = append(scenarios, scenario{name: "h200x1-live", build: func(t *testing.T) *Evidence {
		ev, err := Recorded("h200x1")
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}})
	scenarios = append(scenarios, scenario{name: "h200x2-recorded", build: func(t *testing.T) *Evidence {
		ev, err := Recorded("h200x2")
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}})
}

// h200x1MaskedEnv is the lab's one-H200 machine as the capture recorded
// it (probes/testdata/h200/doctor): its nvidia-smi topo -m, and the NCCL
// 2.28.9 log of a one-rank PyTorch 2.11 job started with a deprecated name
// and two masking settings, in the environment the capture script set.
func h200x1MaskedEnv(t *testing.T) *Evidence {
	t.Helper()
	const dir = "../probes/testdata/h200/doctor/"
	topoM, err := os.ReadFile(dir + "nvidia-smi-topo-m.txt")
	if err != nil {
		t.Fatal(err)
	}
	m, err := nvidiasmi.ParseTopoMatrixString(string(topoM))
	if m == nil {
		t.Fatal(err)
	}
	logText, err := os.ReadFile(dir + "torch-env-lint.txt")
	if err != nil {
		t.Fatal(err)
	}
	lg, err := nccllog.ParseBytes(logText)
	if err != nil {
		t.Fatal(err)
	}
	envText, err := os.ReadFile(dir + "env.txt")
	if err != nil {
		t.Fatal(err)
	}
	env := EnvFromText(string(envText))
	// What doctor_capture.sh set for the torch-env-lint step.
	for k, v := range map[string]string{"TORCH_NCCL_TRACE_BUFFER_SIZE": "2000", "TORCH_NCCL_BLOCKING_WAIT": "1", "NCCL_ASYNC_ERROR_HANDLING": "1",
		"TORCH_NCCL_ENABLE_MONITORING": "1", "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC": "600", "NCCL_P2P_DISABLE": "1", "NCCL_IB_DISABLE": "1",
		"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "INIT,ENV,NET"} {
		env[k] = v
	}
	return &Evidence{Host: "vm", Date: time.Date(2026, 12, 1, 21, 43, 16, 0, time.UTC), Topology: m.Topology(), NCCLLog: lg,
		Env: env, EnvSource: "env.txt and doctor_capture.sh's torch-env-lint step", TorchVersion: "2.11.0"}
}

func init() {
	scenarios = append(scenarios, scenario{name: "h200x1-masked-env", build: h200x1MaskedEnv, warn: []string{"env-renamed", "env-masking"}})
}
