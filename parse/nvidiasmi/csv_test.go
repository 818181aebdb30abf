package nvidiasmi

import (
	"slices"
	"strings"
	"testing"
)

func TestParseSamples(t *testing.T) {
	// two rows of a real run (one H100, as a spinning NCCL kernel starts),
	// under a command line as a capture script writes one
	in := "$ nvidia-smi --query-gpu=... --format=csv\n" +
		"timestamp, utilization.gpu [%], utilization.memory [%], power.draw [W], clocks.current.sm [MHz], memory.used [MiB]\n" +
		"2026/12/06 13:54:33.167, 14 %, 0 %, 89.78 W, 1980 MHz, 1111 MiB\n2026/12/06 13:54:33.667, 100 %, 0 %, 120.66 W, 1980 MHz, 1995 MiB\n"
	s, err := ParseSamples(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Column("utilization.gpu"); !slices.Equal(got, []string{"14 %", "100 %"}) {
		t.Errorf("utilization.gpu = %q", got)
	}
	if s.Column("fan.speed") != nil || len(s.Rows) != 2 {
		t.Errorf("rows %d, a column not queried: %q", len(s.Rows), s.Column("fan.speed"))
	}
	if _, err := ParseSamples(strings.NewReader("timestamp\n")); err == nil {
		t.Error("a header without rows: no error")
	}
}

func FuzzParseSamples(f *testing.F) {
	f.Add("timestamp, utilization.gpu [%]\n2026/12/06 13:54:33.667, 100 %\n")
	f.Fuzz(func(t *testing.T, s string) {
		if sm, err := ParseSamples(strings.NewReader(s)); err == nil {
			_ = sm.Column("utilization.gpu")
		}
	})
}
