package doctor

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/probes"
)

// CheckNCCL reads NCCL's own log: the version (nccl-version), the network
// it chose, IB or a Socket fallback (nccl-network), the transports its
// channels took (nccl-transports), NVLS and channel counts (nccl-channels)
// and its algorithm and protocol per size beside the NCCL-like tuner's
// pick for this topology (tuner-pick).
func CheckNCCL(lg *nccllog.Log, t *probes.Topology, env map[string]string, nodes int) []Verdict {
	if lg == nil {
		return []Verdict{skipped(LayerNCCL, "nccl-log", "no NCCL log: on a GPU machine the doctor runs NCCL with NCCL_DEBUG=INFO; elsewhere give --nccl-log", chapterNCCL)}
	}
	return []Verdict{
		checkNCCLVersion(lg),
		checkNCCLWarnings(lg),
		checkNetwork(lg, t, env, nodes),
		checkTransports(lg, t),
		checkChannels(lg, t, env),
		checkTunerPick(lg, t, env, nodes),
	}
}

func checkNCCLVersion(lg *nccllog.Log) Verdict {
	v := Verdict{Layer: LayerNCCL, Check: "nccl-version", Chapter: chapterNCCL}
	switch len(lg.Versions) {
	case 0:
		v.judge(Skipped, "the log has no NCCL version banner (NCCL_DEBUG=INFO prints it at init)", "")
	case 1:
		v.judge(OK, "NCCL "+lg.Versions[0], "")
	default:
		v.judge(Warn, "ranks run different NCCL builds: "+strings.Join(lg.Versions, "; "),
			"one NCCL for every rank (PyTorch bundles its own; LD_LIBRARY_PATH or NCCL from the system can override it on some nodes)")
	}
	v.Evidence = append(v.Evidence, fmt.Sprintf("%d ranks, %d processes on %d host(s)", lg.NRanks(), lg.Total("processes"), len(lg.Hosts())))
	return v
}

// warnCause is what a kind of NCCL WARN line means, and what to do.
type warnCause struct {
	words []string // any of these, case folded, in the WARN text
	fatal bool     // NCCL fails the call (the init or the collective)
	cause string
	next  string
}

// warnCauses read NCCL's WARN lines, in order: the first that matches
// names the cause. Shared memory: transport/shm.cc and misc/shmutils.cc
// ("Error while creating shared memory segment", "failed to extend
// /dev/shm/...", older include/shm.h "Call to posix_fallocate failed");
// CUDA IPC: transport/p2p ("failed to open CUDA IPC handle",
// cuMemImportFromShareableHandle); libibverbs missing (misc/ibvwrap).
var warnCauses = []warnCause{
	{[]string{"shared memory segment", "/dev/shm", "posix_fallocate", "shm_open"}, true,
		"shared memory (/dev/shm) is full or too small for NCCL's SHM buffers: a container gets 64 MiB by default",
		"give the container more shared memory (docker run --shm-size=1g or --ipc=host; on Kubernetes an emptyDir of medium Memory mounted at /dev/shm), and remove stale /dev/shm/nccl-* files; NCCL_SHM_DISABLE=1 only hides it"},
	{[]string{"cuda ipc handle", "cudaipcopenmemhandle", "cudaipcgetmemhandle", "importfromshareablehandle", "ipc handle"}, true,
		"CUDA IPC between the ranks' processes failed: GPUs without peer access to each other, processes in separate containers or PID namespaces, or a GPU hidden from one of them (CUDA_VISIBLE_DEVICES)",
		"check peer access between the GPUs (nvidia-smi topo -p2p r), run the ranks in one container or share the IPC and PID namespaces, and show every rank the GPUs it talks to"},
	{[]string{"libibverbs"}, false,
		"libibverbs could not be loaded: NCCL cannot use InfiniBand or RoCE and falls back to TCP sockets across nodes",
		"install rdma-core (libibverbs) in the image and give the container /dev/infiniband"},
	{[]string{"failed", "error", "unhandled", "abort", "timeout", "timed out", "invalid"}, true,
		"NCCL reported a failure",
		"read the WARN line and the INFO lines around it (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,NET): they name the call that failed"},
}

