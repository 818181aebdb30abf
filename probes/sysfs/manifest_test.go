package sysfs

import (
	"bufio"
	"context"
	"github.com/commlab/commlab/probes"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// loadManifest reads a recorded sysfs manifest: one "path<TAB>content" line
// per file, newlines inside content written as the record separator 0x1e.
// Recorded trees are kept so, rather than as directories, because sysfs
// names hold colons, which Go module zips refuse.
func loadManifest(t *testing.T, path string) fstest.MapFS {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("no recorded manifest: %v", err)
	}
	defer f.Close()
	m := fstest.MapFS{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p, content, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		m[p] = &fstest.MapFile{Data: []byte(strings.ReplaceAll(content, "\x1e", "\n") + "\n")}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// The tree recorded on the H200 machine this project measures on.
func TestSysfsRecordedH200(t *testing.T) {
	m := loadManifest(t, "testdata/h200-sysfs-manifest.txt")
	topo, err := New(m).Topology(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.GPUs) != 1 {
		t.Fatalf("GPUs %+v, want the one H200", topo.GPUs)
	}
	g := topo.GPUs[0]
	if g.BusID != "0000:00:06.0" || g.PCIe.String() != "Gen5 x16" || g.NUMANode != -1 {
		t.Errorf("H200 from sysfs %+v", g)
	}
	if !strings.HasPrefix(topo.GPUDirect.DMABuf, "likely") || topo.GPUDirect.PeerMem || topo.GPUDirect.NvidiaVersion != "580.159.04" {
		t.Errorf("GPUDirect hints %+v", topo.GPUDirect)
	}
	// The VM's virtio network function stands in as the only NIC.
	if len(topo.NICs) != 1 || topo.NICs[0].BusID != "0000:00:03.0" {
		t.Errorf("NICs %+v", topo.NICs)
	}
	// numa_node -1 on a machine of one NUMA node: the devices hang from it,
	// not from a CPU of unknown NUMA node.
	if len(topo.NUMANodes) == 1 {
		for _, l := range topo.Links {
			if l.Kind == probes.LinkPCIe && l.B == "CPU" {
				t.Errorf("link %s -> CPU on a machine whose only NUMA node is %s", l.A, topo.NUMANodes[0].NodeID())
			}
		}
	}
}
