package rdmatools

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/parse"
)

func fixtures(t testing.TB) []string {
	return golden.Inputs(t, 12, "testdata/*.txt", "testdata/public/*.txt")
}

// TestParseGolden holds each fixture's parse and summary in its golden
// file: the JSON report, the error, and the text a person reads.
func TestParseGolden(t *testing.T) {
	golden.Each(t, fixtures(t), golden.ReplaceExt, func(t *testing.T, data []byte) []byte {
		rep, perr := Parse(bytes.NewReader(data))
		out := struct {
			Error   string   `json:"error,omitempty"`
			Summary []string `json:"summary"`
			Report  *Report  `json:"report"`
		}{Report: rep, Summary: strings.Split(rep.String(), "\n")}
		if perr != nil {
			out.Error = perr.Error()
		}
		return golden.JSON(t, out, "  ")
	})
}

func TestParseFacts(t *testing.T) {
	cases := []struct {
		file    string
		tool    string
		wantErr error
		devices int
		ports   int
		active  int
		gids    int
		gidIdx  int // NCCLGIDIndex, -1 when none
		first   string
	}{
		{"ibstat_cx6dx_roce_l2fwd_issue6.txt", ToolIBStat, nil, 2, 2, 2, 0, -1, "mlx5_0/1 ACTIVE LINK_UP Ethernet 100 Gb/s"},
		{"ibstat_rate_2_5_lshca_issue79.txt", ToolIBStat, nil, 1, 1, 1, 0, -1, "mlx5_2/1 ACTIVE LINK_UP 2.5 Gb/s"},
		{"ibstat_mlx4_ib_two_ports_rdmacore_pr847_cut.txt", ToolIBStat, ErrTruncated, 1, 2, 1, 0, -1, "mlx4_0/1 DOWN DISABLED InfiniBand 10 Gb/s"},
		{"ibstat_cx7_mooncake_issue1999_cut.txt", ToolIBStat, ErrTruncated, 3, 3, 2, 0, -1, "mlx5_0/1 ACTIVE LINK_UP Ethernet 200 Gb/s"},
		{"devinfo_mlx4_ib_two_devices_books.txt", ToolIBVDevinfo, nil, 2, 4, 2, 0, -1, "mlx4_1/1 ACTIVE InfiniBand"},
		{"devinfo_v_mlx4_port2_books.txt", ToolIBVDevinfo, nil, 1, 1, 0, 1, -1, "mlx4_1/2 DOWN POLLING InfiniBand 10 Gb/s"},
		{"devinfo_azure_hbv2_pr44_cut.txt", ToolIBVDevinfo, ErrTruncated, 2, 1, 1, 0, -1, "rdmaP23800p0s2/1 ACTIVE Ethernet"},
		{"devinfo_grep_gid_types_nccl_issue769.txt", ToolIBVDevinfo, nil, 1, 1, 0, 4, 3, "port 0 LINK_UP"},
		{"showgids_cx6_spectrumscale_pr4.txt", ToolShowGIDs, nil, 0, 0, 0, 6, 5, ""},
		{"showgids_empty_pod_sriov_issue30.txt", ToolShowGIDs, nil, 0, 0, 0, 0, -1, ""},
		{"showgids_macvlan_nccl_issue1573_cut.txt", ToolShowGIDs, ErrTruncated, 0, 0, 0, 9, 7, ""},
		{"showgids_h100_indented_nccl_issue1131_rows.txt", ToolShowGIDs, nil, 0, 0, 0, 8, 3, ""},
		{"rdmalink_cx6dx_3fs_pr283.txt", ToolRDMALink, nil, 2, 2, 2, 0, -1, "mlx5_0/1 ACTIVE LINK_UP netdev p1p1"},
		{"rdmalink_rxe_3fs_issue263.txt", ToolRDMALink, nil, 1, 1, 1, 0, -1, "rxe_0/1 ACTIVE LINK_UP netdev p1p1"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := Detect(data); got != c.tool {
				t.Errorf("Detect = %q, want %q", got, c.tool)
			}
			rep, err := Parse(bytes.NewReader(data))
			if c.wantErr == nil && err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if c.wantErr != nil && !errors.Is(err, c.wantErr) {
				t.Fatalf("error = %v, want %v", err, c.wantErr)
			}
			if rep.Tool != c.tool || len(rep.Devices) != c.devices || len(rep.Ports()) != c.ports ||
				len(rep.ActivePorts()) != c.active || len(rep.AllGIDs()) != c.gids {
				t.Errorf("tool %q devices %d ports %d active %d gids %d, want %q %d %d %d %d", rep.Tool, len(rep.Devices),
					len(rep.Ports()), len(rep.ActivePorts()), len(rep.AllGIDs()), c.tool, c.devices, c.ports, c.active, c.gids)
			}
			idx, ok, msg := rep.NCCLGIDIndex()
			if (c.gidIdx >= 0) != ok || (ok && idx != c.gidIdx) {
				t.Errorf("NCCLGIDIndex = %d %v (%s), want %d", idx, ok, msg, c.gidIdx)
			}
			if c.first != "" {
				if got := rep.Ports()[0].String(); got != c.first {
					t.Errorf("first port = %q, want %q", got, c.first)
				}
			}
		})
	}
}

