package cudasamples

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/parse"
)

func open(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestP2PDistServe(t *testing.T) {
	rep, err := ParseP2P(open(t, "testdata/distserve3_a100x8_p2p.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Devices) != 8 || rep.Devices[2].BusID != "0000:44:00.0" || rep.Devices[7].Name != "NVIDIA A100-SXM4-80GB" {
		t.Fatalf("devices %+v", rep.Devices)
	}
	if len(rep.CanAccess) != 8 || !rep.CanAccess[3][5] || len(rep.Connectivity) != 8 {
		t.Errorf("access %v connectivity %v", rep.CanAccess, rep.Connectivity)
	}
	if len(rep.Matrices) != 8 {
		t.Fatalf("%d matrices, want 4 bandwidth + 2x2 latency", len(rep.Matrices))
	}
	on, ok1 := rep.Bandwidth(false, true)
	off, ok2 := rep.Bandwidth(true, false)
	lat, ok3 := rep.Latency(false, "GPU")
	cpu, ok4 := rep.Latency(true, "CPU")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		t.Fatal("a matrix is missing")
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"P2P writes 0->1", on.At(0, 1), 268.94},
		{"P2P writes diagonal 3", on.At(3, 3), 1584.69},
		{"bidirectional staged 0<->1 (one switch)", off.At(0, 1), 11.10},
		{"bidirectional staged 0<->2", off.At(0, 2), 27.81},
		{"staged latency 0->4", lat.At(0, 4), 24.62},
		{"CPU issue time with P2P 7->6", cpu.At(7, 6), 2.80},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	mean, lo, hi := on.OffDiagonal()
	if lo != 265.05 || hi != 275.53 || math.Abs(mean-272.8) > 0.5 {
		t.Errorf("off-diagonal %v %v %v", mean, lo, hi)
	}
	if lat.Unit != "us" || on.Unit != "GB/s" || on.Title != "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)" {
		t.Errorf("units %q %q title %q", lat.Unit, on.Unit, on.Title)
	}
}

func TestP2PTruncated(t *testing.T) {
	b, err := os.ReadFile("testdata/distserve3_a100x8_p2p.txt")
	if err != nil {
		t.Fatal(err)
	}
	cut := string(b[:strings.Index(string(b), "     5 420.25")])
	rep, err := ParseP2P(strings.NewReader(cut))
	var pe *parse.Error
	if !errors.Is(err, ErrTruncated) || !errors.As(err, &pe) || pe.Line == 0 {
		t.Fatalf("cut output: %v", err)
	}
	m, ok := rep.Bandwidth(true, true)
	if !ok || len(m.Values) != 5 {
		t.Errorf("the cut matrix keeps its 5 rows: %v %d", ok, len(m.Values))
	}
	// A row short of cells keeps NaN there, and still encodes.
	rep, err = ParseP2P(strings.NewReader("Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n   D\\D     0      1\n     0 10.0\n     1 1.0 2.0\n"))
	if m, _ := rep.Bandwidth(false, false); err != nil || !math.IsNaN(m.At(0, 1)) {
		t.Errorf("short row: %v %v", err, m.Values)
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Error(err)
	}
	if _, err := ParseP2P(strings.NewReader("# nccl-tests\n")); !errors.Is(err, parse.ErrFormat) {
		t.Errorf("foreign input: %v", err)
	}
}

func TestBandwidthTest(t *testing.T) {
	rep, err := ParseBandwidthTest(open(t, "testdata/stelline_esc8000a_e12_bandwidthtest.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 4 || rep.Runs[3].Device != 3 || rep.Runs[1].Command == "" || rep.Runs[0].Result != "PASS" {
		t.Fatalf("runs %+v", rep.Runs)
	}
	if h2d, ok := rep.Runs[2].Peak("host_to_device", "pinned"); !ok || h2d != 26.8 {
		t.Errorf("pinned h2d %v %v", h2d, ok)
	}
	if d2d, _ := rep.Runs[3].Peak("device_to_device", "pinned"); d2d != 4301.6 {
		t.Errorf("d2d %v", d2d)
	}
	// The P100 post: bound to the GPU's socket, then to the other one; the
	// second run is cut inside its device-to-device block.
	rep, err = ParseBandwidthTest(open(t, "testdata/gearshifft82_p100_numactl_bandwidthtest_excerpt.txt"))
	if !errors.Is(err, ErrTruncated) || len(rep.Runs) != 2 {
		t.Fatalf("excerpt: %v, %d runs", err, len(rep.Runs))
	}
	near, _ := rep.Runs[0].Peak("host_to_device", "pinned")
	far, _ := rep.Runs[1].Peak("host_to_device", "pinned")
	if near != 12.1507 || far != 3.7834 || rep.Runs[1].Command != "$ numactl -m1 -N1 bandwidthTest" {
		t.Errorf("near %v far %v command %q", near, far, rep.Runs[1].Command)
	}
	if _, err := ParseBandwidthTest(strings.NewReader("nothing\n")); !errors.Is(err, parse.ErrFormat) {
		t.Errorf("foreign input: %v", err)
	}
}

func TestGolden(t *testing.T) {
	for _, in := range golden.Inputs(t, 3, "testdata/*.txt") {
		b, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		var out any
		var perr error
		if strings.Contains(string(b), "CUDA Bandwidth Test]") {
			out, perr = ParseBandwidthTest(strings.NewReader(string(b)))
		} else {
			out, perr = ParseP2P(strings.NewReader(string(b)))
		}
		js, err := json.MarshalIndent(struct {
			Report any
			Err    string `json:",omitempty"`
		}{out, errString(perr)}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, strings.TrimSuffix(in, filepath.Ext(in))+".golden", append(js, '\n'))
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func FuzzParse(f *testing.F) {
	for _, p := range golden.Inputs(f, 3, "testdata/*.txt") {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if rep, _ := ParseP2P(strings.NewReader(string(data))); rep != nil {
			for _, m := range rep.Matrices {
				m.OffDiagonal()
			}
			if _, err := json.Marshal(rep); err != nil {
				t.Errorf("a parsed report does not encode: %v", err)
			}
		}
		if rep, err := ParseBandwidthTest(strings.NewReader(string(data))); err == nil {
			for _, r := range rep.Runs {
				r.Peak("host_to_device", "pinned")
			}
		}
	})
}
