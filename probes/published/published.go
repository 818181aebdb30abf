package published

import (
	"embed"
	"fmt"
	"sort"
	"strings"
)

//go:embed recorded/published/*.txt
var published embed.FS

// Published is one machine as its owner published it: what the tools
// printed on it, pasted in one place, each output quoted as printed
// (recorded/SOURCES.md says which lines an excerpt keeps). A reader
// parses them as they would their own machine's.
type Published struct {
	Name string // "esc8000a-e12"
	// Machine says what the machine is, as far as its outputs and its
	// post tell; Source where it was published, at which version and date.
	Machine string
	Source  string
	// Tools lists the outputs there are, in the order a reader meets them.
	Tools []string
	files map[string]string
}

// The tools' names, as Output takes them.
const (
	ToolTopoMatrix   = "nvidia-smi topo -m"
	ToolLspciTree    = "lspci -tv"
	ToolLspciVerbose = "lspci -vvv"
	ToolNumactl      = "numactl --hardware"
	ToolP2P          = "p2pBandwidthLatencyTest"
	ToolBandwidth    = "bandwidthTest"
	ToolIbstat       = "ibstat"
	ToolIbvDevinfo   = "ibv_devinfo -v"
	ToolRdmaLink     = "rdma link"
	ToolPerftest     = "ib_write_bw"
)

var publishedMachines = []Published{
	{Name: "esc8000a-e12",
		Machine: "ASUS ESC8000A-E12: two AMD EPYC sockets (AMD Genoa by its PCI devices), 4x NVIDIA RTX 6000 Ada on PCIe Gen4 x16, each on its own root port, 2x dual-port ConnectX-7, driver 575.51.03",
		Source: "luigifcruz/stelline at commit 5abfb58163aa40435812fa5e5a06c6eff46a8917, docs/quickstart/validated-hardware/server/asus-esc8000a-e12.md " +
			"(nvidia-smi dated 2025-07-22)",
		Tools: []string{ToolTopoMatrix, ToolLspciTree, ToolLspciVerbose, ToolNumactl, ToolBandwidth, ToolP2P},
		files: map[string]string{
			ToolTopoMatrix: "esc8000a-e12-topo-m.txt", ToolLspciTree: "esc8000a-e12-lspci-tv.txt",
			ToolLspciVerbose: "esc8000a-e12-lspci-vvv-excerpt.txt", ToolNumactl: "esc8000a-e12-numactl.txt",
			ToolBandwidth: "esc8000a-e12-bandwidthtest.txt", ToolP2P: "esc8000a-e12-p2p.txt"}},
	{Name: "a100x8-distserve",
		Machine: "8x NVIDIA A100-SXM4-80GB on NVSwitch (NV12 between every pair), two GPUs per PCIe switch, two sockets",
		Source:  "LLMServe/DistServe issue #3, comment by interestingLSY, 2024-06-11 (https://github.com/LLMServe/DistServe/issues/3)",
		Tools:   []string{ToolP2P},
		files:   map[string]string{ToolP2P: "a100x8-distserve-p2p.txt"}},
	{Name: "p100-gearshifft",
		Machine: "two Tesla P100-PCIE-16GB, one per CPU socket of a two-socket Xeon (6 cores each; the model is not stated), the old SOC level between them",
		Source:  "mpicbg-scicomp/gearshifft pull request #82, comment by psteinb, 2017-03-27 (https://github.com/mpicbg-scicomp/gearshifft/pull/82)",
		Tools:   []string{ToolTopoMatrix, ToolBandwidth},
		files:   map[string]string{ToolTopoMatrix: "p100-gearshifft-topo-m.txt", ToolBandwidth: "p100-gearshifft-bandwidthtest.txt"}},
	{Name: "roce-gpu-operator",
		Machine: "two Kubernetes pods on two nodes, each with a ConnectX NIC (mlx5_0, RoCE, GID index 5, MTU 1024) and GPU 0, ib_write_bw between the GPUs' memories (--use_cuda=0 --use_cuda_dmabuf); the port's rate is not stated",
		Source:  "NVIDIA/cloud-native-docs at commit 354c6a4ab215a852aacf7ffdd9f1e13bb1a289af, gpu-operator/gpu-operator-rdma.rst (GPU Operator documentation, the GPUDirect RDMA example output)",
		Tools:   []string{ToolPerftest},
		files:   map[string]string{ToolPerftest: "roce-gpu-operator-perftest.txt"}},
	{Name: "perftest-pr21",
		Machine: "ib_write_bw --use_cuda on a Tesla V100-SXM2-32GB host, RoCE (GID index 3, MTU 1024): the server's report header with both queue pairs' addresses; it ends before the results",
		Source:  "linux-rdma/perftest pull request #21, comment by byronyi, 2018-11-23",
		Tools:   []string{ToolPerftest},
		files:   map[string]string{ToolPerftest: "perftest21-write-bw-use-cuda.txt"}},
	{Name: "mooncake1999",
		Machine: "ConnectX-7 (MT4129) RoCE ports at 200 Gb/s and a disabled ConnectX-6 Dx (MT4125); the paste ends after the disabled port's physical state",
		Source:  "kvcache-ai/Mooncake issue #1999",
		Tools:   []string{ToolIbstat},
		files:   map[string]string{ToolIbstat: "mooncake1999-ibstat.txt"}},
	{Name: "nccl769",
		Machine: "a bonded RoCE device (mlx5_bond_0): its port state and typed GIDs from ibv_devinfo -v",
		Source:  "NVIDIA/nccl issue #769",
		Tools:   []string{ToolIbvDevinfo},
		files:   map[string]string{ToolIbvDevinfo: "nccl769-devinfo-gids.txt"}},
	{Name: "3fs283",
		Machine: "two ConnectX-6 Dx ports with their Ethernet netdevs",
		Source:  "deepseek-ai/3FS pull request #283, comment by qiuxinyidian",
		Tools:   []string{ToolRdmaLink},
		files:   map[string]string{ToolRdmaLink: "3fs283-rdma-link.txt"}},
}

// PublishedMachines lists the published machines' names, sorted.
func PublishedMachines() []string {
	var names []string
	for _, m := range publishedMachines {
		names = append(names, m.Name)
	}
	sort.Strings(names)
	return names
}

// PublishedMachine returns a published machine by name.
func PublishedMachine(name string) (Published, error) {
	for _, m := range publishedMachines {
		if m.Name == name {
			return m, nil
		}
	}
	return Published{}, fmt.Errorf("published: no published machine %q (known: %s)", name, strings.Join(PublishedMachines(), ", "))
}

// Output returns what a tool printed on the machine, as published.
func (p Published) Output(tool string) (string, error) {
	f, ok := p.files[tool]
	if !ok {
		return "", fmt.Errorf("published: %s has no %s output (it has: %s)", p.Name, tool, strings.Join(p.Tools, ", "))
	}
	b, err := published.ReadFile("recorded/published/" + f)
	if err != nil {
		return "", fmt.Errorf("published: embedded %s: %w", f, err)
	}
	return string(b), nil
}
