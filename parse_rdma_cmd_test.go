package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const rdmaTestdata = "parse/rdmatools/testdata/"

func TestParseRDMACLISummaries(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"rdma detects show_gids", []string{"parse", "rdma", rdmaTestdata + "showgids_cx6_spectrumscale_pr4.txt"},
			[]string{"show_gids, 6 GIDs on 1 device", "GID[5] RoCE v2 172.19.0.60 (ens1f0)", "NCCL_IB_GID_INDEX=5"}},
		{"rdma detects ibstat", []string{"parse", "rdma", rdmaTestdata + "ibstat_cx6dx_roce_l2fwd_issue6.txt"},
			[]string{"ibstat, 2 devices, 2 ports (2 active)", "mlx5_1/1 ACTIVE LINK_UP Ethernet 100 Gb/s"}},
		{"ibv-devinfo", []string{"parse", "ibv-devinfo", rdmaTestdata + "devinfo_grep_gid_types_nccl_issue769.txt"},
			[]string{"GID[3] RoCE v2 200.0.209.6", "NCCL_IB_GID_INDEX=3", "no hca_id line"}},
		{"ibstat", []string{"parse", "ibstat", rdmaTestdata + "ibstat_rate_2_5_lshca_issue79.txt"},
			[]string{"mlx5_2/1 ACTIVE LINK_UP 2.5 Gb/s"}},
		{"show-gids", []string{"parse", "show-gids", rdmaTestdata + "showgids_h100_indented_nccl_issue1131_rows.txt"},
			[]string{"8 GIDs on 2 devices", "on 2 ports -> NCCL_IB_GID_INDEX=3"}},
		{"rdma-link", []string{"parse", "rdma-link", rdmaTestdata + "rdmalink_cx6dx_3fs_pr283.txt"},
			[]string{"mlx5_1/1 ACTIVE LINK_UP netdev p1p2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(c.args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestParseRDMACLIJSON(t *testing.T) {
	code, out, errs := runCLI("parse", "rdma", "--json", rdmaTestdata+"devinfo_mlx4_ib_two_devices_books.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got []struct {
		Report struct {
			Tool    string `json:"tool"`
			Devices []struct {
				Name  string `json:"name"`
				Ports []struct {
					State     string `json:"state"`
					LinkLayer string `json:"link_layer"`
				} `json:"ports"`
			} `json:"devices"`
		} `json:"report"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	r := got[0].Report
	if r.Tool != "ibv_devinfo" || len(r.Devices) != 2 || r.Devices[1].Name != "mlx4_0" ||
		r.Devices[0].Ports[1].State != "DOWN" || r.Devices[0].Ports[0].LinkLayer != "InfiniBand" {
		t.Errorf("report = %+v", r)
	}
}

func TestParseRDMACLIErrors(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "foreign.txt")
	if err := os.WriteFile(foreign, []byte("hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		args    []string
		code    int
		stderr  string
		partial string
	}{
		{"foreign rdma", []string{"parse", "rdma", foreign}, 2, "rdmatools: line 1: not the output of ibstat, ibv_devinfo, show_gids or rdma link", ""},
		{"show_gids given to ibstat", []string{"parse", "ibstat", rdmaTestdata + "showgids_cx6_spectrumscale_pr4.txt"}, 2, "ibstat: line 1: not ibstat output", ""},
		{"ibstat given to ibv-devinfo", []string{"parse", "ibv-devinfo", rdmaTestdata + "ibstat_cx6dx_roce_l2fwd_issue6.txt"}, 2, "not ibv_devinfo output", ""},
		{"truncated show_gids", []string{"parse", "show-gids", rdmaTestdata + "showgids_macvlan_nccl_issue1573_cut.txt"}, 1,
			"show_gids: line 13: last row is cut", "NCCL_IB_GID_INDEX=7"},
		{"truncated ibstat", []string{"parse", "rdma", rdmaTestdata + "ibstat_cx7_mooncake_issue1999_cut.txt"}, 1,
			"line 45: mlx5_10 port 1 ends before \"Rate\"", "mlx5_10/1 DOWN DISABLED"},
		{"no files", []string{"parse", "rdma-link"}, 2, "no input files", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, c.code, errs)
			}
			if !strings.Contains(errs, c.stderr) {
				t.Errorf("stderr %q lacks %q", errs, c.stderr)
			}
			if c.code == 2 && strings.Contains(strings.TrimSpace(errs), "\n") {
				t.Errorf("stderr is more than one line: %q", errs)
			}
			if c.partial != "" && !strings.Contains(out, c.partial) {
				t.Errorf("partial result %q not printed:\n%s", c.partial, out)
			}
		})
	}
}