// checkNCCLWarnings reads NCCL's WARN lines: a form in NCCLFailures
// (ncclfailures.go: ibv_* calls, completion statuses, sockets, bootstrap)
// gives its meaning, usual causes and the check that tells them apart,
// the root failure before its echoes; shared memory full, a CUDA IPC
// handle that does not open, any other WARN that says failed or error is
// a failure with its cause; others warn.
func checkNCCLWarnings(lg *nccllog.Log) Verdict {
	v := Verdict{Layer: LayerNCCL, Check: "nccl-warnings", Chapter: chapterTroubleshoot}
	warnings := lg.Total("warnings") // the parser keeps the first ones and counts the rest
	if warnings == 0 {
		if lg.NCCLLines == 0 {
			v.judge(Skipped, "no NCCL line in the log", "")
		} else {
			v.judge(OK, "no NCCL WARN line", "")
		}
		return v
	}
	type hit struct {
		c           warnCause
		count       int
		first       nccllog.Message
		consequence bool     // follows an earlier failure (NCCLFailure.Consequence)
		sources     []string // the public answers its causes rest on
	}
	var hits []*hit
	byCause := map[string]*hit{}
	other := 0
	for _, w := range lg.Warnings {
		text := strings.ToLower(w.Text)
		matched := false
		if f, detail, ok := explainNCCLFailure(w.Text); ok {
			key := f.ID + "/" + detail
			h := byCause[key]
			if h == nil {
				h = &hit{c: warnCause{fatal: f.Fatal, cause: f.cause(detail), next: f.Check}, first: w, consequence: f.Consequence, sources: f.Sources}
				byCause[key] = h
				hits = append(hits, h)
			}
			h.count++
			continue
		}
		for _, c := range warnCauses {
			for _, word := range c.words {
				if strings.Contains(text, word) {
					h := byCause[c.cause]
					if h == nil {
						h = &hit{c: c, first: w}
						byCause[c.cause] = h
						hits = append(hits, h)
					}
					h.count++
					matched = true
					break
				}
			}
			if matched {
				break
			}
		}
		if !matched {
			other++
		}
	}
	for i, w := range lg.Warnings {
		if i == 8 {
			v.Evidence = append(v.Evidence, fmt.Sprintf("... %d more WARN lines", warnings-i))
			break
		}
		where := ""
		if w.Where != "" {
			where = " " + w.Where
		}
		v.Evidence = append(v.Evidence, fmt.Sprintf("%s%s NCCL WARN %s", w.Source, where, w.Text))
	}
	if len(hits) == 0 {
		return v.judge(Warn, fmt.Sprintf("%d NCCL WARN line(s): %s", warnings, lg.Warnings[0].Text),
			"read the WARN lines: NCCL prints them for what it could not do as configured")
	}
	// the first fatal form that is not only the echo of another failure
	rank := func(h *hit) int {
		r := 0
		if h.c.fatal {
			r += 2
		}
		if !h.consequence {
			r++
		}
		return r
	}
	first := hits[0]
	for _, h := range hits {
		if rank(h) > rank(first) {
			first = h
		}
	}
	if len(first.sources) > 0 {
		v.Evidence = append(v.Evidence, "causes from: "+strings.Join(first.sources, "; "))
	}
	if kept := len(lg.Warnings); kept < warnings {
		v.Evidence = append(v.Evidence, fmt.Sprintf("the log has %d WARN lines; the counts per cause are over the first %d, which the parser keeps", warnings, kept))
	}
	status := Warn
	if first.c.fatal {
		status = Fail
	}
	v.judge(status, fmt.Sprintf("%s (%d WARN line(s), first on %s: %s)", first.c.cause, first.count, first.first.Source, first.first.Text), first.c.next)
	for _, h := range hits {
		if h != first {
			v.Evidence = append(v.Evidence, fmt.Sprintf("also: %s (%d WARN line(s))", h.c.cause, h.count))
		}
	}
	if other > 0 {
		v.Evidence = append(v.Evidence, fmt.Sprintf("%d other WARN line(s)", other))
	}
	return v
}

