package perftest

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/parse"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fixtures(t testing.TB) []string {
	return golden.Inputs(t, 1, "testdata/*.txt", "testdata/*.json", "testdata/public/*.txt")
}

func TestParseGolden(t *testing.T) {
	golden.Each(t, fixtures(t), golden.ReplaceExt, func(t *testing.T, data []byte) []byte {
		rep, perr := Parse(bytes.NewReader(data))
		out := struct {
			Error  string  `json:"error,omitempty"`
			Report *Report `json:"report"`
		}{Report: rep}
		if perr != nil {
			out.Error = perr.Error()
		}
		return golden.JSON(t, out, "  ")
	})
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestParseFacts(t *testing.T) {
	cases := []struct {
		file       string
		wantErr    error
		title      string
		kind, verb string
		device     string
		link       string
		gid        int
		unit       string
		rows       int
		avg        float64 // first row's average in the printed unit
		avgBps     float64 // and in bytes per second
		cuda       bool
	}{
		{"write_bw_gbits_postlist_issue273.txt", nil, "RDMA_Write Post List BW Test", "bandwidth", "write", "ib0", "Ethernet", 2, "Gb/sec", 1, 0.48, 0.48 * 125e6, false},
		{"atomic_bw_mb_pib_issue4.txt", nil, "Atomic CMP_AND_SWAP BW Test", "bandwidth", "atomic", "pib_1", "IB", -1, "MB/sec", 1, 1.67, 1.67 * 1048576, false},
		{"synthetic_atomic_bw_mib_label.txt", nil, "Atomic CMP_AND_SWAP BW Test", "bandwidth", "atomic", "pib_1", "IB", -1, "MiB/sec", 1, 1.67, 1.67 * 1048576, false},
		{"write_bw_mb_server_issue234_cut.txt", ErrTruncated, "RDMA_Write BW Test", "bandwidth", "write", "mlx5_0", "Ethernet", 3, "MB/sec", 0, 0, 0, false},
		{"write_bw_use_cuda_pr21_cut.txt", ErrTruncated, "RDMA_Write BW Test", "bandwidth", "write", "mlx5_2", "Ethernet", 3, "", 0, 0, 0, true},
		{"synthetic_write_bw_strict_json_from_issue273.json", nil, "RDMA_Write Post List BW Test", "bandwidth", "write", "ib0", "Ethernet", 2, "Gb/sec", 1, 0.48, 0.48 * 125e6, false},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Parse(bytes.NewReader(data))
			if c.wantErr == nil && err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if c.wantErr != nil && !errors.Is(err, c.wantErr) {
				t.Fatalf("error = %v, want %v", err, c.wantErr)
			}
			if rep.Title != c.title || rep.Kind != c.kind || rep.Verb != c.verb {
				t.Errorf("title/kind/verb = %q %q %q", rep.Title, rep.Kind, rep.Verb)
			}
			if rep.Device != c.device || rep.LinkType != c.link || rep.GIDIndex != c.gid {
				t.Errorf("device/link/gid = %q %q %d, want %q %q %d", rep.Device, rep.LinkType, rep.GIDIndex, c.device, c.link, c.gid)
			}
			if rep.Unit != c.unit || rep.UseCUDA != c.cuda {
				t.Errorf("unit/cuda = %q %v, want %q %v", rep.Unit, rep.UseCUDA, c.unit, c.cuda)
			}
			if len(rep.Bandwidth) != c.rows {
				t.Fatalf("%d bandwidth rows, want %d", len(rep.Bandwidth), c.rows)
			}
			if c.rows > 0 {
				b := rep.Bandwidth[0]
				if !near(b.Average, c.avg) || !near(b.AverageBytesPerSecond, c.avgBps) {
					t.Errorf("average = %v (%v B/s), want %v (%v B/s)", b.Average, b.AverageBytesPerSecond, c.avg, c.avgBps)
				}
			}
		})
	}
}

