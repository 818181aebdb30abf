package doctor

import (
	"strings"
	"testing"

	"github.com/commlab/commlab/parse/nccllog"
	"github.com/commlab/commlab/parse/nccltests"
	"github.com/commlab/commlab/parse/nvidiasmi"
	"github.com/commlab/commlab/probes/recorded"
)

// publicCurve reads a published nccl-tests excerpt whose header was left
// out of the post, told its collective as the post's launch file names it,
// with the NCCL log lines the same text carries.
func publicCurve(t *testing.T, name, collective, from string, nodes int) (Curve, *nccllog.Log) {
	t.Helper()
	pub, err := recorded.Public(name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := nccltests.Parse(strings.NewReader(pub.Text))
	if err != nil || len(res.Runs) != 1 {
		t.Fatalf("%s: %v, %d runs", name, err, len(res.Runs))
	}
	res.Runs[0].Told(collective, from)
	c, err := CurveFromNCCLTests(&res.Runs[0])
	if err != nil {
		t.Fatal(err)
	}
	c.Nodes = nodes
	lg, err := nccllog.Parse(strings.NewReader(pub.Text))
	if err != nil {
		t.Fatal(err)
	}
	return c, lg
}

// TestPublishedSocketFallbackAndEFA judges the two runs aws-do-eks posted
// on the same two one-GPU EFA nodes: the EFA device not given to the pods
// (NCCL fell back to its Socket transport) and given (aws-ofi-nccl). The
// networks come from the INFO lines, the rank count from the columns once
// the collective is told, the 0-byte rows stay out of the floor, and the
// EFA curve's 1 MiB, slower than 2 MiB on a flat stretch of busbw, is a
// dip the neighbour test alone does not see.
func TestPublishedSocketFallbackAndEFA(t *testing.T) {
	cases := []struct {
		file, network string
		floorBytes    float64
		dipAt         string // "" for no dip
	}{
		{"awsdoeks_karpenter_efa_disabled_socket_excerpt.txt", "tcp", 4, ""},
		{"awsdoeks_karpenter_efa_enabled_libfabric_excerpt.txt", "efa", 4, "dip at 1 MiB: 1 MiB takes 1.434 ms, 1.30x the 1.099 ms that 2 MiB takes"},
	}
	for _, tc := range cases {
		c, lg := publicCurve(t, tc.file, "all_reduce", "the MPIJob's command (all_reduce_perf)", 2)
		if fam, _ := NetworkFromLog(lg); fam != tc.network {
			t.Errorf("%s: network %q from the log, want %q", tc.file, fam, tc.network)
		}
		if c.Ranks != 2 || c.Points[0].Bytes != tc.floorBytes {
			t.Errorf("%s: %d ranks, first size %v B; want 2 ranks from 4 B", tc.file, c.Ranks, c.Points[0].Bytes)
		}
		rep, err := JudgeCurve(c, CurveSetup{Network: tc.network, NetworkFrom: "NCCL's log"}, DefaultCurveOptions())
		if err != nil {
			t.Fatal(err)
		}
		var dips []string
		for _, v := range rep.Verdicts {
			if v.Check == BranchDip && v.Status == Warn {
				dips = append(dips, v.Summary)
			}
		}
		switch {
		case tc.dipAt == "" && len(dips) > 0:
			t.Errorf("%s: dips %q, want none", tc.file, dips)
		case tc.dipAt != "" && (len(dips) != 1 || dips[0] != tc.dipAt):
			t.Errorf("%s: dips %q, want %q", tc.file, dips, tc.dipAt)
		}
	}
}

// TestSlowerThanLarger: a flat stretch of busbw whose last size takes
// longer than the next one is a dip; a size a little slower than a larger
// one (noise) is not; a dip the neighbour test found is not named twice.
func TestSlowerThanLarger(t *testing.T) {
	curve := func(us ...float64) Curve {
		c := Curve{Collective: "all_reduce", Ranks: 2}
		for i, t := range us {
			b := float64(int(1) << (20 + i))
			c.Points = append(c.Points, CurvePoint{Bytes: b, TimeUs: t, BusBW: b / t / 1e3})
		}
		return c
	}
	opt := DefaultCurveOptions()
	none := func(int) bool { return false }
	if got := slowerThanLarger(curve(100, 200, 400, 300, 500, 1000), nil, opt, none); len(got) != 1 || got[0].first != 2 || got[0].last != 2 {
		t.Errorf("flat then faster: %+v, want one dip at index 2", got)
	}
	if got := slowerThanLarger(curve(100, 200, 400, 390, 800), nil, opt, none); len(got) != 0 {
		t.Errorf("2.5%% slower (noise): %+v, want none", got)
	}
	if got := slowerThanLarger(curve(100, 200, 400, 300, 500), []dipRun{{2, 2, 2}}, opt, none); len(got) != 0 {
		t.Errorf("inside a found dip: %+v, want none", got)
	}
}

// TestPublishedNICOnTheOtherSocket judges nccl-tests#293's two runs on
// servers whose only NIC sits on the other socket from the GPU: with
// GPUDirect RDMA forced to SYS the gdr check warns that it was forced and
// the curve has a 9x inversion at 1 MiB; with NCCL's distance limit kept
// (PXB) GPUDirect is off for distance only, a warning about the placement
// rather than a failure of the module, and 512 KiB is slower than 1 MiB.
func TestPublishedNICOnTheOtherSocket(t *testing.T) {
	topo, err := recorded.Public("ncclt293_a100pcie_topo_nic_other_socket.txt")
	if err != nil {
		t.Fatal(err)
	}
	m, err := nvidiasmi.ParseTopoMatrixString(topo.Text)
	if err != nil {
		t.Fatal(err)
	}
	if cell, _ := m.Cell("GPU0", "NIC0"); cell != "SYS" {
		t.Fatalf("GPU0 to NIC0 %q, want SYS", cell)
	}
	for _, tc := range []struct {
		file, gdr, dip string
	}{
		{"ncclt293_2.21.5_a100pcie_gdr_sys_excerpt.txt", "[warn] nic/gdr: GPUDirect RDMA forced past NCCL's default distance (NCCL_NET_GDR_LEVEL=SYS set by environment)",
			"dip at 256 KiB to 1 MiB: 1 MiB takes 3.332 ms, 9.12x the 365.5 µs that 2 MiB takes"},
		{"ncclt293_2.21.5_a100pcie_nps4_gdr_pxb_excerpt.txt", "[warn] nic/gdr: NCCL sent over NET/IBext_v8/0 without GPUDirect RDMA because the NIC is beyond PXB from its GPU",
			"dip at 512 KiB: 512 KiB takes 230.9 µs, 1.40x the 165.1 µs that 1 MiB takes"},
	} {
		pub, err := recorded.Public(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		out, err := JudgeLoggedOutput(pub.Text, "", "", CurveSetup{}, m.Topology())
		if err != nil {
			t.Fatal(err)
		}
		if got := out.Log[1].String(); !strings.HasPrefix(got, tc.gdr) {
			t.Errorf("%s: %s\nwant it to start with %s", tc.file, got, tc.gdr)
		}
		var dips []string
		for _, v := range out.Report.Verdicts {
			if v.Check == BranchDip && v.Status == Warn {
				dips = append(dips, v.Summary)
			}
		}
		if len(dips) != 1 || dips[0] != tc.dip {
			t.Errorf("%s: dips %q, want %q", tc.file, dips, tc.dip)
		}
		if c := out.Report.Curve; c.Ranks != 2 || c.Nodes != 2 || c.NCCL != "2.21.5+cuda12.4" {
			t.Errorf("%s: %d ranks, %d nodes, NCCL %q", tc.file, c.Ranks, c.Nodes, c.NCCL)
		}
	}
}

// TestGDRUnknownWhereOnlyTheNetworkIsNamed: aws-do-eks's two posted runs
// name their network ("Using network Socket", "Using network AWS
// Libfabric") and nothing else of NIC or GPU: under sockets GPUDirect RDMA
// does not apply; under the RDMA plugin whether it was used is unknown.
func TestGDRUnknownWhereOnlyTheNetworkIsNamed(t *testing.T) {
	for _, tc := range []struct{ file, gdr string }{
		{"awsdoeks_karpenter_efa_disabled_socket_excerpt.txt", "[skipped] nic/gdr: no RDMA NIC in the evidence"},
		{"awsdoeks_karpenter_efa_enabled_libfabric_excerpt.txt", "[skipped] nic/gdr: NCCL chose AWS Libfabric but the evidence shows neither its connections"},
	} {
		pub, err := recorded.Public(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		out, err := JudgeLoggedOutput(pub.Text, "all_reduce", "", CurveSetup{Nodes: 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, v := range out.Log {
			if v.Check == "gdr" {
				got = v.String()
			}
		}
		if !strings.HasPrefix(got, tc.gdr) {
			t.Errorf("%s: %s\nwant it to start with %s", tc.file, got, tc.gdr)
		}
	}
}