func checkNetwork(lg *nccllog.Log, t *probes.Topology, env map[string]string, nodes int) Verdict {
	v := Verdict{Layer: LayerNCCL, Check: "nccl-network", Chapter: chapterNCCL}
	n := lg.Network
	if n == nil {
		return v.judge(Skipped, "the log says nothing about the network (NCCL_DEBUG_SUBSYS without INIT and NET, or an excerpt)", "")
	}
	v.Evidence = append(v.Evidence, n.Why)
	sockConns := 0
	for _, u := range n.NICs {
		if u.Net == "Socket" {
			sockConns += u.Connections
		}
	}
	socket := strings.Contains(n.Using, "Socket") || sockConns > 0
	masked := ""
	if val, ok := env["NCCL_IB_DISABLE"]; ok && val != "0" {
		masked = "NCCL_IB_DISABLE=" + val + " is set"
	}
	for _, e := range lg.Env {
		if e.Name == "NCCL_IB_DISABLE" && e.Value != "0" {
			masked = "the log says NCCL_IB_DISABLE set by environment to " + e.Value
		}
	}
	haveRDMA := t != nil && len(RDMANICs(t)) > 0
	switch {
	case socket && (sockConns > 0 || nodes > 1):
		summary := fmt.Sprintf("Socket fallback: %d inter-node connections go over TCP sockets (no RDMA, no GPUDirect)", sockConns)
		if sockConns == 0 {
			summary = fmt.Sprintf("Socket fallback: NCCL chose TCP sockets (Using network %s) for a job on %d nodes (no RDMA, no GPUDirect)", n.Using, nodes)
		}
		var next string
		switch {
		case masked != "":
			summary += "; " + masked
			next = "unset NCCL_IB_DISABLE: it masks whatever made IB fail instead of fixing it; then read the IB warnings in the log"
		case n.NoIBDevice || slices.Contains(n.Failed, "IB"):
			next = "NCCL found no usable IB device: check ibv_devinfo, the RDMA driver (mlx5_ib) and that the container sees /dev/infiniband"
		default:
			next = "read the NET/IB warnings in the log; check NCCL_SOCKET_IFNAME, NCCL_IB_HCA and the net plugin"
		}
		if haveRDMA {
			summary += "; this machine has RDMA NICs NCCL did not use"
		}
		v.judge(Fail, summary, next)
	case socket:
		summary := "one node: NCCL chose the Socket network but sent nothing over it (intra-node traffic uses P2P or SHM)"
		if masked != "" {
			summary += "; " + masked + " (masking, not fixing, once the job spans nodes)"
		}
		v.judge(OK, summary, "")
	case n.Using != "":
		v.judge(OK, "network "+n.Using+" (RDMA)", "")
	case len(n.NICs) > 0:
		conns := 0
		for _, u := range n.NICs {
			conns += u.Connections
		}
		v.judge(OK, fmt.Sprintf("network %s (RDMA): %d inter-node connections", n.NICs[0].Net, conns), "")
	default:
		v.judge(OK, "no network connection in the log", "")
	}
	for _, w := range n.Warnings {
		v.Evidence = append(v.Evidence, "WARN "+w)
	}
	return v
}

