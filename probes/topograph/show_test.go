package topograph

import (
	"bytes"
	"context"
	"encoding/json"
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
