package probes

import (
	"fmt"
	"html"
	"strings"
	"text/tabwriter"

	"github.com/commlab/commlab/units"
)

// NICPath is the network adapter NCCL would give one GPU's traffic to
// other nodes, and what the path between them allows.
type NICPath struct {
	GPU     string `json:"gpu"`                // "GPU0"
	NIC     string `json:"nic,omitempty"`      // "NIC0"; empty when the GPU reaches none
	NICName string `json:"nic_name,omitempty"` // "mlx5_1", the name NCCL_IB_HCA takes
	// Path is the matrix cell between the GPU and the NIC.
	Path Path `json:"path"`
	// CeilingGBps is the one-way bound of the slowest link known on the
	// way: the GPU's and the NIC's PCIe links and the NIC's port rate; 0
	// when none is known. The link between CPU sockets (SYS) is not known
	// to the matrix and is not counted.
	CeilingGBps float64 `json:"ceiling_gbps,omitempty" unit:"GB/s"`
	// GDR is true when NCCL would let the NIC read and write GPU memory
	// directly (GPUDirect RDMA): the path is no farther than
	// NCCL_NET_GDR_LEVEL, PXB by default. Otherwise data is staged through
	// host memory.
	GDR bool `json:"gdr"`
	// PXN names the GPU NCCL may relay this GPU's sends through (PCI x
	// NVLink): one that reaches the NIC at PXB or closer and this GPU over
	// NVLink, when this GPU's own path crosses the CPU or is slower.
	PXN string `json:"pxn,omitempty"`
	// Why says in one sentence how the NIC was chosen and what that means.
	Why string `json:"why"`
}

// NICPathTable is one NICPath per GPU; a notebook shows it as a table.
type NICPathTable []NICPath

// NICPaths models, for every GPU, the NIC NCCL would pick for its network
// traffic from the path matrix, the way NCCL 2.2x does it (read at v2.28.3:
// src/graph/search.cc ncclTopoSelectNets, which takes each GPU's NICs from
// topo.cc ncclTopoGetLocalNet and ncclTopoGetLocal; src/graph/paths.cc
// ncclTopoCheckGdr and the PXN rule in ncclTopoComputePaths):
//
//   - a GPU's candidates are the NICs closest to it; NCCL merges
//     nvidia-smi's NODE into PHB (both cross the CPU), and among equally
//     close NICs prefers the faster path;
//   - GPUs share equally good NICs by CUDA device index: GPU d takes
//     candidate d mod n, with the bits of d mirrored when n is a power of
//     two (topo.h mirrorBits), so GPUs that share NICs spread over distinct
//     ones where they can (an HGX node with a NIC beside each GPU gives
//     GPUi -> NICi); NCCL 2.30 first reduces d modulo the number of GPUs
//     closest to the NIC, which can differ where GPUs share few NICs;
//   - GPUDirect RDMA is used when the path is no farther than gdrLevel
//     (NCCL_NET_GDR_LEVEL); LevelUnknown means NCCL's default, PXB, so a
//     NIC at PHB, NODE or SYS is fed through host memory. NCCL_P2P_LEVEL
//     governs GPU-to-GPU copies, not the NIC;
//   - PXN (on unless NCCL_PXN_DISABLE=1): when the NIC's own GPU reaches it
//     at PXB or closer and this GPU over NVLink, and this GPU's path crosses
//     the CPU or is slower, NCCL may send through that GPU.
//
// It is a model of NCCL's choice from the matrix, not NCCL itself: NCCL
// ranks paths by the bandwidth of its own topology first (links nvidia-smi
// does not show, such as the CPU's and the socket interconnect's) and its
// graph search may still pick other NICs per channel. Where a NIC much
// slower than a farther one sits closer to a GPU, NCCL may take the farther.
// A GPU's device index is taken to be its CUDA index.
func (t *Topology) NICPaths(gdrLevel Level) NICPathTable {
	if gdrLevel <= LevelUnknown {
		gdrLevel = LevelPXB
	}
	m := nicModel{t: t}
	out := make(NICPathTable, 0, len(t.GPUs))
	for gi, g := range t.GPUs {
		np := NICPath{GPU: g.ID()}
		local := m.localNICs(gi)
		switch {
		case len(t.NICs) == 0:
			np.Why = whyNoNIC
		case len(local) == 0:
			np.Why = whyNoPath
		default:
			ni := m.nicFor(gi, 0)
			n := t.NICs[ni]
			np.NIC = n.ID()
			if n.Name != n.ID() {
				np.NICName = n.Name
			}
			np.Path = m.path(gi, ni)
			np.CeilingGBps = m.ceiling(gi, ni)
			np.GDR = ncclLevel(np.Path.Level) <= ncclLevel(gdrLevel)
			if p := m.pxnRelay(gi, ni); p >= 0 {
				np.PXN = t.GPUs[p].ID()
			}
			np.Why = m.why(np, len(local), gdrLevel)
		}
		out = append(out, np)
	}
	return out
}

