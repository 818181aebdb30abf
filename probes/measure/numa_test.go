package measure

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/cuda"
)

func TestHostNUMAWithoutAFarNode(t *testing.T) {
	gpu := func(node int) probes.GPU { return probes.GPU{Index: 0, NUMANode: node} }
	for _, c := range []struct {
		name string
		topo *probes.Topology
		mode Mode
		why  string
	}{
		{"no GPU", &probes.Topology{}, ModeAuto, "no GPU 0 on this machine"},
		{"unknown node", &probes.Topology{GPUs: []probes.GPU{gpu(-1)}, NUMANodes: []probes.NUMANode{{ID: 0}, {ID: 1}}}, ModeAuto, "no NUMA node"},
		{"one node", &probes.Topology{GPUs: []probes.GPU{gpu(0)}, NUMANodes: []probes.NUMANode{{ID: 0}}}, ModeAuto, "one NUMA node"},
		{"recorded", &probes.Topology{GPUs: []probes.GPU{gpu(1)}, NUMANodes: []probes.NUMANode{{ID: 0}, {ID: 1}}}, ModeRecorded, "no run of this kind"},
	} {
		m, _, _, err := HostNUMA(context.Background(), c.mode, c.topo, 0, cuda.BandwidthConfig{}, "not-recorded-yet")
		if m != nil || !errors.Is(err, ErrNoFarNode) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: %v, %v; want ErrNoFarNode saying %q", c.name, m, err, c.why)
		}
	}
}

func TestNearAndFar(t *testing.T) {
	topo := &probes.Topology{GPUs: []probes.GPU{{NUMANode: 1}}, NUMANodes: []probes.NUMANode{{ID: 0}, {ID: 1}}}
	if near, far, why := nearAndFar(topo, 0); near != 1 || far != 0 || why != "" {
		t.Errorf("near %d far %d (%s), want 1 and 0", near, far, why)
	}
}
