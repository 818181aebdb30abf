package nvidiasmi

import (
	"errors"
	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/parse"
	"os"
	"strings"
	"testing"
)

type queryGolden struct {
	Report *Query `json:"report"`
	Error  string `json:"error,omitempty"`
}

func TestParseQueryGolden(t *testing.T) {
	golden.Each(t, golden.Inputs(t, 1, "testdata/query/*.txt"), golden.ReplaceExt, func(t *testing.T, data []byte) []byte {
		rep, perr := ParseQueryString(string(data))
		g := queryGolden{Report: rep}
		if perr != nil {
			g.Error = perr.Error()
		}
		return golden.JSON(t, g, "  ")
	})
}

func TestParseQueryFacts(t *testing.T) {
	data, _ := os.ReadFile("testdata/query/h100-sxm-8gpu-first-gpu-only.txt")
	rep, err := ParseQueryString(string(data))
	var le *parse.Error
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "1 of 8 attached GPUs") || le.Line != 231 {
		t.Errorf("truncated input: error %v", err)
	}
	if rep.Driver != "565.57.01" || rep.CUDA != "12.7" || len(rep.GPUs) != 1 {
		t.Fatalf("report %+v", rep)
	}
	g := rep.GPUs[0]
	checks := []struct {
		name      string
		got, want any
	}{
		{"name", g.Name, "NVIDIA H100 80GB HBM3"},
		{"uuid", g.UUID, "GPU-b42dd28e-ffdd-8720-1df0-98bd8cdc05b1"},
		{"arch", g.Architecture, "Hopper"},
		{"gen", g.PCIeGenCurrent, 5},
		{"width", g.PCIeWidthMax, 16},
		{"tx", g.PCIeTxKBps, 567.0},
		{"replays", g.ReplaysSinceReset, 7},
		{"mem", g.MemoryTotalMiB, 81559.0},
		{"power", g.PowerDrawW, 100.89},
		{"limit", g.PowerLimitW, 700.0},
		{"maxsm", g.MaxClockSMMHz, 1980.0},
		{"fabric", g.FabricState, "Completed"},
		{"ecc", g.ECCMode, "Enabled"},
		{"mig", g.MIGMode, "Disabled"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if v, ok := g.Get("Clocks Event Reasons/HW Slowdown"); !ok || v != "Not Active" {
		t.Errorf("nested field %q %v", v, ok)
	}
	if v, _ := g.Get("ECC Errors/Aggregate/SRAM Threshold Exceeded"); v != "No" {
		t.Errorf("deep field %q", v)
	}
	if NormalizeBusID(g.BusID) != "0000:18:00.0" {
		t.Errorf("bus id %q", g.BusID)
	}
}

// Recorded on this project's H200 machine (driver 580.159.04): complete,
// with the split power readings of new drivers.
func TestParseQueryRecordedH200(t *testing.T) {
	data, _ := os.ReadFile("testdata/query/h200-1gpu-vm.txt")
	rep, err := ParseQueryString(string(data))
	if err != nil {
		t.Fatal(err)
	}
	g := rep.GPUs[0]
	if rep.Driver != "580.159.04" || rep.CUDA != "13.0" || g.Name != "NVIDIA H200" || g.MemoryTotalMiB != 143771 ||
		g.PCIeGenMax != 5 || g.PCIeWidthCurrent != 16 || g.PowerDrawW != 77.64 || g.PowerLimitW != 700 {
		t.Errorf("H200 report %+v", g)
	}
	if v, _ := g.Get("GPU Virtualization Mode/Virtualization Mode"); v != "Pass-Through" {
		t.Errorf("virtualization %q", v)
	}
}

func TestParseQueryOldPower(t *testing.T) {
	data, _ := os.ReadFile("testdata/query/synthetic-old-power-readings.txt")
	rep, err := ParseQueryString(string(data))
	if err != nil {
		t.Fatal(err)
	}
	g := rep.GPUs[0]
	if g.PowerDrawW != 9.87 || g.PowerLimitW != 250 || g.PCIeGenCurrent != 1 || g.PCIeGenMax != 3 {
		t.Errorf("old layout: %+v", g)
	}
}

func TestParseQueryErrors(t *testing.T) {
	tests := []struct {
		in       string
		notSMI   bool
		contains string
	}{
		{"hello\nworld\n", true, "line 1"},
		{"", true, "0 lines"},
		{"<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n", false, "XML form"},
		{"Driver Version : 1\nAttached GPUs : x\n", false, "line 2: Attached GPUs \"x\""},
		{"Driver Version : 1\n    stray\n", false, "outside a GPU section"},
	}
	for _, tc := range tests {
		_, err := ParseQueryString(tc.in)
		if err == nil || errors.Is(err, parse.ErrFormat) != tc.notSMI || !strings.Contains(err.Error(), tc.contains) {
			t.Errorf("%q: error %v, want notSMI=%v containing %q", tc.in, err, tc.notSMI, tc.contains)
		}
	}
}

func TestNormalizeBusID(t *testing.T) {
	for in, want := range map[string]string{
		"00000000:18:00.0": "0000:18:00.0",
		"00000000:AB:00.0": "0000:ab:00.0",
		"0000:18:00.0":     "0000:18:00.0",
		"":                 "",
	} {
		if got := NormalizeBusID(in); got != want {
			t.Errorf("NormalizeBusID(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseQuery(f *testing.F) {
	for _, in := range golden.Inputs(f, 1, "testdata/query/*.txt") {
		if data, err := os.ReadFile(in); err == nil {
			f.Add(string(data))
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		rep, err := ParseQueryString(s)
		if rep == nil {
			t.Fatal("nil report")
		}
		_ = rep.Summary()
		if rep.AttachedGPUs > len(rep.GPUs) && err == nil {
			t.Fatal("fewer GPUs than attached, yet no error")
		}
	})
}
