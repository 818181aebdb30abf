package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/parse/dmesg"
	"github.com/commlab/commlab/parse/flightrec"
)

func kernelLogOf(t *testing.T, name, text string) KernelLog {
	t.Helper()
	if text == "" {
		b, err := os.ReadFile(filepath.Join("..", "parse", "dmesg", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		text = string(b)
	}
	l, err := dmesg.Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return KernelLog{Name: name, Log: l}
}

// TestKernelForms: each driver form the kernel-log check reads, from the
// public logs in parse/dmesg/testdata (SOURCES.md there) and issue 40's
// mlx5 netdev line.
func TestKernelForms(t *testing.T) {
	cases := []struct {
		file, text string
		want       Status
		says       string
	}{
		{"rocm744_mlx5_cable_unplugged.txt", "", Fail, "module 0 unplugged on 0000:08:00.0: Cable unplugged"},
		{"jishuzhan_mlx5_plugged_link_up.txt", "", OK, ""},
		{"armnas16_mlx5_module_power.txt", "", OK, ""},
		{"gpuburn1_aer_fatal_xid79.txt", "", Fail, "a GPU fell off the bus"},
		{"lede11302_igc_link_flap_syslog.txt", "", Warn, "flapped: eth5 link DOWN"},
		{"nvtrust124_nvswitch_sxid.txt", "", Warn, "SXid 22013 on nvidia-nvswitch3"},
		{"gpud1174_xid_nvlink_kmsg.txt", "", Fail, "[Xid 149: NVLink NETIR error (NVLINK_NETIR_ERROR)]"},
		{"issue40", "[ 9912.100201] mlx5_core 0000:98:00.1 enp152s0f1np1: Link down\n", Fail, "enp152s0f1np1 link DOWN (mlx5_core 0000:98:00.1)"},
		{"aer-fatal-only", "[74889.542031] pcieport 0000:00:02.0: AER: Uncorrected (Fatal) error received: id=0010\n", Fail, "PCIe AER fatal error at 0000:00:02.0"},
		{"power", "mlx5_core 0000:01:00.0: mlx5_pcie_event:326: Detected insufficient power on the PCIe slot (27W).\n", Warn, "insufficient power"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			v := CheckKernel(&Evidence{Kernel: []KernelLog{kernelLogOf(t, c.file, c.text)}})
			if v.Status != c.want || !strings.Contains(v.Summary, c.says) {
				t.Errorf("%v %q; want %v saying %q", v.Status, v.Summary, c.want, c.says)
			}
		})
	}
}

// A link that went down 3 s after the stalled collective was enqueued is
// put beside it (dmesg -T carries the wall clock; the dump the time).
func TestKernelBesideCollective(t *testing.T) {
	k := kernelLogOf(t, "t", "[Tue Dec  1 21:40:04 2026] mlx5_core 0000:98:00.1 enp152s0f1np1: Link down\n")
	created := time.Date(2026, 12, 1, 21, 40, 1, 0, time.UTC)
	d := &flightrec.Dump{Rank: 3, Entries: []flightrec.Entry{
		{ProfilingName: "nccl:all_reduce", CollectiveSeqID: 41, State: flightrec.StateCompleted, TimeCreatedNs: created.Add(-time.Second).UnixNano()},
		{ProfilingName: "nccl:all_reduce", CollectiveSeqID: 42, State: flightrec.StateStarted, TimeCreatedNs: created.UnixNano()},
	}}
	v := CheckKernel(&Evidence{Kernel: []KernelLog{k}, FlightRecorder: []*flightrec.Dump{d}})
	if v.Status != Fail || !strings.Contains(v.Summary, "[3s after the first unfinished collective]") {
		t.Errorf("%v %q", v.Status, v.Summary)
	}
	if !strings.Contains(strings.Join(v.Evidence, "\n"), "nccl:all_reduce seq 42 on rank 3") {
		t.Errorf("evidence %q", v.Evidence)
	}
}
