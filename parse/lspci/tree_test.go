package lspci

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/probes"
)

func parseTreeFile(t *testing.T, path string) *Tree {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := ParseTree(f)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func numaFile(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := ParseNUMA(f)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The ASUS ESC8000A-E12 post holds the tree, lspci -vvv of every GPU and
// NIC (with their NUMA nodes) and nvidia-smi topo -m of the same machine:
// the matrix the tree gives must be the one nvidia-smi printed.
func TestTreeMatchesNvidiaSmi(t *testing.T) {
	tr := parseTreeFile(t, "testdata/tree/stelline_esc8000a_e12_tv.txt")
	numa := numaFile(t, "testdata/public/stelline_esc8000a_e12_vvv.txt")
	topo, err := tr.Topology(TreeOptions{NUMA: numa})
	if err != nil {
		t.Fatal(err)
	}
	var gpus, nics []string
	for _, g := range topo.GPUs {
		gpus = append(gpus, g.BusID)
	}
	for _, n := range topo.NICs {
		nics = append(nics, n.BusID)
	}
	if !slices.Equal(gpus, []string{"0000:01:00.0", "0000:41:00.0", "0000:c1:00.0", "0000:e1:00.0"}) ||
		!slices.Equal(nics, []string{"0000:21:00.0", "0000:21:00.1", "0000:81:00.0", "0000:81:00.1"}) {
		t.Fatalf("GPUs %v, NICs %v", gpus, nics)
	}
	// nvidia-smi topo -m of the same post, row by row (GPU0..3, NIC0..3).
	want := [][]string{
		{"X", "NODE", "SYS", "SYS", "NODE", "NODE", "SYS", "SYS"},
		{"NODE", "X", "SYS", "SYS", "NODE", "NODE", "SYS", "SYS"},
		{"SYS", "SYS", "X", "NODE", "SYS", "SYS", "NODE", "NODE"},
		{"SYS", "SYS", "NODE", "X", "SYS", "SYS", "NODE", "NODE"},
		{"NODE", "NODE", "SYS", "SYS", "X", "PIX", "SYS", "SYS"},
		{"NODE", "NODE", "SYS", "SYS", "PIX", "X", "SYS", "SYS"},
		{"SYS", "SYS", "NODE", "NODE", "SYS", "SYS", "X", "PIX"},
		{"SYS", "SYS", "NODE", "NODE", "SYS", "SYS", "PIX", "X"},
	}
	for i, a := range topo.Devices {
		for j, b := range topo.Devices {
			if i == j {
				continue
			}
			p, ok := topo.PathBetween(a, b)
			if !ok || p.String() != want[i][j] {
				t.Errorf("%s to %s: %v (%v), nvidia-smi says %s", a, b, p, ok, want[i][j])
			}
		}
	}
	if topo.GPUs[2].NUMANode != 1 || topo.NICs[1].NUMANode != 0 {
		t.Errorf("NUMA: GPU2 %d, NIC1 %d (the second function takes its device's node)", topo.GPUs[2].NUMANode, topo.NICs[1].NUMANode)
	}
}

func TestTreeLevels(t *testing.T) {
	tr := parseTreeFile(t, "testdata/tree/stelline_esc8000a_e12_tv.txt")
	for _, tt := range []struct {
		a, b string
		want probes.Level
	}{
		{"65:00.0", "66:00.0", probes.LevelPIX}, // NVMe drives on one switch's downstream ports
		{"65:00.0", "6b:00.0", probes.LevelPXB}, // two switches under one upstream switch
		{"01:00.0", "01:00.1", probes.LevelPIX}, // a GPU and its audio function
		{"65:00.0", "75:00.0", probes.LevelPHB}, // through the root complex of one host bridge
		{"01:00.0", "41:00.0", probes.LevelSYS}, // other host bridge, NUMA unknown
		{"a5:00.0", "b1:00.0", probes.LevelPXB}, // deep switch chain and its sibling branch
	} {
		got, err := tr.Level(tt.a, tt.b, nil)
		if err != nil || got != tt.want {
			t.Errorf("%s to %s: %v %v, want %v", tt.a, tt.b, got, err, tt.want)
		}
	}
	if _, err := tr.Level("01:00.0", "ff:00.0", nil); err == nil {
		t.Error("a device not in the tree: no error")
	}
	d, _ := tr.Device("0000:6b:00.0")
	if !slices.Equal(d.Chain, []string{"0000:60:01.1", "0000:61:00.0", "0000:62:04.0", "0000:69:00.0", "0000:6a:00.0"}) || d.Host != "0000:60" {
		t.Errorf("6b:00.0 chain %v host %s", d.Chain, d.Host)
	}
}

func TestTreeTableCases(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		devices  []string
		roots    []string
		verbose  bool
	}{
		{"one root, one device", "-[0000:00]---00.0\n", []string{"0000:00:00.0"}, []string{"0000:00"}, false},
		{"old pciutils root without domain", "-[00]-+-00.0\n      \\-01.0-[01]----00.0  NVIDIA Corporation Device 2335\n",
			[]string{"0000:00:00.0", "0000:00:01.0", "0000:01:00.0"}, []string{"0000:00"}, true},
		{"bridge with nothing below", "-[0000:00]-+-02.0-[03]--\n           \\-03.0\n", []string{"0000:00:02.0", "0000:00:03.0"}, []string{"0000:00"}, false},
		{"two roots, prompt and trailing text", "$ lspci -t\n-+-[0000:80]---00.0\n \\-[0000:00]---01.0\n```\nmore text\n",
			[]string{"0000:00:01.0", "0000:80:00.0"}, []string{"0000:80", "0000:00"}, false},
		{"launcher prefix", "0: -[0000:00]-+-00.0\n0:            \\-01.0\n", []string{"0000:00:00.0", "0000:00:01.0"}, []string{"0000:00"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := ParseTree(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range tr.Devices {
				got = append(got, d.Address)
			}
			if !slices.Equal(got, tt.devices) || !slices.Equal(tr.Roots, tt.roots) || tr.Verbose != tt.verbose {
				t.Errorf("devices %v roots %v verbose %v", got, tr.Roots, tr.Verbose)
			}
		})
	}
}

func TestTreeBadInput(t *testing.T) {
	if _, err := ParseTree(strings.NewReader("00:00.0 Host bridge: Intel\n")); !errors.Is(err, parse.ErrFormat) {
		t.Errorf("lspci without -t: %v, want ErrFormat", err)
	}
	// A line that continues no bus: the devices above it are kept.
	tr, err := ParseTree(strings.NewReader("-[0000:00]-+-00.0\n    +-01.0\n"))
	var pe *parse.Error
	if !errors.As(err, &pe) || pe.Line != 2 || tr == nil || len(tr.Devices) != 1 {
		t.Errorf("misaligned line: %v, tree %+v", err, tr)
	}
	if _, err := (&Tree{Roots: []string{"0000:00"}}).Topology(TreeOptions{}); err == nil {
		t.Error("a -t tree with no GPUs listed: no error")
	}
}

func TestTreeOptionsGPUs(t *testing.T) {
	tr := parseTreeFile(t, "testdata/tree/club3090_859_2x5090_t_excerpt.txt")
	if tr.Verbose || len(tr.Roots) != 1 {
		t.Fatalf("verbose %v roots %v", tr.Verbose, tr.Roots)
	}
	topo, err := tr.Topology(TreeOptions{GPUs: []string{"01:00.0", "03:00.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := topo.PathBetween("GPU0", "GPU1"); p.Level != probes.LevelPHB {
		t.Errorf("two root ports of one host bridge: %v, want PHB", p)
	}
	if _, err := tr.Topology(TreeOptions{GPUs: []string{"9f:00.0"}}); err == nil {
		t.Error("a GPU address not in the tree: no error")
	}
}

func TestParseNUMA(t *testing.T) {
	sysfs := `/sys/bus/pci/devices/0000:00:00.0/numa_node:-1
/sys/bus/pci/devices/0000:18:00.0/numa_node:0
/sys/bus/pci/devices/0000:9a:00.0/numa_node:1
`
	n, err := ParseNUMA(strings.NewReader(sysfs))
	if err != nil || len(n) != 2 || n["0000:18:00.0"] != 0 || n["0000:9a:00.0"] != 1 {
		t.Errorf("sysfs listing: %v %v", n, err)
	}
	if _, err := ParseNUMA(strings.NewReader("18:00.0 3D controller: NVIDIA\n\tFlags: bus master\n")); !errors.Is(err, parse.ErrFormat) {
		t.Errorf("lspci -v without NUMA lines: %v, want ErrFormat", err)
	}
	if _, err := ParseNUMA(strings.NewReader("hello\n")); !errors.Is(err, parse.ErrFormat) {
		t.Errorf("not lspci: %v", err)
	}
}

func TestTreeGolden(t *testing.T) {
	for _, in := range golden.Inputs(t, 2, "testdata/tree/*.txt") {
		tr := parseTreeFile(t, in)
		b, err := json.MarshalIndent(tr, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, strings.TrimSuffix(in, filepath.Ext(in))+".golden", append(b, '\n'))
	}
}

func FuzzParseTree(f *testing.F) {
	for _, p := range golden.Inputs(f, 2, "testdata/tree/*.txt") {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("-[0000:00]-+-00.0-[01]--+-00.0  NVIDIA Corporation GH100\n           |            \\-00.1  Mellanox ConnectX-7\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ParseTree(strings.NewReader(string(data)))
		if tr == nil {
			return
		}
		if err == nil && tr.Verbose {
			if topo, err := tr.Topology(TreeOptions{}); err == nil && len(topo.GPUs) == 0 {
				t.Error("a topology without GPUs")
			}
		}
		for _, d := range tr.Devices {
			if len(d.Chain) > 0 && d.Chain[len(d.Chain)-1] == d.Address {
				t.Errorf("%s is its own parent", d.Address)
			}
		}
	})
}

func TestMarketingName(t *testing.T) {
	for in, want := range map[string]string{
		"NVIDIA Corporation AD102GL [RTX 6000 Ada Generation]": "RTX 6000 Ada Generation",
		"Mellanox Technologies MT2910 Family [ConnectX-7]":     "ConnectX-7",
		"NVIDIA Corporation Device 2335":                       "NVIDIA Corporation Device 2335",
		"Broken ]name[":                                        "Broken ]name[",
		"Empty []":                                             "Empty []",
		"":                                                     "",
	} {
		if got := marketingName(in); got != want {
			t.Errorf("marketingName(%q) = %q, want %q", in, got, want)
		}
	}
}
