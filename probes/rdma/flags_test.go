package rdma

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestConfigCheckFlags(t *testing.T) {
	ok := Config{Iters: 10, Timeout: time.Second}
	tests := []struct {
		cfg      Config
		gpuIndex int
		want     string
	}{
		{ok, 0, ""},
		{Config{Iters: 0, Timeout: time.Second}, 0, "--iters and --timeout must be positive"},
		{ok, -1, "--gpu-index not negative"},
		{Config{Iters: 1, Timeout: time.Second, Listen: ":1", Connect: "a:1"}, 0, "--server and --connect name the two machines' sides"},
	}
	for i, tc := range tests {
		err := tc.cfg.CheckFlags(tc.gpuIndex)
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d: %v, want %q", i, err, tc.want)
		}
	}
}

func TestPerftestCheckFlags(t *testing.T) {
	base := PerftestConfig{Tool: "ib_write_bw", Timeout: time.Minute, UseCUDA: -1}
	tests := []struct {
		edit func(*PerftestConfig)
		want string
	}{
		{func(*PerftestConfig) {}, ""}, // not installed here is no error yet
		{func(c *PerftestConfig) { c.Iters = -1 }, "--iters must not be negative"},
		{func(c *PerftestConfig) { c.UseCUDA = -2 }, "--use-cuda a CUDA device or -1"},
		{func(c *PerftestConfig) { c.Listen, c.Connect = ":1", "a:1" }, "--server and --connect"},
		{func(c *PerftestConfig) { c.All, c.Sizes = true, []int64{8} }, "--all runs every size"},
		{func(c *PerftestConfig) { c.Tool = "ping" }, `perftest tool "ping"`},
	}
	for i, tc := range tests {
		cfg := base
		tc.edit(&cfg)
		err := cfg.CheckFlags()
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d: %v, want %q", i, err, tc.want)
		}
	}
}

func TestWritePerftestCommands(t *testing.T) {
	var out bytes.Buffer
	if err := WritePerftestCommands(&out, PerftestConfig{Tool: "ib_write_bw", Sizes: []int64{4096}, Port: 18515}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "server: ib_write_bw") || !strings.HasPrefix(lines[1], "client: ib_write_bw") || !strings.Contains(lines[0], "4096") {
		t.Errorf("commands:\n%s", out.String())
	}
}