func checkTransports(lg *nccllog.Log, t *probes.Topology) Verdict {
	v := Verdict{Layer: LayerNCCL, Check: "nccl-transports", Chapter: chapterNCCL}
	counts := lg.TransportCounts()
	if len(counts) == 0 {
		return v.judge(Skipped, "no channel connections in the log (one rank, or NCCL_DEBUG_SUBSYS without INIT)", "")
	}
	kinds := slices.Sorted(maps.Keys(counts))
	shm := 0
	for _, k := range kinds {
		v.Evidence = append(v.Evidence, fmt.Sprintf("%s: %d connections", k, counts[k]))
		if strings.HasPrefix(k, "SHM") {
			shm += counts[k]
		}
	}
	nvlink := false
	if t != nil {
		for i, g := range t.GPUs {
			for _, h := range t.GPUs[i+1:] {
				if p, ok := t.PathBetween(g.ID(), h.ID()); ok && p.Level == probes.LevelNVLink {
					nvlink = true
				}
			}
		}
	}
	switch {
	case shm > 0 && nvlink:
		v.judge(Fail, fmt.Sprintf("%d connections use SHM (through host memory) between GPUs joined by NVLink: P2P is off", shm),
			"look for NCCL_P2P_DISABLE or NCCL_P2P_LEVEL in the environment, and the p2p, acs and iommu checks")
	case shm > 0:
		v.judge(Warn, fmt.Sprintf("%d connections use SHM (through host memory): the GPUs have no P2P path NCCL will use", shm),
			"check P2P capability (nvidia-smi topo -p2p r) and ACS; on PCIe across sockets SHM is expected")
	default:
		v.judge(OK, "transports: "+strings.Join(kinds, ", "), "")
	}
	return v
}

func checkChannels(lg *nccllog.Log, t *probes.Topology, env map[string]string) Verdict {
	v := Verdict{Layer: LayerNCCL, Check: "nccl-channels", Chapter: chapterNCCL}
	cc := lg.DistinctChannelCounts()
	if len(cc) == 0 {
		return v.judge(Skipped, "no channel counts in the log (NCCL 2.19+ prints them at init with INIT)", "")
	}
	nvls := 0
	for _, c := range cc {
		v.Evidence = append(v.Evidence, fmt.Sprintf("%d coll channels, %d collnet, %d nvls, %d p2p (%d per peer)", c.Coll, c.CollNet, c.NVLS, c.P2P, c.P2PPerPeer))
		nvls = max(nvls, c.NVLS)
	}
	c := cc[0]
	status, summary, next := OK, fmt.Sprintf("%d collective channels", c.Coll), ""
	switch {
	case nvls == 0 && env["NCCL_NVLS_ENABLE"] == "0":
		summary += "; NVLS off (NCCL_NVLS_ENABLE=0 is set)"
	case nvls == 0 && t != nil && hasNVSwitch(t) && len(t.GPUs) > 2:
		status = Warn
		summary += "; no NVLS channels on an NVSwitch node: NVLink SHARP is off"
		next = "NVLS needs the fabric manager and IMEX/multicast support; NCCL_NVLS_ENABLE=0 turns it off on purpose"
	case nvls == 0:
		summary += "; no NVLS channels"
	default:
		summary += fmt.Sprintf("; %d NVLS channels (NVLink SHARP)", nvls)
	}
	if c.Coll > 0 && c.Coll < 2 && lg.NRanks() > 1 {
		status = Warn
		summary += "; one channel only: one SM moves all the data"
		next = "look for NCCL_MAX_NCHANNELS / NCCL_MIN_NCHANNELS in the environment"
	}
	return v.judge(status, summary, next)
}

func hasNVSwitch(t *probes.Topology) bool {
	for _, g := range t.GPUs {
		for _, p := range g.NVLinks {
			if p.RemoteKind == "NVSwitch" {
				return true
			}
		}
	}
	return false
}

