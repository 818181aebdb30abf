package dmesg

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/parse"
)

func parseFile(t testing.TB, name string) *Log {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestGolden(t *testing.T) {
	for _, p := range golden.Inputs(t, 7, "testdata/*.txt") {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			l := parseFile(t, name)
			js, err := json.MarshalIndent(l, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, strings.TrimSuffix(p, ".txt")+".golden", append(js, '\n'))
		})
	}
}

func TestEvents(t *testing.T) {
	cases := []struct {
		file     string
		lost     []string // GPUs lost, by bus
		codes    []int
		roots    int
		down     []string
		firstStr string
	}{
		{"nvsentinel155_fallen_off_bus_noxid.txt", []string{"0000:b3:00.0"}, nil, 0, nil,
			"GPU 0000:b3:00.0 fell off the bus: The NVIDIA GPU 0000:b3:00.0 (PCI ID: 10de:26b5) installed in this system has fallen off the bus and is not responding to commands."},
		{"nvsentinel155_xid79.txt", []string{"0000:44:00"}, []int{79}, 1, nil, "Xid 79 on 0000:44:00: GPU has fallen off the bus"},
		{"ogkm1150_xid45_caused_by_previous.txt", nil, []int{45}, 0, nil,
			"Xid 45 on 0000:dc:00: Ch 00000001 caused by previous Xid 149 (process python3, pid 1818990)"},
		{"bumblebee554_fallen_off_bus_old.txt", []string{"0000:01:00.0"}, nil, 0, nil, "GPU 0000:01:00.0 fell off the bus: GPU at 0000:01:00.0 has fallen off the bus."},
		{"mlengineering_xid63_row_remap.txt", nil, []int{63}, 1, nil, "Xid 63 on 0000:10:1c: Row Remapper: New row marked for remapping, reset gpu to activate."},
		{"gpud1209_mlx5_link_journal.txt", nil, nil, 0, nil, "mlx5_5 port 1 link INIT (000-000-00000-1-gpu-1 0000:ab:00.0)"},
		{"h200_iommu_noxid.txt", nil, nil, 0, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			l := parseFile(t, c.file)
			var lost []string
			for _, e := range l.GPUsLost() {
				lost = append(lost, e.PCI)
			}
			if !reflect.DeepEqual(lost, c.lost) {
				t.Errorf("GPUs lost = %v, want %v", lost, c.lost)
			}
			if got := l.Codes(); !reflect.DeepEqual(got, c.codes) {
				t.Errorf("codes = %v, want %v", got, c.codes)
			}
			if got := len(l.RootXids()); got != c.roots {
				t.Errorf("%d root Xids, want %d", got, c.roots)
			}
			if len(l.LinksDown()) != len(c.down) {
				t.Errorf("links down = %v", l.LinksDown())
			}
			first := ""
			if len(l.Events) > 0 {
				first = l.Events[0].String()
			}
			if first != c.firstStr {
				t.Errorf("first event %q, want %q", first, c.firstStr)
			}
		})
	}
	// The journal's host and the link's last state.
	l := parseFile(t, "gpud1209_mlx5_link_journal.txt")
	if len(l.Events) != 2 || l.Events[1].State != "ACTIVE" || l.Events[1].Host != "000-000-00000-1-gpu-1" || l.Events[1].Time != "Feb 14 05:03:41" {
		t.Errorf("events = %+v", l.Events)
	}
}

// A port whose last word in the log is DOWN is down, and the driver's
// forms of pid and name (quoted, unknown) read.
func TestLinkDownAndOddFields(t *testing.T) {
	text := "[Tue Dec  1 21:40:01 2026] mlx5_core 0000:1a:00.0 mlx5_0: Port: 1 Link DOWN\n" +
		"[Tue Dec  1 21:40:02 2026] NVRM: Xid (PCI:0000:18:00): 74, pid='<unknown>', name=<unknown>, NVLink: fatal error detected on link 3\n" +
		"[Tue Dec  1 21:40:03 2026] mlx5_core 0000:2a:00.0 mlx5_1: Port: 1 Link ACTIVE\n"
	l, err := Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	down := l.LinksDown()
	if len(down) != 1 || down[0].Device != "mlx5_0" || down[0].Time != "Tue Dec  1 21:40:01 2026" {
		t.Errorf("down = %+v", down)
	}
	x := l.Xids()
	if len(x) != 1 || x[0].Xid != 74 || x[0].PID != 0 || x[0].Process != "" || x[0].Text != "NVLink: fatal error detected on link 3" {
		t.Errorf("xid = %+v", x)
	}
}

func TestBusKey(t *testing.T) {
	for in, want := range map[string]string{"00000000:44:00.0": "0000:44:00", "0000:44:00": "0000:44:00", "44:00.0": "0000:44:00", "PCI:0000:B3:00.0": "0000:b3:00"} {
		if got := BusKey(in); got != want {
			t.Errorf("BusKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBinary(t *testing.T) {
	_, err := Parse(bytes.NewReader([]byte{0x80, 0x02, 0x00, 'x'}))
	var pe *parse.Error
	if !errors.Is(err, ErrBinary) || !errors.Is(err, parse.ErrFormat) || !errors.As(err, &pe) || pe.Offset != 2 {
		t.Errorf("err = %v", err)
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
		l, err := Parse(bytes.NewReader(data))
		if l == nil {
			t.Fatalf("nil log (err %v)", err)
		}
		for _, e := range l.Events {
			_ = e.String()
			if e.Line < 1 || e.Line > l.Lines {
				t.Fatalf("event on line %d of %d", e.Line, l.Lines)
			}
		}
		_, _, _ = l.GPUsLost(), l.LinksDown(), l.RootXids()
	})
}
