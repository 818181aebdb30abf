package measure

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/cuda"
	"github.com/commlab/commlab/probes/recorded"
)

// ErrNoFarNode says a near-and-far host memory run cannot happen here: no
// GPU, the GPU's NUMA node unknown (virtual machines often report none),
// or a single NUMA node.
var ErrNoFarNode = errors.New("measure: no near and far NUMA node to compare")

// HostNUMA times pinned copies between GPU device and host memory bound to
// the GPU's own NUMA node (near) and to another node (far), through
// Bandwidth with cuda.BandwidthConfig.HostNodes set to the two. topo is
// this machine's topology (probes/nvml), which names the nodes. cfg gives
// the sizes, ops and repetitions; its Devices and HostNodes are set here.
//
// recordedName names the recording to show when a live run cannot happen;
// until such a run is recorded it may name one not yet stored, and then
// the error (wrapping ErrNoFarNode where the machine is the reason) says
// why nothing was measured, so the caller can show published numbers.
func HostNUMA(ctx context.Context, mode Mode, topo *probes.Topology, device int, cfg cuda.BandwidthConfig, recordedName string) (m *Measurement, near, far int, err error) {
	if !slices.Contains(recorded.List(), recordedName) {
		recordedName = ""
	}
	near, far, why := nearAndFar(topo, device)
	if why != "" || mode == ModeRecorded {
		if recordedName != "" {
			m, err := Recorded(recordedName)
			return m, -1, -1, err
		}
		if why == "" {
			why = "mode recorded, and no run of this kind is recorded"
		}
		return nil, -1, -1, fmt.Errorf("%w: %s", ErrNoFarNode, why)
	}
	cfg.Devices, cfg.HostNodes = []int{device}, []int{near, far}
	m, err = Bandwidth(ctx, mode, cfg, recordedName)
	return m, near, far, err
}

// nearAndFar picks the GPU's NUMA node and the first other node, or says
// why it cannot.
func nearAndFar(topo *probes.Topology, device int) (near, far int, why string) {
	if topo == nil || device < 0 || device >= len(topo.GPUs) {
		return -1, -1, fmt.Sprintf("there is no GPU %d on this machine", device)
	}
	near = topo.GPUs[device].NUMANode
	if near < 0 {
		return -1, -1, fmt.Sprintf("GPU %d reports no NUMA node", device)
	}
	for _, n := range topo.NUMANodes {
		if n.ID != near {
			return near, n.ID, ""
		}
	}
	return -1, -1, fmt.Sprintf("one NUMA node here (GPU %d's, %d)", device, near)
}
