package c10dlab

import (
	"slices"
	"strings"
	"testing"

	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/probes"
)

func TestScriptFlags(t *testing.T) {
	for _, tc := range []struct {
		command []string
		want    []string
	}{
		{[]string{"python3", "c10d_lab.py", "--out", "/tmp/x", "--backend", "nccl"}, nil},
		{[]string{"python3", "c10d_lab.py", "--out", "/tmp/x", "--backend", "nccl", "--modes", "unset,1,3"}, []string{"--modes", "unset,1,3"}},
		{[]string{"python3", "c10d_lab.py", "--parts", "timeout", "--timeout=2", "--world", "4", "--out", "o"}, []string{"--timeout", "2", "--world", "4"}},
		{[]string{"python3", "c10d_lab.py", "--keep-work", "--out", "o"}, []string{"--keep-work"}},
		{nil, nil},
	} {
		if got := scriptFlags(tc.command); !slices.Equal(got, tc.want) {
			t.Errorf("scriptFlags(%q) = %q, want %q", tc.command, got, tc.want)
		}
	}
}

func TestRunOfKeepsScriptFlags(t *testing.T) {
	s := &summary{ScriptHeader: probes.ScriptHeader{
		Command:  []string{"python3", "c10d_lab.py", "--out", "/tmp/x", "--backend", "nccl", "--modes", "unset,1,3"},
		Settings: map[string]string{"backend": "nccl", "parts": "store,timeout"},
	}}
	want := []string{"commlab", "probe", "c10d", "--backend", "nccl", "--parts", "store,timeout", "--", "--modes", "unset,1,3"}
	if got := runOf(s).Command; !slices.Equal(got, want) {
		t.Errorf("command %q, want %q", got, want)
	}
}

// TestTimeoutTable holds the heading and the per-mode table of both
// recorded timeout runs (gloo on CPU ranks, NCCL on one H200) to a golden
// file: what chapter 5 shows under "The watchdog, made to fire".
func TestTimeoutTable(t *testing.T) {
	var b strings.Builder
	for _, name := range []string{RecordedCPU, RecordedH200} {
		r, err := Recorded(name)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(name + "\n" + r.Timeout.Heading() + "\n" + r.Timeout.Table().Markdown() + "\n")
	}
	golden.Check(t, "testdata/timeout_tables.golden", []byte(b.String()))
}

func TestSaidDropsGlooLocation(t *testing.T) {
	m := Mark{What: "wait() raised", Error: "[/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 5000ms for recv operation to complete"}
	if got := said(m); got != "raised Timed out waiting 5000ms for recv operation to complete" {
		t.Errorf("said = %q", got)
	}
	if got := said(Mark{What: "wait() returned"}); got != "wait() returned" {
		t.Errorf("said without error = %q", got)
	}
}
