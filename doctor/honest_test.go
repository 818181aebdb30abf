package doctor

import (
	"strings"
	"testing"

	"github.com/commlab/commlab/probes"
)

// TestGDRModuleNeverOKForAGuess: DMA-BUF "likely" (read from the kernel
// and driver, as the lab's H200 prints it) is no ok: without an RDMA
// device the check does not apply, with one it cannot tell.
func TestGDRModuleNeverOKForAGuess(t *testing.T) {
	likely := probes.GPUDirect{DMABuf: "likely: kernel 6.18.44-fc-v973-gpu and NVIDIA open kernel modules"}
	nic := []probes.NIC{{Name: "mlx5_0", Ports: []probes.RDMAPort{{Port: 1, State: "ACTIVE"}}}}
	cases := []struct {
		name  string
		gd    probes.GPUDirect
		nics  []probes.NIC
		nodes int
		want  Status
		says  string
	}{
		{"no RDMA device, one node", likely, nil, 1, Skipped, "no RDMA device: GPUDirect RDMA does not apply"},
		{"RDMA device, DMA-BUF a guess", likely, nic, 2, Skipped, "cannot tell:"},
		{"peermem loaded", probes.GPUDirect{PeerMem: true}, nic, 2, OK, "nvidia_peermem loaded"},
		{"DMA-BUF checked", probes.GPUDirect{DMABuf: "yes: /sys/kernel/dmabuf"}, nic, 2, OK, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := checkGDRModule(&probes.Topology{GPUDirect: c.gd, NICs: c.nics}, nil, c.nodes)
			if v.Status != c.want || !strings.Contains(v.Summary, c.says) {
				t.Errorf("%v %q; want %v saying %q", v.Status, v.Summary, c.want, c.says)
			}
		})
	}
}
