package c10dlab

import (
	"slices"
	"testing"

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