// Why for a GPU without a NIC.
const (
	whyNoNIC  = "The topology lists no NIC, so the GPU has no network path to other nodes."
	whyNoPath = "The matrix gives no path from the GPU to any NIC."
)

// ncclLevel maps a matrix level to the path type NCCL ranks by: NCCL's
// topology has no NODE, a path across host bridges of one CPU is PHB.
func ncclLevel(l Level) Level {
	if l == LevelNODE {
		return LevelPHB
	}
	return l
}

// nicModel holds the lookups NICPaths repeats per GPU and NIC.
type nicModel struct{ t *Topology }

func (m nicModel) path(gi, ni int) Path {
	p, _ := m.t.PathBetween(m.t.GPUs[gi].ID(), m.t.NICs[ni].ID())
	return p
}

// ceiling is the slowest known link between GPU gi and NIC ni, one way.
func (m nicModel) ceiling(gi, ni int) float64 {
	n := m.t.NICs[ni]
	c := 0.0
	for _, v := range []float64{m.t.GPUs[gi].PCIe.GBps(), n.PCIe.GBps(), portGBps(n)} {
		if v > 0 && (c == 0 || v < c) {
			c = v
		}
	}
	return c
}

// portGBps is the fastest active port of a NIC in GB/s (ports whose state
// is unknown count as active); 0 when no rate is known.
func portGBps(n NIC) float64 {
	best := 0.0
	for _, p := range n.Ports {
		if p.State != "" && !strings.EqualFold(p.State, "ACTIVE") {
			continue
		}
		best = max(best, p.RateGbps/8)
	}
	return best
}

// rank orders candidates as ncclTopoGetLocal does, closer first, then
// faster; speed counts only when every candidate's is known, so a NIC
// whose links are unknown is neither preferred nor passed over.
type rank struct {
	level Level
	gbps  float64
}

func better(a, b rank) bool {
	return a.level < b.level || (a.level == b.level && a.gbps > b.gbps)
}

// best returns the indices whose rank is best among n candidates; rankOf
// returns ok false for candidates without a known path.
func best(n int, rankOf func(i int) (rank, bool)) []int {
	ranks := make([]rank, n)
	known := make([]bool, n)
	allSpeeds := true
	for i := range n {
		ranks[i], known[i] = rankOf(i)
		if known[i] && ranks[i].gbps <= 0 {
			allSpeeds = false
		}
	}
	var out []int
	var top rank
	for i := range n {
		if !known[i] {
			continue
		}
		r := ranks[i]
		if !allSpeeds {
			r.gbps = 0
		}
		switch {
		case len(out) == 0 || better(r, top):
			top, out = r, []int{i}
		case r == top:
			out = append(out, i)
		}
	}
	return out
}

// localNICs are the NICs (indices into t.NICs) best for GPU gi.
func (m nicModel) localNICs(gi int) []int {
	return best(len(m.t.NICs), func(ni int) (rank, bool) {
		p := m.path(gi, ni)
		return rank{ncclLevel(p.Level), m.ceiling(gi, ni)}, p.Level > LevelSelf
	})
}

// localGPUs are the GPUs (indices into t.GPUs) best for NIC ni.
func (m nicModel) localGPUs(ni int) []int {
	return best(len(m.t.GPUs), func(gi int) (rank, bool) {
		p := m.path(gi, ni)
		return rank{ncclLevel(p.Level), m.ceiling(gi, ni)}, p.Level > LevelSelf
	})
}

// nicFor is ncclTopoGetLocalNet: the NIC GPU gi uses on channel c, or -1.
func (m nicModel) nicFor(gi, c int) int {
	local := m.localNICs(gi)
	if len(local) == 0 {
		return -1
	}
	perGPU := 1
	if lg := len(m.localGPUs(local[0])); lg > 0 {
		perGPU = (len(local) + lg - 1) / lg
	}
	net := m.t.GPUs[gi].Index
	if isPow2(len(local)) {
		net = mirrorBits(net, len(local))
	}
	net += c % perGPU
	return local[net%len(local)]
}

// maxChannels bounds the channels searched for a NIC's own GPU, as
// NCCL's MAXCHANNELS does.
const maxChannels = 64

// localGPU is ncclTopoGetLocalGpu: the first of the NIC's closest GPUs
// that uses it on some channel, or -1.
func (m nicModel) localGPU(ni int) int {
	gpus := m.localGPUs(ni)
	for c := range maxChannels {
		for _, gi := range gpus {
			if m.nicFor(gi, c) == ni {
				return gi
			}
		}
	}
	return -1
}