// TunerFromLog builds the NCCL-like tuner's table for the machine an
// NCCL_DEBUG=INFO log describes: ranks per node (its ranks over its hosts),
// nodes, NCCL's version family, NVLS on or off (its "N nvls channels"
// line), on nodes of preset. The in-node link type of the log's graph
// searches (NVL or NVB on NVLink, PIX ... SYS on PCIe) must be the
// preset's, or the table would model another machine: an error says so.
func TunerFromLog(lg *nccllog.Log, preset string) (costmodel.TunerTable, string, error) {
	if lg == nil || lg.NRanks() == 0 {
		return costmodel.TunerTable{}, "", fmt.Errorf("doctor: tuner from log: the log names no ranks (NCCL_DEBUG=INFO with INIT)")
	}
	node, err := costmodel.NodeByName(preset)
	if err != nil {
		return costmodel.TunerTable{}, "", fmt.Errorf("doctor: tuner from log: %w", err)
	}
	nodes := max(1, len(lg.Hosts()))
	perNode := max(1, lg.NRanks()/nodes)
	intra := ""
	for _, g := range lg.GraphSearches {
		if g.NChannels > 0 && g.TypeIntra != "" && g.TypeIntra != "LOC" {
			intra = g.TypeIntra
			break
		}
	}
	nvlinkLog := intra == "NVL" || intra == "NVB"
	nvlinkPreset := node.Intra.Kind != "pcie"
	if intra != "" && nvlinkLog != nvlinkPreset {
		return costmodel.TunerTable{}, "", fmt.Errorf("doctor: tuner from log: the log's graph searches go over %s inside the node, but preset %s is %s (%s)", intra, preset, node.Intra.Name, node.Intra.Kind)
	}
	family, nvlsOff := logFamily(lg), logNVLSOff(lg)
	table, err := costmodel.TuneNodes(node, min(perNode, node.GPUs), nodes, family, !nvlsOff)
	if err != nil {
		return costmodel.TunerTable{}, "", fmt.Errorf("doctor: tuner from log: %w", err)
	}
	desc := fmt.Sprintf("from the log: %d rank(s) on %d node(s), %s inside the node, NCCL %s-family constants, NVLS %s; nodes of %s cut to %d GPUs",
		lg.NRanks(), nodes, orDash(intra), family, onOff(!nvlsOff), preset, perNode)
	return table, desc, nil
}

// logFamily is the tuner's constant family of the log's NCCL version,
// costmodel.DefaultNCCL when the log names none.
func logFamily(lg *nccllog.Log) string {
	if lg == nil || len(lg.Versions) == 0 {
		return costmodel.DefaultNCCL
	}
	return familyOf(lg.Versions[0])
}

// logNVLSOff says whether the log's channel line reports 0 NVLS channels.
func logNVLSOff(lg *nccllog.Log) bool {
	if lg == nil {
		return false
	}
	for _, c := range lg.DistinctChannelCounts() {
		if c.NVLS == 0 {
			return true
		}
	}
	return false
}

// TunerFor returns the NCCL-like tuner's table for the machine the
// evidence describes: the node preset matching the GPU model (H200, H100,
// A100, else a PCIe box), cut to the ranks per node, NVLS off where the
// log or the environment says so. ok is false when the GPU model is not
// known.
func TunerFor(t *probes.Topology, lg *nccllog.Log, env map[string]string, nodes int) (costmodel.TunerTable, string, bool) {
	name := ""
	if t != nil && len(t.GPUs) > 0 {
		name = t.GPUs[0].Name
	}
	preset, _ := PresetForGPU(name)
	if preset == "" {
		return costmodel.TunerTable{}, "", false
	}
	node, err := costmodel.NodeByName(preset)
	if err != nil {
		return costmodel.TunerTable{}, "", false
	}
	perNode := len(t.GPUs)
	if lg != nil && lg.NRanks() > 0 && nodes > 0 {
		perNode = max(1, lg.NRanks()/nodes)
	}
	family := logFamily(lg)
	nvlsOff := env["NCCL_NVLS_ENABLE"] == "0" || logNVLSOff(lg)
	table, err := costmodel.TuneNodes(node, min(perNode, node.GPUs), nodes, family, !nvlsOff)
	if err != nil {
		return costmodel.TunerTable{}, "", false
	}
	desc := fmt.Sprintf("%d node(s) of %s cut to %d GPUs, NCCL %s-family constants, NVLS %s", nodes, preset, perNode, family, onOff(!nvlsOff))
	return table, desc, true
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// familyOf maps an NCCL version ("2.28.9+cuda13.0") to the tuner's
// constant family (costmodel.NCCLFamily), costmodel.DefaultNCCL when the
// version does not read.
func familyOf(version string) string {
	f, err := costmodel.NCCLFamily(version)
	if err != nil {
		return costmodel.DefaultNCCL
	}
	return f
}

// PickRow is NCCL's logged pick for one size beside the tuner's.
type PickRow struct {
	Bytes       int64   `json:"bytes" unit:"B"`
	NCCL        string  `json:"nccl"`  // "Ring/LL"
	Model       string  `json:"model"` // "Ring/LL"
	Agree       bool    `json:"agree"`
	ModelTimeUS float64 `json:"model_time_us" unit:"us"`
	// Bound is "latency" or "bandwidth": which term of the model's time
	// dominates at this size.
	Bound string `json:"bound"`
}

// ComparePicks sets NCCL's logged all_reduce picks beside the tuner's, one
// row per size.
func ComparePicks(lg *nccllog.Log, table costmodel.TunerTable) []PickRow {
	var rows []PickRow
	seen := map[int64]bool{}
	for _, c := range lg.ChoicesFor("AllReduce") {
		if seen[c.Bytes] || c.Bytes <= 0 {
			continue
		}
		seen[c.Bytes] = true
		pick, err := table.Pick(costmodel.AllReduce, float64(c.Bytes))
		if err != nil {
			continue
		}
		r := PickRow{Bytes: c.Bytes, NCCL: c.Algorithm + "/" + c.Protocol, Model: pick.Algorithm + "/" + pick.Protocol, ModelTimeUS: pick.TimeUs}
		r.Agree = strings.EqualFold(r.NCCL, r.Model)
		r.Bound = "bandwidth"
		if pick.LatencyUs >= pick.TimeUs-pick.LatencyUs {
			r.Bound = "latency"
		}
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Bytes < rows[j].Bytes })
	return rows
}

