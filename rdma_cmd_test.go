package main

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/rdma"
)

// TestProbeRDMAWriteNoDevice: on a machine without an RDMA device,
// commlab probe rdma-write says so in one line and exits 1.
func TestProbeRDMAWriteNoDevice(t *testing.T) {
	if ents, _ := os.ReadDir("/sys/class/infiniband"); len(ents) > 0 {
		t.Skip("this machine has RDMA devices")
	}
	cache := t.TempDir()
	if _, err := rdma.Build(t.Context(), cache); errors.Is(err, probes.ErrUnavailable) {
		if os.Getenv("COMMLAB_REQUIRE_VERBS") == "1" {
			t.Fatalf("COMMLAB_REQUIRE_VERBS=1 but: %v", err)
		}
		t.Skipf("cannot build rdma_write: %v", err)
	}
	var out, errb bytes.Buffer
	code := dispatch([]string{"probe", "rdma-write", "--cache-dir", cache, "--sizes", "4K"}, &out, &errb)
	msg := errb.String()
	if code != 1 || out.Len() != 0 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "no RDMA device") ||
		!strings.HasPrefix(msg, "commlab probe rdma-write: ") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and one line saying there is no RDMA device", code, out.String(), msg)
	}
}

// TestProbeRDMAWriteOOBOnly runs both sides' out-of-band exchange on
// loopback through the command and checks each received what the other
// sent.
func TestProbeRDMAWriteOOBOnly(t *testing.T) {
	cache := t.TempDir()
	if _, err := rdma.Build(t.Context(), cache); errors.Is(err, probes.ErrUnavailable) {
		if os.Getenv("COMMLAB_REQUIRE_VERBS") == "1" {
			t.Fatalf("COMMLAB_REQUIRE_VERBS=1 but: %v", err)
		}
		t.Skipf("cannot build rdma_write: %v", err)
	}
	var out, errb bytes.Buffer
	code := dispatch([]string{"probe", "rdma-write", "--cache-dir", cache, "--oob-only", "--sizes", "4K"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := map[string]string{}
	for _, l := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(l); len(f) > 3 && f[1] == "oob" {
			lines[f[0]+" "+f[2]] = strings.Join(f[3:], " ")
		}
	}
	if lines["server sent"] == "" || lines["server sent"] != lines["client recv"] || lines["client sent"] != lines["server recv"] {
		t.Errorf("the sides disagree:\n%s", out.String())
	}
}
