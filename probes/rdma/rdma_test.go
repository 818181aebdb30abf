package rdma

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/commlab/commlab/probes"
)

// buildOrSkip builds rdma_write into a temporary cache. Without a C
// compiler or the libibverbs headers it skips, unless
// COMMLAB_REQUIRE_VERBS=1 (CI sets it) makes that a failure.
func buildOrSkip(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bin, err := Build(ctx, t.TempDir())
	if errors.Is(err, probes.ErrUnavailable) {
		if os.Getenv("COMMLAB_REQUIRE_VERBS") == "1" {
			t.Fatalf("COMMLAB_REQUIRE_VERBS=1 but: %v", err)
		}
		t.Skipf("cannot build %s: %v", Program.Name, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestOOBLoopback runs server and client on loopback in --oob-only mode:
// the same TCP exchange of QPN, PSN, LID, GID, rkey and address a real run
// makes, with made-up values and no device. Each side must receive exactly
// what the other sent.
func TestOOBLoopback(t *testing.T) {
	bin := buildOrSkip(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := MeasureWith(ctx, bin, Config{OOBOnly: true, GIDIndex: -1, GPU: -1, Sizes: []int64{4096, 1 << 20}, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("%v\nlogs: %q", err, run)
	}
	server, err := Parse(run.Logs["server"])
	if err != nil {
		t.Fatal(err)
	}
	client, err := Parse(run.Logs["client"])
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []*Output{server, client} {
		if o.Sent == "" || o.Recv == "" || !o.Done {
			t.Fatalf("incomplete exchange:\nserver:\n%s\nclient:\n%s", run.Logs["server"], run.Logs["client"])
		}
	}
	if server.Recv != client.Sent || client.Recv != server.Sent {
		t.Errorf("the sides disagree:\nserver sent %s\nclient recv %s\nclient sent %s\nserver recv %s", server.Sent, client.Recv, client.Sent, server.Recv)
	}
	if server.Sent == client.Sent {
		t.Errorf("both sides sent the same info %s", server.Sent)
	}
	for _, f := range []string{"qpn=", "psn=", "lid=", "gid=", "rkey=", "addr=0x", "len=1048576"} {
		if !strings.Contains(server.Sent, f) {
			t.Errorf("server sent %q, without %s", server.Sent, f)
		}
	}
	if len(run.Samples) != 0 {
		t.Errorf("an OOB-only run has samples: %+v", run.Samples)
	}
}

// TestNoDevice: without an RDMA device the program exits with status 3 and
// Measure wraps probes.ErrUnavailable with the reason in one line.
func TestNoDevice(t *testing.T) {
	if ents, _ := os.ReadDir("/sys/class/infiniband"); len(ents) > 0 {
		t.Skip("this machine has RDMA devices")
	}
	bin := buildOrSkip(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := MeasureWith(ctx, bin, Config{GIDIndex: -1, GPU: -1, Sizes: []int64{4096}})
	if !errors.Is(err, probes.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "no RDMA device") {
		t.Errorf("error %q: want one line naming the missing device", msg)
	}
}

func TestParse(t *testing.T) {
	out := `info device mlx5_0
info port 1
info link_layer Ethernet
info listening 18515
oob sent qpn=1 psn=2 lid=0 gid=00000000000000000000ffff0a000001 rkey=3 addr=0x1000 len=4096
oob recv qpn=4 psn=5 lid=0 gid=00000000000000000000ffff0a000002 rkey=6 addr=0x2000 len=4096
# result size_bytes iters usec gbps
result 4096 1000 200.000 20.480
result 1048576 1000 45000.500 23.301
done
`
	o, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if o.Info["device"] != "mlx5_0" || o.Info["link_layer"] != "Ethernet" || !o.Done || !strings.HasPrefix(o.Recv, "qpn=4 ") {
		t.Errorf("parsed %+v", o)
	}
	if len(o.Results) != 2 || o.Results[1] != (Result{Bytes: 1 << 20, Iters: 1000, USec: 45000.5, GBps: 23.301}) {
		t.Fatalf("results %+v", o.Results)
	}
	s := o.Results[0].Sample(-1, -1, "host")
	if s.Op != Op || s.MedianUS != 0.2 || s.AlgBW != 20.48 || s.Src != -1 {
		t.Errorf("sample %+v", s)
	}
	for _, bad := range []string{"result 4096 1000 200", "result x 1 1 1", "result 4096 0 1 1", "result 4096 1 -1 1"} {
		if _, err := Parse(bad + "\n"); err == nil || !strings.HasPrefix(err.Error(), "rdma: line 1: ") {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}

func TestErrUnavailableReason(t *testing.T) {
	err := errUnavailable("rdma_write: unavailable: no RDMA device (ibv_get_device_list is empty)\n")
	if !errors.Is(err, probes.ErrUnavailable) || err.Error() != "rdma: probes: unavailable: no RDMA device (ibv_get_device_list is empty)" {
		t.Errorf("%v", err)
	}
}
