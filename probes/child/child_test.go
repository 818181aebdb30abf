package child

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/cuda"
	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/probes/nccl"
	"github.com/commlab/commlab/units"
)

// TestMain makes this test binary a stand-in for commlab's hidden verb
// when asked: Serve with a fake copy measurement.
func TestMain(m *testing.M) {
	if os.Getenv("CHILD_TEST_SERVE") != "" {
		measureBandwidth = func(cfg cuda.BandwidthConfig) (*probes.Run, error) {
			run := &probes.Run{Kind: "bandwidth", Date: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
			for _, b := range cfg.Sizes {
				run.Samples = append(run.Samples, probes.Sample{Op: cuda.OpD2D, Bytes: b, MedianUS: 1})
			}
			if os.Getenv("CHILD_TEST_SERVE") == "fail" {
				return nil, errors.New("cuda: no device")
			}
			return run, nil
		}
		if err := Serve(context.Background(), os.Stdin, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestRunServesTheRequest(t *testing.T) {
	for _, tt := range []struct {
		mode, wantErr string
		samples       int
	}{
		{mode: "ok", samples: 2},
		{mode: "fail", wantErr: "cuda: no device"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			t.Setenv("CHILD_TEST_SERVE", tt.mode)
			req := Request{Probe: Bandwidth, Bandwidth: cuda.BandwidthConfig{Sizes: []int64{1 << 20, 4 << 20}}}
			var log strings.Builder
			run, err := Run(context.Background(), req, Options{Command: []string{os.Args[0]}, Log: &log})
			if tt.wantErr != "" {
				if run != nil || err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("run %v, error %v; want none and %q", run, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v (log: %s)", err, log.String())
			}
			if len(run.Samples) != tt.samples || !slices.Equal(run.Command, []string{"commlab", "probe", "bandwidth", "-b", "1M", "-e", "4M", "-f", "4"}) {
				t.Errorf("run: %d samples, command %q", len(run.Samples), run.Command)
			}
		})
	}
}

func TestArgv(t *testing.T) {
	defer func(e func() (string, error)) { executable = e }(executable)
	for _, tt := range []struct {
		name    string
		opt     Options
		exe     string
		want    []string
		noChild bool
	}{
		{name: "this commlab", exe: "/usr/local/bin/commlab", want: []string{"/usr/local/bin/commlab", Verb}},
		{name: "a named binary", opt: Options{Exe: "/opt/commlab"}, exe: "/tmp/x.test", want: []string{"/opt/commlab", Verb}},
		{name: "a stand-in", opt: Options{Command: []string{"/opt/worker", "--nccl"}}, exe: "/tmp/x.test", want: []string{"/opt/worker", "--nccl"}},
		{name: "not commlab", exe: "/tmp/go-build1/measure.test", noChild: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			executable = func() (string, error) { return tt.exe, nil }
			got, err := tt.opt.argv()
			if tt.noChild {
				if !errors.Is(err, ErrNoChild) || !strings.Contains(err.Error(), "this process is measure.test") {
					t.Errorf("error %v, want ErrNoChild naming measure.test", err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("argv %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestCommand(t *testing.T) {
	sweep := func(lo, hi, f int64) []int64 { s, _ := units.Sweep(lo, hi, f); return s }
	ncs := nccl.DefaultSettings()
	ncs.DebugSubsys = "INIT,GRAPH,ENV,TUNING,NET"
	ncs.Sizes = sweep(8, 1<<30, 4)
	doctorSweep, err := ncs.Config()
	if err != nil {
		t.Fatal(err)
	}
	defaults := nccl.DefaultSettings()
	defaults.Sizes = sweep(nccl.DefaultMinBytes, nccl.DefaultMaxBytes, nccl.DefaultFactor)
	plain, err := defaults.Config()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		req  Request
		want string
	}{
		{Request{Probe: Bandwidth}, "commlab probe bandwidth"},
		{Request{Probe: Bandwidth, Bandwidth: cuda.BandwidthConfig{Sizes: cuda.DefaultSizes()}}, "commlab probe bandwidth"},
		{Request{Probe: Bandwidth, Bandwidth: cuda.BandwidthConfig{Sizes: sweep(64<<20, 256<<20, 4), Devices: []int{0, 1}}}, "commlab probe bandwidth -b 64M -e 256M -f 4 --devices 0,1"},
		{Request{Probe: Bandwidth, Bandwidth: cuda.BandwidthConfig{Sizes: []int64{4096, 1000}}}, "commlab probe bandwidth --sizes 4K,1000"},
		{Request{Probe: NCCL, NCCL: plain}, "commlab probe nccl"},
		{Request{Probe: NCCL, NCCL: doctorSweep}, "commlab probe nccl -b 8 -e 512M -f 4 --debug-subsys INIT,GRAPH,ENV,TUNING,NET"},
		{Request{Probe: NCCL, NCCL: plain, TopologyEdit: "no-nvlink"}, "commlab probe nccl --topo-edit no-nvlink"},
		{Request{Probe: NCCLTests, Tool: launch.Tool{Args: []string{"-b", "8", "-g", "2"}}}, "commlab probe nccl-tests -- -b 8 -g 2"},
		{Request{Probe: TorchScript}, "commlab probe torch --script"},
		{Request{Probe: C10d, C10d: C10dSettings{Backend: "gloo", ScriptArgs: []string{"--world", "4"}}}, "commlab probe c10d --backend gloo -- --world 4"},
	} {
		if got := strings.Join(tt.req.Command(), " "); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.req.Probe, got, tt.want)
		}
	}
}

// A launch plan runs the PyTorch reference's script out of the binary on
// every node.
func ExampleRequest_CommandFor() {
	fmt.Println(Request{Probe: TorchScript}.CommandFor("/shared/bin/commlab"))
	// Output: [/shared/bin/commlab probe torch --script]
}