// pxnRelay is the GPU NCCL may send GPU gi's traffic to NIC ni through,
// or -1 (paths.cc, "Update paths for NICs").
func (m nicModel) pxnRelay(gi, ni int) int {
	p := m.localGPU(ni)
	if p < 0 || p == gi {
		return -1
	}
	peer := m.path(p, ni)
	if peer.Level <= LevelSelf || peer.Level > LevelPXB {
		return -1
	}
	if nv, _ := m.t.PathBetween(m.t.GPUs[p].ID(), m.t.GPUs[gi].ID()); nv.Level != LevelNVLink {
		return -1
	}
	own, pc, oc := m.path(gi, ni), m.ceiling(p, ni), m.ceiling(gi, ni)
	if ncclLevel(own.Level) >= LevelPHB || (pc > 0 && oc > 0 && pc > oc) {
		return p
	}
	return -1
}

func isPow2(n int) bool { return n&(n-1) == 0 }

// mirrorBits reverses the low log2(pow2) bits of v (topo.h).
func mirrorBits(v, pow2 int) int {
	mirror := 0
	for b, mb := 1, pow2>>1; b < pow2; b, mb = b<<1, mb>>1 {
		if v&b != 0 {
			mirror |= mb
		}
	}
	return mirror
}

// levelPlace says where a NIC at a level sits from the GPU.
var levelPlace = map[Level]string{
	LevelPIX:  "on the GPU's PCIe switch (PIX)",
	LevelPXB:  "behind PCIe switches shared with the GPU, short of the CPU (PXB)",
	LevelPHB:  "through the CPU's PCIe host bridge (PHB)",
	LevelNODE: "across PCIe host bridges of the GPU's NUMA node (NODE)",
	LevelSYS:  "across the link between CPU sockets (SYS)",
}

func (m nicModel) why(np NICPath, tied int, gdrLevel Level) string {
	place, ok := levelPlace[np.Path.Level]
	if !ok {
		place = "at " + np.Path.String()
	}
	s := np.NIC
	if np.NICName != "" {
		s += " (" + np.NICName + ")"
	}
	s += " is " + place
	if tied > 1 {
		s += fmt.Sprintf(", one of %d equally close NICs NCCL spreads GPUs over by device index", tied)
	}
	if np.GDR {
		s += "; the NIC reads and writes GPU memory directly (GPUDirect RDMA)"
	} else {
		s += fmt.Sprintf("; farther than NCCL_NET_GDR_LEVEL=%s, so data is staged through host memory", gdrLevel)
	}
	if np.PXN != "" {
		peer, _ := m.t.PathBetween(np.PXN, np.NIC)
		s += fmt.Sprintf("; NCCL may send through %s over NVLink, which reaches %s at %s (PXN)", np.PXN, np.NIC, peer)
	}
	return s + "."
}

// hasNIC reports whether any GPU has a NIC.
func (tab NICPathTable) hasNIC() bool {
	for _, p := range tab {
		if p.NIC != "" {
			return true
		}
	}
	return false
}

// cells are a row's columns as String and HTML print them.
func (p NICPath) cells() []string {
	nic, path, ceiling, gdr, pxn := "-", "-", "?", "no", "-"
	if p.NIC != "" {
		nic, path = strings.TrimSpace(p.NIC+" "+p.NICName), p.Path.String()
	}
	if p.CeilingGBps > 0 {
		ceiling = units.Readable(p.CeilingGBps, "GB/s")
	}
	if p.GDR {
		gdr = "yes"
	}
	if p.PXN != "" {
		pxn = "via " + p.PXN
	}
	return []string{p.GPU, nic, path, ceiling, gdr, pxn}
}

var nicPathHeader = []string{"GPU", "NIC", "path", "ceiling", "GPUDirect RDMA", "PXN"}

// String prints one line per GPU: GPU, NIC, path, one-way ceiling,
// GPUDirect RDMA yes or no, and the PXN relay; or one line when no GPU
// has a NIC.
func (tab NICPathTable) String() string {
	if !tab.hasNIC() {
		switch {
		case len(tab) == 0:
			return "no GPU in the topology"
		case tab[0].Why == whyNoNIC:
			return "no NIC in the topology: no GPU has a network path to other nodes"
		}
		return "no GPU has a path to a NIC in the matrix"
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, strings.Join(nicPathHeader, "\t"))
	for _, p := range tab {
		fmt.Fprintln(w, strings.Join(p.cells(), "\t"))
	}
	w.Flush()
	return strings.TrimRight(b.String(), "\n")
}

// HTML is the table with a column saying why, for notebooks.
func (tab NICPathTable) HTML() string {
	var b strings.Builder
	b.WriteString("<table><thead><tr>")
	for _, h := range append(nicPathHeader, "why") {
		b.WriteString("<th>" + html.EscapeString(h) + "</th>")
	}
	b.WriteString("</tr></thead><tbody>")
	for _, p := range tab {
		b.WriteString("<tr>")
		for _, c := range append(p.cells(), p.Why) {
			b.WriteString("<td>" + html.EscapeString(c) + "</td>")
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	return b.String()
}
