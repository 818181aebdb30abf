package ucxlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/parse"
)

func fixtures(t testing.TB) []string {
	return golden.Inputs(t, 3, "testdata/*.log")
}

func TestParseGolden(t *testing.T) {
	golden.Each(t, fixtures(t), golden.ReplaceExt, func(t *testing.T, data []byte) []byte {
		l, err := Parse(bytes.NewReader(data))
		var sum bytes.Buffer
		if err := l.WriteSummary(&sum, "input"); err != nil {
			t.Fatal(err)
		}
		out := struct {
			Error   string   `json:"error,omitempty"`
			Summary []string `json:"summary"`
			Log     *Log     `json:"log"`
		}{Summary: strings.Split(strings.TrimRight(sum.String(), "\n"), "\n"), Log: l}
		if err != nil {
			out.Error = err.Error()
		}
		return golden.JSON(t, out, " ")
	})
}

// Our own NIXL run: its two agents reach each other over TCP on loopback
// and every GPU-memory put and get is emulated through the CPU.
func TestNIXLRunOverTCP(t *testing.T) {
	data, err := os.ReadFile("testdata/nixl_kv_h100x1_ucx.log")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if l.Version != "1.23.0" || len(l.Configs) != 4 {
		t.Fatalf("version %q, %d configs", l.Version, len(l.Configs))
	}
	if got := strings.Join(l.Transports(), " "); got != "tcp/lo cma/memory" {
		t.Errorf("transports %q", got)
	}
	picks := l.GPUPicks()
	if len(picks) == 0 {
		t.Fatal("no GPU-memory protocol")
	}
	for _, p := range picks {
		if !p.Emulated() || p.Transports != "tcp/lo" || p.To != -1 {
			t.Errorf("%s %s: %s over %s", p.Operation, p.Bounds(), p.Description, p.Transports)
		}
	}
}

func TestParseForms(t *testing.T) {
	cases := []struct {
		in, config string
	}{
		{"ucp_context_0 inter-node cfg#2 rma_am(tcp/eth1) amo_am(tcp/eth1) am(tcp/eth1) ka(tcp/eth1)", "ucp_context_0 inter-node cfg#2 rma_am(tcp/eth1) amo_am(tcp/eth1) am(tcp/eth1) ka(tcp/eth1)"},
		{"[1700000000.000001] [node1:12:0]     ucp_worker.c:1877 UCX  INFO  ep_cfg[1]: tag(rc_mlx5/mlx5_0:1 rc_mlx5/mlx5_1:1) rma(rc_mlx5/mlx5_0:1)", "ep_cfg[1] tag(rc_mlx5/mlx5_0:1 rc_mlx5/mlx5_1:1) rma(rc_mlx5/mlx5_0:1)"},
		{"[1.2] [h:1:0] ucp_worker.c:1 UCX  INFO    self cfg#0 tag(self/memory cuda_copy/cuda)", "self cfg#0 tag(self/memory cuda_copy/cuda)"},
	}
	for _, c := range cases {
		l, err := Parse(strings.NewReader(c.in + "\n"))
		if err != nil || len(l.Configs) != 1 || l.Configs[0].String() != c.config {
			t.Errorf("%q: %v %+v", c.in, err, l.Configs)
		}
	}
	if _, err := Parse(strings.NewReader("nothing from UCX\n")); !errors.Is(err, parse.ErrFormat) || !errors.Is(err, ErrNoUCX) {
		t.Errorf("no UCX: %v", err)
	}
	bad := "[1.0] [h:1:0]   | gpu self cfg#0 |\n[1.0] [h:1:0]   | remote memory write by ucp_put* from cuda/GPU0 to host |\n[1.0] [h:1:0]   | Range | Description | Config |\n[1.0] [h:1:0]   | x..y | zero-copy | cuda_copy/cuda |\n[1.0] [h:1:0]   | 0..inf | zero-copy | cuda_copy/cuda |\n"
	l, err := Parse(strings.NewReader(bad))
	var pe *parse.Error
	if !errors.As(err, &pe) || pe.Line != 4 || !errors.Is(err, ErrMalformed) {
		t.Errorf("bad row: %v", err)
	}
	if len(l.Protocols) != 1 || len(l.Protocols[0].Ranges) != 1 {
		t.Errorf("the good row after a bad one is lost: %+v", l.Protocols)
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
		l, err := Parse(bytes.NewReader(data))
		if l == nil {
			t.Fatalf("nil log (err %v)", err)
		}
		if err != nil {
			var pe *parse.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *parse.Error: %v", err, err)
			}
		}
		if _, merr := json.Marshal(l); merr != nil {
			t.Fatalf("log does not marshal: %v", merr)
		}
		if err := l.WriteSummary(&bytes.Buffer{}, "f"); err != nil {
			t.Fatal(err)
		}
	})
}