func TestParseCUDAAndAddresses(t *testing.T) {
	data, err := os.ReadFile("testdata/write_bw_use_cuda_pr21_cut.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Parse(bytes.NewReader(data))
	var pe *parse.Error
	if !errors.As(err, &pe) || !errors.Is(err, ErrTruncated) {
		t.Fatalf("error = %v, want a truncation parse.Error", err)
	}
	if rep.CUDADevice != 0 || rep.CUDADeviceName != "Tesla V100-SXM2-32GB" {
		t.Errorf("CUDA device = %d %q", rep.CUDADevice, rep.CUDADeviceName)
	}
	if len(rep.Addresses) != 2 || rep.Addresses[0].QPN != "0x00e2" || rep.Addresses[1].Side != "remote" ||
		!strings.HasPrefix(rep.Addresses[0].GID, "00:00") {
		t.Errorf("addresses = %+v", rep.Addresses)
	}
	if rep.MTU != 1024 || rep.QPs != 1 || rep.Settings["CQ Moderation"] != "100" || rep.Settings["rdma_cm QPs"] != "OFF" {
		t.Errorf("settings = %+v (mtu %d qps %d)", rep.Settings, rep.MTU, rep.QPs)
	}
	if len(rep.Warnings) == 0 || !strings.HasPrefix(rep.Warnings[0], "$ ~/perftest/ib_write_bw") {
		t.Errorf("the pasted command should be kept as a warning: %q", rep.Warnings)
	}
}

func TestParseLatency(t *testing.T) {
	for _, file := range []string{"write_lat_unquoted_issue216.json", "synthetic_write_lat_text_from_issue216.txt"} {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Parse(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Kind != "latency" || rep.Verb != "write" || rep.Device != "rxe0" || rep.GIDIndex != 1 || rep.MTU != 1024 {
				t.Errorf("header = %q %q %q gid %d mtu %d", rep.Kind, rep.Verb, rep.Device, rep.GIDIndex, rep.MTU)
			}
			want := Latency{Bytes: 128, Iterations: 5000, Min: 2.37, Max: 5.39, Typical: 2.42, Average: 2.42, Stdev: 0.05, P99: 2.47, P999: 4.03}
			if len(rep.Latency) != 1 {
				t.Fatalf("%d latency rows", len(rep.Latency))
			}
			got := rep.Latency[0]
			got.Line = 0
			if got != want {
				t.Errorf("latency = %+v, want %+v", got, want)
			}
		})
	}
}

func TestParseBroken(t *testing.T) {
	gbits, err := os.ReadFile("testdata/write_bw_gbits_postlist_issue273.txt")
	if err != nil {
		t.Fatal(err)
	}
	lat, err := os.ReadFile("testdata/write_lat_unquoted_issue216.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		input string
		kind  error
		line  int
	}{
		{"foreign", "GET / HTTP/1.1\nHost: example.com\n", parse.ErrFormat, 1},
		{"empty", "", parse.ErrFormat, 0},
		{"ends in header", string(gbits[:200]), ErrTruncated, 0},
		{"ends after table header", strings.SplitAfter(string(gbits), "MsgRate[Mpps]\n")[0], ErrTruncated, 17},
		{"row cut", strings.SplitAfter(string(gbits), "0.00  ")[0], ErrTruncated, 18},
		{"row not numbers", strings.Replace(string(gbits), "7.498617", "7.49x", 1), ErrMalformed, 18},
		{"header cut", "                    RDMA_Write Latency Test\n #bytes #iterat", ErrTruncated, 2},
		{"header unknown", "                    RDMA_Write Latency Test\n #bytes foo\n 2 3\n", ErrMalformed, 2},
		{"json cut", string(lat[:len(lat)-40]), ErrTruncated, 0},
		{"json foreign", `{"a": 1}`, parse.ErrFormat, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Parse(strings.NewReader(c.input))
			if !errors.Is(err, c.kind) {
				t.Fatalf("error = %v, want %v", err, c.kind)
			}
			var pe *parse.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *parse.Error", err)
			}
			if c.line > 0 && pe.Line != c.line {
				t.Errorf("error names line %d, want %d (%v)", pe.Line, c.line, err)
			}
			if rep == nil {
				t.Fatal("nil report")
			}
		})
	}
}

func TestTruncatedKeepsHeader(t *testing.T) {
	data, err := os.ReadFile("testdata/write_bw_mb_server_issue234_cut.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Parse(bytes.NewReader(data))
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("error = %v", err)
	}
	if rep.Device != "mlx5_0" || rep.Unit != "MB/sec" || len(rep.Addresses) != 2 {
		t.Errorf("partial report lost its header: %+v", rep)
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
		if _, merr := json.Marshal(rep); merr != nil {
			t.Fatalf("report does not marshal: %v", merr)
		}
	})
}
