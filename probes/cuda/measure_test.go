package cuda

import (
	"maps"
	"slices"
	"testing"

	"github.com/commlab/commlab/probes"
)

// h200 is Open's answer on the lab's H200 machines (libcudart 13.0,
// driver 580.159.04, L2 60 MiB), with n devices.
func h200(n int) *Info {
	info := &Info{Library: "libcudart.so.13", Driver: "13.0", Runtime: "13.0", DriverRelease: "580.159.04"}
	for range n {
		info.Devices = append(info.Devices, "NVIDIA H200")
		info.SMCounts = append(info.SMCounts, 132)
		info.L2Bytes = append(info.L2Bytes, 62914560)
	}
	return info
}

// The settings a run records are the values the measurement uses: a zero
// config is resolved to its defaults before anything is written.
func TestProvenanceResolvesDefaults(t *testing.T) {
	var bw BandwidthConfig
	run := bandwidthProvenance(h200(2), &bw)
	want := map[string]string{
		"sizes":   "4096,16384,65536,262144,1048576,4194304,16777216,67108864,268435456,1073741824",
		"ops":     "h2d_pinned,d2h_pinned,h2d_pageable,d2h_pageable,d2d,p2p_write,p2p_read,p2p_write_bidir,p2p_read_bidir",
		"devices": "0,1", "warmup": "3", "iters": "10", "reps": "7",
		"library": "libcudart.so.13", "timing": bandwidthTiming, "pageable_host_memory": pageableHostMemory,
		probes.SettingL2Bytes: "62914560",
	}
	if !maps.Equal(run.Settings, want) {
		t.Errorf("bandwidth settings\n got %v\nwant %v", run.Settings, want)
	}
	if run.Kind != "bandwidth" || run.GPUModel != "NVIDIA H200" || run.GPUCount != 2 || run.Driver != "580.159.04" || run.CUDA != "13.0" || run.Date.IsZero() || run.Samples != nil {
		t.Errorf("bandwidth run %+v", run)
	}
	// The config measured with is the one recorded.
	if !slices.Equal(bw.Devices, []int{0, 1}) || bw.Warmup != 3 || bw.Iters != 10 || bw.Reps != 7 || len(bw.Sizes) != 10 || len(bw.Ops) != len(AllCopyOps) {
		t.Errorf("resolved bandwidth config %+v", bw)
	}

	var lat LatencyConfig
	run = latencyProvenance(h200(1), &lat)
	want = map[string]string{
		"device": "0", "warmup": "50", "iters": "200", "reps": "11", "graph_kernels": "100",
		"kernel": latencyKernel, "library": "libcudart.so.13", probes.SettingL2Bytes: "62914560",
	}
	if !maps.Equal(run.Settings, want) {
		t.Errorf("latency settings\n got %v\nwant %v", run.Settings, want)
	}
	if run.Kind != "latency" || run.GPUCount != 1 || lat.Warmup != 50 || lat.GraphKernels != 100 {
		t.Errorf("latency run %+v, config %+v", run, lat)
	}

	// Values set are kept.
	bw = BandwidthConfig{Sizes: []int64{1 << 20}, Ops: []string{OpD2D}, Devices: []int{1}, Warmup: 1, Iters: 2, Reps: 3}
	run = bandwidthProvenance(h200(2), &bw)
	for k, v := range map[string]string{"sizes": "1048576", "ops": "d2d", "devices": "1", "warmup": "1", "iters": "2", "reps": "3"} {
		if run.Settings[k] != v {
			t.Errorf("bandwidth %s = %q, want %q", k, run.Settings[k], v)
		}
	}
	lat = LatencyConfig{Device: 1, Iters: 20, Reps: 3, GraphKernels: 10}
	if s := latencyProvenance(h200(2), &lat).Settings; s["device"] != "1" || s["iters"] != "20" || s["reps"] != "3" || s["graph_kernels"] != "10" || s["warmup"] != "50" {
		t.Errorf("latency settings %v", s)
	}
}

// A chapter's live run and the recorded run it stands in for carry the
// same settings: every setting of a recorded run has the value a live run
// with the same flags records (the recorded runs predate sizes, ops and
// devices, which live runs add).
func TestProvenanceMatchesRecordedRuns(t *testing.T) {
	pcie := []string{OpH2DPinned, OpD2HPinned, OpH2DPageable, OpD2HPageable, OpD2D}
	tests := []struct {
		file string
		live func() *probes.Run
	}{
		// commlab probe bandwidth -b 4K -e 1G -f 4 --devices 0 --ops ... (chapter 2)
		{"copies-h200x1", func() *probes.Run {
			return bandwidthProvenance(h200(1), &BandwidthConfig{Sizes: DefaultSizes(), Ops: pcie, Devices: []int{0}, Warmup: 3, Iters: 10, Reps: 7})
		}},
		{"bandwidth-vs-torch-h200x1", func() *probes.Run {
			return bandwidthProvenance(&Info{Library: "libcudart.so.13"}, &BandwidthConfig{Ops: pcie, Devices: []int{0}})
		}},
		// commlab probe latency
		{"latency-h200x1", func() *probes.Run {
			return latencyProvenance(&Info{Library: "libcudart.so.13"}, &LatencyConfig{Iters: 200, Reps: 11, GraphKernels: 100})
		}},
	}
	for _, tt := range tests {
		rec, err := probes.LoadRun("../recorded/data/" + tt.file + ".json")
		if err != nil {
			t.Fatal(err)
		}
		live := tt.live()
		if live.Kind != rec.Kind {
			t.Errorf("%s: kind %q, recorded %q", tt.file, live.Kind, rec.Kind)
		}
		for k, v := range rec.Settings {
			if got, ok := live.Settings[k]; !ok || got != v {
				t.Errorf("%s: setting %s: live %q (recorded %v), recorded %q", tt.file, k, got, ok, v)
			}
		}
	}
}