func TestGIDTypesAndIPv4(t *testing.T) {
	data, err := os.ReadFile("testdata/devinfo_grep_gid_types_nccl_issue769.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ParseIBVDevinfo(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ typ, ipv4 string }{{GIDTypeRoCEv1, ""}, {GIDTypeRoCEv2, ""}, {GIDTypeRoCEv1, "200.0.209.6"}, {GIDTypeRoCEv2, "200.0.209.6"}}
	gids := rep.AllGIDs()
	for i, w := range want {
		if gids[i].Type != w.typ || gids[i].IPv4 != w.ipv4 || gids[i].Index != i {
			t.Errorf("GID %d = %+v, want %s %q", i, gids[i], w.typ, w.ipv4)
		}
	}
	if len(rep.Warnings) != 2 || !strings.Contains(rep.Warnings[1], "no hca_id") {
		t.Errorf("warnings = %q", rep.Warnings)
	}
}

func TestNCCLGIDIndexDisagree(t *testing.T) {
	data, err := os.ReadFile("testdata/showgids_cx6_spectrumscale_pr4.txt")
	if err != nil {
		t.Fatal(err)
	}
	// The same table with mlx5_1's IPv4 GIDs two entries later.
	extra := "mlx5_1  1       7       0000:0000:0000:0000:0000:ffff:ac13:003d 172.19.0.61     v2      ens1f1\nn_gids_found=7\n"
	text := strings.Replace(string(data), "n_gids_found=6\n", extra, 1)
	rep, err := ParseShowGIDs(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, msg := rep.NCCLGIDIndex(); ok || msg != "ports disagree on the RoCE v2 IPv4 GID index: 5 on mlx5_0/1; 7 on mlx5_1/1" {
		t.Errorf("NCCLGIDIndex ok=%v %q", ok, msg)
	}
}

func TestParseBroken(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ibstat := read("ibstat_cx6dx_roce_l2fwd_issue6.txt")
	gids := read("showgids_cx6_spectrumscale_pr4.txt")
	link := read("rdmalink_cx6dx_3fs_pr283.txt")
	cases := []struct {
		name  string
		parse func(string) (*Report, error)
		input string
		kind  error
		line  int
	}{
		{"foreign", str(Parse), "GET / HTTP/1.1\nHost: example.com\n", parse.ErrFormat, 1},
		{"empty", str(Parse), "", parse.ErrFormat, 0},
		{"ibstat given show_gids", str(ParseIBStat), gids, parse.ErrFormat, 1},
		{"devinfo given ibstat", str(ParseIBVDevinfo), ibstat, parse.ErrFormat, 1},
		{"show_gids given rdma link", str(ParseShowGIDs), link, parse.ErrFormat, 1},
		{"rdma link given ibstat", str(ParseRDMALink), ibstat, parse.ErrFormat, 1},
		{"ibstat cut in port", str(Parse), strings.SplitAfter(ibstat, "Rate: 100\n")[0], ErrTruncated, 11},
		{"ibstat line without colon", str(Parse), strings.Replace(ibstat, "LMC: 0", "LMC 0", 1), ErrMalformed, 13},
		{"show_gids bad version", str(Parse), strings.Replace(gids, "v2      ens1f0\nmlx5_0  1       2", "v9      ens1f0\nmlx5_0  1       2", 1), ErrMalformed, 5},
		{"show_gids short row inside", str(Parse), strings.Replace(gids, "0e42:a1ff:fe5d:4db8                 v1", "", 1), ErrMalformed, 4},
		{"rdma link cut", str(Parse), strings.TrimSuffix(link, "p1p2 \n"), ErrTruncated, 3},
		// A damaged line between two good ones: reported, and what
		// follows it still read.
		{"rdma link damaged line inside", str(Parse), link + "lnk mlx5_2/1 state ACTIVE\nlink mlx5_3/1 state DOWN\n", ErrMalformed, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := c.parse(c.input)
			if !errors.Is(err, c.kind) {
				t.Fatalf("error = %v, want %v", err, c.kind)
			}
			var pe *parse.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *parse.Error", err)
			}
			if pe.Line != c.line {
				t.Errorf("error names line %d, want %d (%v)", pe.Line, c.line, err)
			}
			if rep == nil {
				t.Fatal("nil report")
			}
		})
	}
}

