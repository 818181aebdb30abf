package probes

import "testing"

func TestFirstPairAt(t *testing.T) {
	topo := machine([]PCIeLink{gen5x16, gen5x16, gen5x16}, []float64{400}, map[[2]string]string{
		{"GPU0", "GPU1"}: "NV18", {"GPU0", "GPU2"}: "SYS", {"GPU1", "GPU2"}: "SYS",
		{"GPU0", "NIC0"}: "NODE", {"GPU1", "NIC0"}: "NODE", {"GPU2", "NIC0"}: "PIX",
	})
	for _, c := range []struct {
		level Level
		a, b  string
		ok    bool
	}{
		{LevelNVLink, "GPU0", "GPU1", true},
		{LevelSYS, "GPU0", "GPU2", true},
		{LevelNODE, "GPU0", "NIC0", true},
		{LevelPIX, "GPU2", "NIC0", true},
		{LevelPXB, "", "", false},
	} {
		a, b, ok := topo.FirstPairAt(c.level)
		if a != c.a || b != c.b || ok != c.ok {
			t.Errorf("FirstPairAt(%v) = %q, %q, %v; want %q, %q, %v", c.level, a, b, ok, c.a, c.b, c.ok)
		}
	}
}
