package netcounters

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/parse"
)

func TestGolden(t *testing.T) {
	inputs := golden.Inputs(t, 4, "testdata/*.txt")
	var ok []string
	for _, in := range inputs {
		if !strings.Contains(in, "xsos112") {
			ok = append(ok, in)
		}
	}
	golden.Each(t, ok, golden.ReplaceExt, func(t *testing.T, data []byte) []byte {
		s, err := Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return golden.JSON(t, s, "  ")
	})
}

func parseFile(t *testing.T, name string) *Snapshot {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestForms(t *testing.T) {
	cases := []struct {
		file      string
		tool      string
		ports     int
		port, lid int
		counter   string
		value     uint64
	}{
		{"perfquery_x_infinibanddiags16.txt", ToolPerfquery, 1, 1, 10, SymbolErrors, 0},
		{"perfquery_noheader_ibsim1.txt", ToolPerfquery, 1, 1, 0, LinkDowned, 0},
		{"ethtool_mlx5_ethq8_head.txt", ToolEthtool, 1, 0, 0, "", 0},
		{"sysfs_counters_two_reads.txt", ToolSysfs, 2, 1, 0, SymbolErrors, 3},
	}
	for _, c := range cases {
		s := parseFile(t, c.file)
		if len(s.Ports) != c.ports {
			t.Fatalf("%s: %d ports, want %d", c.file, len(s.Ports), c.ports)
		}
		p := s.Ports[0]
		if p.Tool != c.tool || p.Port != c.port || p.Lid != c.lid {
			t.Errorf("%s: %+v", c.file, p)
		}
		if c.counter != "" {
			if v, ok := p.Counters[c.counter]; !ok || v != c.value {
				t.Errorf("%s: %s = %d (%v), want %d", c.file, c.counter, v, ok, c.value)
			}
		}
	}
	if _, err := Parse(strings.NewReader(string(mustRead(t, "ethtool_pause_xsos112.txt")))); !errors.Is(err, parse.ErrFormat) {
		t.Errorf("lines without NIC statistics: err %v", err)
	}
}

func mustRead(t *testing.T, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The mlx5 per-priority pause names (Linux drivers/net/ethernet/mellanox/
// mlx5/core/en_stats.c "rx_prio%d_pause") and a named device.
func TestEthtoolPriorities(t *testing.T) {
	text := "$ ethtool -S enp152s0f1np1\nNIC statistics:\n     rx_prio3_pause: 12\n     tx_prio3_pause: 0\n     rx_discards_phy: 4\n     link_down_events_phy: 1\n     rx_ecn_mark: 9\n"
	s, err := Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	p := s.Ports[0]
	if p.Device != "enp152s0f1np1" || p.Counters["pfc_pause_rx_prio3"] != 12 || p.Counters[RcvDiscards] != 4 || p.Counters[LinkDowned] != 1 || p.Counters[ECNMarked] != 9 {
		t.Errorf("%+v", p)
	}
}

func TestDeltas(t *testing.T) {
	s := parseFile(t, "sysfs_counters_two_reads.txt")
	if !s.Repeated() {
		t.Fatal("one port read twice should be repeated")
	}
	d := Deltas(s.First(), s.Last())
	if len(d) != 1 {
		t.Fatalf("%d deltas", len(d))
	}
	want := map[string]uint64{SymbolErrors: 37, LinkErrorRecovery: 2, LinkDowned: 1, RcvErrors: 5, CNPSent: 5000, CNPHandled: 4000, ECNMarked: 6000, AckTimeouts: 7, XmitDiscards: 0}
	for k, v := range want {
		if d[0].Counters[k] != v {
			t.Errorf("%s: %d, want %d", k, d[0].Counters[k], v)
		}
	}
	// a counter that went down was cleared: named, not subtracted
	a := []Port{{Device: "mlx5_0", Port: 1, Counters: map[string]uint64{SymbolErrors: 9}}}
	b := []Port{{Device: "mlx5_0", Port: 1, Counters: map[string]uint64{SymbolErrors: 2}}}
	if d := Deltas(a, b); len(d[0].Reset) != 1 || len(d[0].Counters) != 0 {
		t.Errorf("reset: %+v", d)
	}
}

func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(bytes.NewReader(data))
		if s == nil {
			t.Fatal("nil snapshot")
		}
		if err == nil && len(s.Ports) == 0 {
			t.Fatal("no ports and no error")
		}
		_ = Deltas(s.First(), s.Last())
	})
}