func checkTunerPick(lg *nccllog.Log, t *probes.Topology, env map[string]string, nodes int) Verdict {
	v := Verdict{Layer: LayerNCCL, Check: "tuner-pick", Chapter: chapterNCCL}
	if len(lg.ChoicesFor("AllReduce")) == 0 {
		return v.judge(Skipped, "the log has no per-operation picks (NCCL_DEBUG_SUBSYS=TUNING or COLL prints them)", "")
	}
	if lg.NRanks() < 2 {
		return v.judge(Skipped, "one rank: NCCL runs its collectives as device copies, no algorithm to compare", "")
	}
	table, desc, ok := TunerFor(t, lg, env, nodes)
	if !ok {
		return v.judge(Skipped, "the GPU model is not one the tuner has a preset for", "")
	}
	rows := ComparePicks(lg, table)
	agree := 0
	var differ []string
	for _, r := range rows {
		if r.Agree {
			agree++
		} else {
			differ = append(differ, fmt.Sprintf("%s: NCCL %s, model %s", sizeText(float64(r.Bytes)), r.NCCL, r.Model))
		}
	}
	v.Evidence = append([]string{"tuner: " + desc}, differ...)
	forced := []string{}
	for _, k := range []string{"NCCL_ALGO", "NCCL_PROTO"} {
		if val := env[k]; val != "" {
			forced = append(forced, k+"="+val)
		}
	}
	for _, e := range lg.Env {
		if (e.Name == "NCCL_ALGO" || e.Name == "NCCL_PROTO") && !slices.Contains(forced, e.Name+"="+e.Value) {
			forced = append(forced, e.Name+"="+e.Value)
		}
	}
	switch {
	case len(forced) > 0:
		v.judge(Warn, fmt.Sprintf("NCCL's choice is forced (%s): the model's free pick agrees at %d of %d sizes", strings.Join(forced, ", "), agree, len(rows)),
			"unset the forcing variables unless a measurement shows they help: they hold at every size")
	case len(rows) > 0 && agree == len(rows):
		v.judge(OK, fmt.Sprintf("NCCL's all_reduce picks agree with the tuner at all %d sizes", len(rows)), "")
	default:
		v.judge(OK, fmt.Sprintf("NCCL's all_reduce picks agree with the tuner at %d of %d sizes (the tuner approximates NCCL's graph search; a difference is a question, not a fault)", agree, len(rows)), "")
	}
	return v
}