// Output of another command after the tool's own (ibstat -p after
// ibstat, a prompt after rdma link) is skipped with a warning, and the
// tool's output read whole; pdsh's host labels name each device's host.
func TestParseTrailingOutputAndHostLabels(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ibstat := read("ibstat_cx6dx_roce_l2fwd_issue6.txt")
	cases := []struct {
		name    string
		in      string
		devices int
		warn    string
	}{
		{"ibstat then ibstat -p", ibstat + "$ ibstat -p\n0x0c42a10300e39a22\n0x0c42a10300e39a23\n", 2, "after the ibstat output are not ibstat's (from \"$ ibstat -p\")"},
		{"ibstat then a port GUID alone", ibstat + "0x0c42a10300e39a22\n", 2, "line 35 after"},
		{"rdma link then a prompt", read("rdmalink_cx6dx_3fs_pr283.txt") + "hello\n", 2, "not rdma link's (from \"hello\")"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Parse(strings.NewReader(c.in))
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if len(rep.Devices) != c.devices || !strings.Contains(strings.Join(rep.Warnings, "\n"), c.warn) {
				t.Errorf("devices %d, warnings %q", len(rep.Devices), rep.Warnings)
			}
		})
	}

	var pdsh strings.Builder
	for _, host := range []string{"gpu-a", "gpu-b"} {
		for _, l := range strings.Split(strings.TrimRight(ibstat, "\n"), "\n") {
			pdsh.WriteString(host + ": " + l + "\n")
		}
	}
	rep, err := Parse(strings.NewReader(pdsh.String()))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tool != ToolIBStat || len(rep.Devices) != 4 || rep.Devices[0].Host != "gpu-a" || rep.Devices[3].Host != "gpu-b" || len(rep.ActivePorts()) != 4 {
		t.Errorf("pdsh ibstat: tool %q devices %+v", rep.Tool, rep.Devices)
	}
}

func str(f func(r io.Reader) (*Report, error)) func(string) (*Report, error) {
	return func(s string) (*Report, error) { return f(strings.NewReader(s)) }
}

func TestHTML(t *testing.T) {
	data, err := os.ReadFile("testdata/showgids_cx6_spectrumscale_pr4.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, _ := Parse(bytes.NewReader(data))
	h := rep.HTML()
	for _, w := range []string{"<table>", "172.19.0.60", "RoCE v2", "GID index 5 is RoCE v2 with IPv4 on 1 port"} {
		if !strings.Contains(h, w) {
			t.Errorf("HTML lacks %q:\n%s", w, h)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, path := range fixtures(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := Parse(bytes.NewReader(data))
		if rep == nil {
			t.Fatalf("nil report (err %v)", err)
		}
		if err != nil {
			var pe *parse.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *parse.Error: %v", err, err)
			}
		}
		_ = rep.String()
		_ = rep.HTML()
		rep.NCCLGIDIndex()
		if _, merr := json.Marshal(rep); merr != nil {
			t.Fatalf("report does not marshal: %v", merr)
		}
	})
}
