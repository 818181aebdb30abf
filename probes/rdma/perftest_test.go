package rdma

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/commlab/commlab/parse/perftest"
	"github.com/commlab/commlab/probes"
)

func TestPerftestArgs(t *testing.T) {
	for _, tc := range []struct {
		name         string
		cfg          PerftestConfig
		size         int64
		port         int
		server, clnt string
	}{
		{"defaults", PerftestConfig{GIDIndex: -1, UseCUDA: -1}, 0, 0,
			"-F", "-F 127.0.0.1"},
		{"size, iters, port", PerftestConfig{GIDIndex: -1, UseCUDA: -1, Iters: 2000}, 65536, 18515,
			"-s 65536 -n 2000 -p 18515 -F", "-s 65536 -n 2000 -p 18515 -F 127.0.0.1"},
		{"device, GID index, use_cuda", PerftestConfig{Device: "mlx5_0", IBPort: 1, GIDIndex: 3, UseCUDA: 0}, 1 << 20, 0,
			"-d mlx5_0 -i 1 -x 3 -s 1048576 --use_cuda=0 -F", "-d mlx5_0 -i 1 -x 3 -s 1048576 --use_cuda=0 -F 127.0.0.1"},
		{"all sizes win over a size, gbits, extra", PerftestConfig{GIDIndex: 0, UseCUDA: 2, All: true, ReportGbits: true, Extra: []string{"-q", "2"}}, 4096, 7000,
			"-x 0 -a --use_cuda=2 --report_gbits -p 7000 -F -q 2", "-x 0 -a --use_cuda=2 --report_gbits -p 7000 -F -q 2 127.0.0.1"},
		{"latency tool takes no --report_gbits", PerftestConfig{Tool: "ib_write_lat", GIDIndex: -1, UseCUDA: -1, ReportGbits: true}, 8, 0,
			"-s 8 -F", "-s 8 -F 127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(tc.cfg.ServerArgs(tc.size, tc.port), " "); got != tc.server {
				t.Errorf("server %q, want %q", got, tc.server)
			}
			if got := strings.Join(tc.cfg.ClientArgs("127.0.0.1", tc.size, tc.port), " "); got != tc.clnt {
				t.Errorf("client %q, want %q", got, tc.clnt)
			}
		})
	}
}

// recorded is a public ib_write_bw --report_gbits report (perftest issue
// #273; parse/perftest/testdata/SOURCES.md).
const recorded = "../../parse/perftest/testdata/write_bw_gbits_postlist_issue273.txt"

func TestPerftestSamplesFromRecordedReport(t *testing.T) {
	f, err := os.Open(recorded)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := perftest.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	got := PerftestSamples(rep, -1)
	// 0.48 Gb/s average is 0.06 GB/s; 8 bytes at that rate take 0.1333 us.
	want := []probes.Sample{{Op: "rdma_write_bw", Bytes: 8, Iters: 224958464, Src: -1, Dst: -1, Ranks: 2, Wrong: -1, Label: "host",
		AlgBW: 0.06, BusBW: 0.06, MedianUS: 8 / 0.06e9 * 1e6, MaxUS: 8 / 0.06e9 * 1e6, MinUS: 8 / 0.06e9 * 1e6}}
	if len(got) != 1 || !sameSample(got[0], want[0]) {
		t.Errorf("samples\n%+v\nwant\n%+v", got, want)
	}
	if s := PerftestSamples(rep, 1); s[0].Src != 1 || s[0].Label != "cuda:1" {
		t.Errorf("--use_cuda=1 sample %+v", s[0])
	}
}

func sameSample(a, b probes.Sample) bool {
	near := func(x, y float64) bool { return x == y || (x-y)*(x-y) < 1e-18 }
	if !near(a.AlgBW, b.AlgBW) || !near(a.BusBW, b.BusBW) || !near(a.MedianUS, b.MedianUS) || !near(a.MinUS, b.MinUS) || !near(a.MaxUS, b.MaxUS) {
		return false
	}
	a.AlgBW, a.BusBW, a.MedianUS, a.MinUS, a.MaxUS = 0, 0, 0, 0, 0
	b.AlgBW, b.BusBW, b.MedianUS, b.MinUS, b.MaxUS = 0, 0, 0, 0, 0
	return reflect.DeepEqual(a, b)
}

func TestPerftestToolMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Perftest(context.Background(), PerftestConfig{GIDIndex: -1, UseCUDA: -1})
	if !errors.Is(err, probes.ErrUnavailable) || !strings.Contains(err.Error(), "ib_write_bw is not installed") || !strings.Contains(err.Error(), "perftest") {
		t.Errorf("err %v", err)
	}
	if _, err := Perftest(context.Background(), PerftestConfig{Tool: "ib_atomic_lat"}); err == nil || errors.Is(err, probes.ErrUnavailable) {
		t.Errorf("unknown tool: err %v", err)
	}
	if _, err := Perftest(context.Background(), PerftestConfig{Listen: ":1", Connect: "a:1"}); err == nil {
		t.Error("listen and connect: no error")
	}
}

// fakeTool puts a stand-in ib_write_bw on PATH: the server sleeps a
// moment, the client (last argument a host) prints the recorded report.
func fakeTool(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs(recorded)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := `#!/bin/sh
for last in "$@"; do :; done
case "$last" in
--version) echo "Version: 6.10" ;;
127.0.0.1) cat '` + abs + `' ;;
*) sleep 0.2; echo "* Waiting for client to connect... *" ;;
esac
`
	if err := os.WriteFile(filepath.Join(dir, "ib_write_bw"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

func TestPerftestRunsBothSides(t *testing.T) {
	fakeTool(t)
	checkDevice = func(context.Context, PerftestConfig) error { return nil }
	defer func() { checkDevice = CheckDevice }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := Perftest(ctx, PerftestConfig{GIDIndex: 2, UseCUDA: 0, Sizes: []int64{8, 64}, Iters: 100})
	if err != nil {
		t.Fatalf("%v\n%+v", err, run)
	}
	if len(run.Samples) != 2 || run.Samples[0].Op != "rdma_write_bw" || run.Samples[0].Label != "cuda:0" || run.Samples[0].AlgBW <= 0 {
		t.Errorf("samples %+v", run.Samples)
	}
	if run.Tool != "perftest ib_write_bw 6.10" || run.Settings["memory"] != "--use_cuda=0" || run.Settings["device"] != "ib0" || run.Settings["gid_index"] != "2" {
		t.Errorf("provenance: tool %q settings %v", run.Tool, run.Settings)
	}
	for _, k := range []string{"server_command 8", "client_command 64"} {
		if !strings.Contains(run.Settings[k], "-x 2") || !strings.Contains(run.Settings[k], "--use_cuda=0") {
			t.Errorf("%s = %q", k, run.Settings[k])
		}
	}
	if !strings.HasSuffix(run.Settings["client_command 64"], " 127.0.0.1") {
		t.Errorf("client command %q", run.Settings["client_command 64"])
	}
	// A saved run parses again from its logs.
	run.Samples = nil
	if _, err := PerftestReparse(run); err != nil || len(run.Samples) != 2 {
		t.Errorf("reparse: %v, %d samples", err, len(run.Samples))
	}
}

func TestPerftestNoDevice(t *testing.T) {
	if _, err := os.Stat("/sys/class/infiniband"); err == nil {
		t.Skip("this machine has RDMA devices")
	}
	fakeTool(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := Perftest(ctx, PerftestConfig{GIDIndex: -1, UseCUDA: -1, CacheDir: t.TempDir()})
	if !errors.Is(err, probes.ErrUnavailable) || !strings.Contains(err.Error(), "no RDMA device") || strings.Contains(err.Error(), "\n") {
		t.Errorf("err %v", err)
	}
}

func TestSysfsDevices(t *testing.T) {
	if err := sysfsDevices(fstest.MapFS{"infiniband/mlx5_0/ports/1/state": {Data: []byte("4: ACTIVE\n")}}); err != nil {
		t.Errorf("with mlx5_0: %v", err)
	}
	if err := sysfsDevices(fstest.MapFS{"net/eth0/address": {}}); !errors.Is(err, probes.ErrUnavailable) {
		t.Errorf("without: %v", err)
	}
}
