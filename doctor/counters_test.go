package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/netcounters"
)

func countersOf(t *testing.T, name, text string) CounterInput {
	t.Helper()
	if text == "" {
		b, err := os.ReadFile(filepath.Join("..", "parse", "netcounters", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		text = string(b)
	}
	s, err := netcounters.Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return CounterInput{Name: name, Snapshot: s}
}

// TestCheckCounters: each rule on the counter fixtures of
// parse/netcounters (SOURCES.md there) and lines in the tools' forms.
func TestCheckCounters(t *testing.T) {
	cases := []struct {
		name, file, text string
		want             Status
		says             string
	}{
		{"perfquery all zero (infiniband-diags#16)", "perfquery_x_infinibanddiags16.txt", "", OK, "no error counter above its threshold since the counters were last cleared"},
		{"two sysfs readings: link went down in the window", "sysfs_counters_two_reads.txt", "", Fail, "link_downed +1"},
		{"one perfquery reading with old symbol errors", "", "# Port counters: Lid 3 port 1 (CapMask: 0x5A00)\nPortSelect:......................1\nSymbolErrorCounter:..............57\nLinkDownedCounter:...............0\n", Warn, "symbol_errors 57"},
		{"symbol errors at the threshold", "", "# Port counters: Lid 3 port 1 (CapMask: 0x5A00)\nPortSelect:......................1\nSymbolErrorCounter:..............10\n", OK, ""},
		{"ethtool discards", "", "ethtool -S eth2\nNIC statistics:\n     rx_discards_phy: 4\n     rx_prio3_pause: 120\n", Warn, "rcv_discards 4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := CheckCounters(&Evidence{Counters: []CounterInput{countersOf(t, c.file, c.text)}})
			if v.Status != c.want || !strings.Contains(v.Summary, c.says) {
				t.Errorf("%v %q; want %v saying %q\n%s", v.Status, v.Summary, c.want, c.says, strings.Join(v.Evidence, "\n"))
			}
		})
	}
	v := CheckCounters(&Evidence{Counters: []CounterInput{countersOf(t, "", "ethtool -S eth2\nNIC statistics:\n     rx_prio3_pause: 120\n     rx_ecn_mark: 3\n")}})
	if v.Status != OK || !strings.Contains(strings.Join(v.Evidence, "\n"), "pfc_pause_rx_prio3 120") {
		t.Errorf("congestion signals: %v %q %q", v.Status, v.Summary, v.Evidence)
	}
	if v := CheckCounters(&Evidence{}); v.Status != Skipped {
		t.Errorf("no counters: %v", v.Status)
	}
}
