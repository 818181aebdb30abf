package ncclxml

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

func readTestTree(t *testing.T, name string) *Node {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	root, err := ReadTree(f)
	if err != nil && !(errors.Is(err, ErrTruncated) && strings.Contains(name, "excerpt")) {
		t.Fatal(err)
	}
	return root
}

func reparse(t *testing.T, root *Node) *System {
	t.Helper()
	var b bytes.Buffer
	if err := root.WriteXML(&b); err != nil {
		t.Fatal(err)
	}
	sys, err := ParseTopology(&b)
	if err != nil {
		t.Fatalf("edited file does not parse: %v\n%s", err, b.String())
	}
	return sys
}

func TestWriteXMLRoundTrip(t *testing.T) {
	for _, name := range []string{"h200_topo_dump.xml", "azure_ndv5_topo_file.xml", "aws_p4d24xl_topo_file.xml", "nccl507_v100_dump_excerpt.xml"} {
		root := readTestTree(t, name)
		f, _ := os.Open("testdata/" + name)
		want, err := ParseTopology(f)
		f.Close()
		if err != nil && !errors.Is(err, ErrTruncated) {
			t.Fatal(err)
		}
		got := reparse(t, root)
		if len(got.GPUs()) != len(want.GPUs()) || len(got.NICs()) != len(want.NICs()) || len(got.Edges()) != len(want.Edges()) {
			t.Errorf("%s: round trip changed the topology: GPUs %d->%d NICs %d->%d edges %d->%d", name,
				len(want.GPUs()), len(got.GPUs()), len(want.NICs()), len(got.NICs()), len(want.Edges()), len(got.Edges()))
		}
	}
}

func TestApplyEdit(t *testing.T) {
	for _, tc := range []struct {
		file, edit string
		wantErr    bool
		check      func(*System) string
	}{
		{"nccl507_v100_dump_excerpt.xml", "nvlink-count=2", false, func(s *System) string {
			for _, g := range s.GPUs() {
				for _, l := range g.NVLinks {
					if l.Count != 2 {
						return "an nvlink kept its count"
					}
				}
			}
			return ""
		}},
		{"nccl507_v100_dump_excerpt.xml", "nvlink-count=0", false, func(s *System) string {
			for _, g := range s.GPUs() {
				if len(g.NVLinks) != 0 {
					return "an nvlink is left"
				}
			}
			return ""
		}},
		{"h200_topo_dump.xml", "nvlink-count=2", true, nil},
		{"h200_topo_dump.xml", "nic-speed=1000", false, func(s *System) string {
			for _, n := range s.NICs() {
				if n.Net.Speed != 1000 {
					return "speed not set"
				}
			}
			return ""
		}},
		{"h200_topo_dump.xml", "nic-remote-cpu", false, func(s *System) string {
			if len(s.CPUs) != 2 || len(s.NICs()) != 1 {
				return "want two CPUs and the one NIC"
			}
			if s.CPUs[0].NumaID == s.CPUs[1].NumaID {
				return "the new CPU has the same NUMA id"
			}
			return ""
		}},
		{"h200_topo_dump.xml", "no-nic", false, func(s *System) string {
			if len(s.NICs()) != 0 {
				return "a NIC is left"
			}
			return ""
		}},
		{"h200_topo_dump.xml", "nvlink-count=x", true, nil},
		{"h200_topo_dump.xml", "bigger-gpus", true, nil},
		{"h200_topo_dump.xml", "no-nic=3", true, nil},
	} {
		root := readTestTree(t, tc.file)
		what, err := ApplyEdit(root, tc.edit)
		if tc.wantErr {
			if !errors.Is(err, ErrEdit) {
				t.Errorf("%s %s: err = %v, want ErrEdit", tc.file, tc.edit, err)
			}
			continue
		}
		if err != nil || what == "" {
			t.Errorf("%s %s: %q, %v", tc.file, tc.edit, what, err)
			continue
		}
		if msg := tc.check(reparse(t, root)); msg != "" {
			t.Errorf("%s %s: %s", tc.file, tc.edit, msg)
		}
	}
}

func TestApplyEditNotTopology(t *testing.T) {
	root := readTestTree(t, "h200_graph_dump.xml")
	if _, err := ApplyEdit(root, "no-nic"); err == nil || !strings.Contains(err.Error(), "not a topology") {
		t.Errorf("graph file accepted: %v", err)
	}
}

// Elements without attributes parse with no attribute map; an edit that
// sets one on them must not panic.
func TestApplyEditBareElements(t *testing.T) {
	const bare = `<system version="1"><cpu><pci><gpu dev="0"><nvlink/></gpu></pci></cpu></system>`
	for _, edit := range []string{"nvlink-count=2", "nic-remote-cpu", "nic-speed=1000", "no-nic"} {
		root, err := ReadTree(strings.NewReader(bare))
		if err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s on bare elements panicked: %v", edit, r)
				}
			}()
			_, _ = ApplyEdit(root, edit)
		}()
	}
	root, _ := ReadTree(strings.NewReader(bare))
	if _, err := ApplyEdit(root, "nvlink-count=2"); err != nil {
		t.Errorf("nvlink-count=2: %v", err)
	}
}

func FuzzApplyEdit(f *testing.F) {
	f.Add(`<system version="1"><cpu numaid="-1"><pci><gpu dev="0"><nvlink/></gpu></pci><nic><net name="mlx5_0"/></nic></cpu></system>`, "nic-remote-cpu")
	f.Add(`<system><cpu><nic><net/></nic></cpu></system>`, "nic-speed=100")
	f.Fuzz(func(t *testing.T, doc, edit string) {
		root, err := ReadTree(strings.NewReader(doc))
		if err != nil {
			return
		}
		_, _ = ApplyEdit(root, edit) // never panics
	})
}
