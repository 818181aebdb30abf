package published_test

import (
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/cudasamples"
	"github.com/commlab/commlab/parse/lspci"
	"github.com/commlab/commlab/parse/nvidiasmi"
	"github.com/commlab/commlab/parse/perftest"
	"github.com/commlab/commlab/parse/rdmatools"
	"github.com/commlab/commlab/probes/published"
)

// Every published output reads with its parser; the ESC8000A-E12's tree
// and NUMA nodes give the matrix its nvidia-smi printed.
func TestPublishedMachinesParse(t *testing.T) {
	if len(published.PublishedMachines()) != 8 {
		t.Fatalf("machines %v", published.PublishedMachines())
	}
	for _, name := range published.PublishedMachines() {
		m, err := published.PublishedMachine(name)
		if err != nil {
			t.Fatal(err)
		}
		if m.Source == "" || m.Machine == "" || len(m.Tools) == 0 {
			t.Errorf("%s: no source, description or tools", name)
		}
		for _, tool := range m.Tools {
			out, err := m.Output(tool)
			if err != nil {
				t.Fatal(err)
			}
			switch tool {
			case published.ToolTopoMatrix:
				_, err = nvidiasmi.ParseTopoMatrixString(out)
			case published.ToolLspciTree:
				_, err = lspci.ParseTree(strings.NewReader(out))
			case published.ToolLspciVerbose:
				_, err = lspci.ParseNUMA(strings.NewReader(out))
			case published.ToolP2P:
				_, err = cudasamples.ParseP2P(strings.NewReader(out))
			case published.ToolBandwidth:
				var rep *cudasamples.BandwidthReport
				rep, err = cudasamples.ParseBandwidthTest(strings.NewReader(out))
				if name == "p100-gearshifft" && rep != nil && len(rep.Runs) == 2 {
					err = nil // the post is cut inside its second run
				}
			case published.ToolIbstat, published.ToolIbvDevinfo, published.ToolRdmaLink:
				var rep *rdmatools.Report
				rep, err = rdmatools.Parse(strings.NewReader(out))
				if rep != nil && name == "mooncake1999" {
					err = nil // the paste is cut
				}
			case published.ToolPerftest:
				var rep *perftest.Report
				rep, err = perftest.Parse(strings.NewReader(out))
				if rep != nil && name == "perftest-pr21" {
					err = nil // it ends before its results
				}
			case published.ToolNumactl:
				if !strings.Contains(out, "node distances") {
					t.Errorf("%s: numactl output without distances", name)
				}
			}
			if err != nil {
				t.Errorf("%s, %s: %v", name, tool, err)
			}
		}
	}
	esc, _ := published.PublishedMachine("esc8000a-e12")
	smi, _ := esc.Output(published.ToolTopoMatrix)
	treeText, _ := esc.Output(published.ToolLspciTree)
	vvv, _ := esc.Output(published.ToolLspciVerbose)
	m, err := nvidiasmi.ParseTopoMatrixString(smi)
	if err != nil {
		t.Fatal(err)
	}
	want := m.Topology()
	tree, _ := lspci.ParseTree(strings.NewReader(treeText))
	numa, _ := lspci.ParseNUMA(strings.NewReader(vvv))
	got, err := tree.Topology(lspci.TreeOptions{NUMA: numa})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range want.Devices {
		for _, b := range want.Devices {
			pw, _ := want.PathBetween(a, b)
			pg, _ := got.PathBetween(a, b)
			if a != b && pw.Level != pg.Level {
				t.Errorf("%s-%s: tree %v, nvidia-smi %v", a, b, pg, pw)
			}
		}
	}
	if _, err := published.PublishedMachine("nope"); err == nil {
		t.Error("unknown machine: no error")
	}
	if _, err := esc.Output("ibstat"); err == nil {
		t.Error("a tool the machine has no output of: no error")
	}
}

// Every recorded matrix reads; the -mp excerpt keeps the rows it has.
func TestRecordedMatricesParse(t *testing.T) {
	for _, name := range published.Matrices() {
		text, source, err := published.Matrix(name)
		if err != nil || source == "" {
			t.Fatalf("%s: %v", name, err)
		}
		parseMatrix := nvidiasmi.ParseTopoMatrixString
		if name == "deepep60-mp" { // its source posted only the first four rows
			parseMatrix = nvidiasmi.ParseTopoMatrixExcerpt
		}
		m, err := parseMatrix(text)
		if m == nil || err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "deepep60-mp" {
			if p, ok := m.Topology().PathBetween("GPU3", "NIC7"); !ok || p.String() != "PIX" {
				t.Errorf("GPU3 to NIC7 %v %v, want PIX", p, ok)
			}
		}
	}
}
