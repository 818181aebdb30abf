package topograph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes"
)

func TestShowFormats(t *testing.T) {
	topo := loadRecorded(t)
	ctx := context.Background()
	var text, dot, js bytes.Buffer
	for _, c := range []struct {
		show Show
		out  *bytes.Buffer
	}{{Show{}, &text}, {Show{DOT: true}, &dot}, {Show{JSON: true, DOT: true}, &js}} {
		if err := c.show.Write(ctx, topo, c.out); err != nil {
			t.Fatal(err)
		}
	}
	if text.String() != Text(topo) || dot.String() != DOT(topo) {
		t.Error("text or DOT differ from Text and DOT")
	}
	var back probes.Topology
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.GPUs) != len(topo.GPUs) || !bytes.HasPrefix(js.Bytes(), []byte("{\n  \"")) {
		t.Errorf("JSON (%v):\n%.200s", err, js.String())
	}
}

// topoSource is a Source that returns what it holds.
type topoSource struct {
	topo *probes.Topology
	err  error
}

func (s topoSource) Topology(context.Context) (*probes.Topology, error) { return s.topo, s.err }

func TestRead(t *testing.T) {
	full := loadRecorded(t)
	sysfsOnly := &probes.Topology{NUMANodes: full.NUMANodes}
	if len(sysfsOnly.NUMANodes) == 0 {
		sysfsOnly.NUMANodes = make([]probes.NUMANode, 1)
	}
	unavailable := fmt.Errorf("nvml: %w", probes.ErrUnavailable)
	other := errors.New("nvml: broken")
	tests := []struct {
		name string
		src  topoSource
		want *probes.Topology
		err  error
		warn string
	}{
		{"read", topoSource{full, nil}, full, nil, ""},
		{"no driver, sysfs read", topoSource{sysfsOnly, unavailable}, sysfsOnly, nil,
			"no NVIDIA driver/GPU on this machine: nvml: probes: unavailable\nshowing what sysfs gave.\n"},
		{"no driver, nothing", topoSource{&probes.Topology{}, unavailable}, nil, ErrNothingRead, "no NVIDIA driver/GPU on this machine: "},
		{"failed", topoSource{nil, other}, nil, other, ""},
	}
	for _, tc := range tests {
		var warn bytes.Buffer
		got, err := Read(context.Background(), tc.src, &warn)
		if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) || !strings.HasPrefix(warn.String(), tc.warn) || tc.warn == "" && warn.Len() > 0 {
			t.Errorf("%s: %p, %v; warned %q", tc.name, got, err, warn.String())
		}
	}
}
