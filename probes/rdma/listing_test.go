package rdma

import (
	"slices"
	"strings"
	"testing"
)

func TestListing(t *testing.T) {
	for _, tt := range []struct {
		name        string
		first, last string
		contains    []string
	}{
		{"setup", "/* setup allocates", "}", []string{"ibv_alloc_pd", "ibv_reg_mr", "ibv_create_cq", "IBV_QPT_RC", "IBV_QPS_INIT"}},
		{"connect_qp", "/* connect_qp moves", "}", []string{"IBV_QPS_RTR", "IBV_QPS_RTS", "dest_qp_num", "is_global", "hop_limit = 255"}},
		{"write_burst", "/* write_burst posts", "}", []string{"IBV_WR_RDMA_WRITE", "ibv_post_send", "ibv_poll_cq", "rkey"}},
		{"conn_info", "/* conn_info is", "};", []string{"qpn", "rkey", "gid[16]", "addr"}},
		{"open_device", "/* open_device picks", "}", []string{"ibv_get_device_list", "IBV_PORT_ACTIVE", "choose_gid_index("}},
	} {
		got, err := Listing(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(got, "\n")
		if !strings.HasPrefix(lines[0], tt.first) || lines[len(lines)-1] != tt.last {
			t.Errorf("%s: starts %q, ends %q", tt.name, lines[0], lines[len(lines)-1])
		}
		for _, c := range tt.contains {
			if !strings.Contains(got, c) {
				t.Errorf("%s: no %q", tt.name, c)
			}
		}
	}
	if _, err := Listing("no_such_function"); err == nil || !strings.Contains(err.Error(), "setup") {
		t.Errorf("unknown name: %v", err)
	}
	defs := Definitions()
	for _, want := range []string{"choose_gid_index", "open_device", "setup", "connect_qp", "write_burst", "conn_info", "main"} {
		if !slices.Contains(defs, want) {
			t.Errorf("definitions %v lack %s", defs, want)
		}
	}
	if n := SourceLines(); n < 300 || n != strings.Count(string(Program.Source), "\n") {
		t.Errorf("SourceLines %d", n)
	}
}

func TestListingBlanked(t *testing.T) {
	got, err := ListingBlanked("write_burst", ".wr.rdma")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "peer->rkey") || !strings.Contains(got, ".wr.rdma = { /* ??? */ }") {
		t.Errorf("write_burst not blanked:\n%s", got)
	}
	if full, _ := Listing("write_burst"); len(strings.Split(full, "\n")) != len(strings.Split(got, "\n")) {
		t.Errorf("blanking changed the number of lines")
	}
	if _, err := ListingBlanked("write_burst", ".wr.no_such"); err == nil {
		t.Error("a missing field gave no error")
	}
	if _, err := ListingBlanked("no_such_function", ".wr.rdma"); err == nil {
		t.Error("a missing function gave no error")
	}
}
