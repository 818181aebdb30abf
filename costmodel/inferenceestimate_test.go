package costmodel

import (
	"errors"
	"strings"
	"testing"
)

func TestFillModelShape(t *testing.T) {
	got, err := FillModelShape("llama-3.1-70b", ModelShape{Layers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "llama-3.1-70b" || got.Layers != 2 || got.Hidden != 8192 || got.KVHeads != 8 || got.HeadDim != 128 || got.Source == "" {
		t.Errorf("filled shape = %+v: want the model's fields where none was given, layers 2 kept", got)
	}
	given := ModelShape{Hidden: 5}
	if got, err := FillModelShape("", given); err != nil || got != given {
		t.Errorf("no model: got %+v, %v; want the shape given", got, err)
	}
	if _, err := FillModelShape("gpt-9", ModelShape{}); err == nil {
		t.Error("an unknown model was accepted")
	}
}

func TestTPAllReduceEstimate(t *testing.T) {
	node, err := NodeByName("hgx-h200")
	if err != nil {
		t.Fatal(err)
	}
	q := TPAllReduceQuery{Shape: ModelShape{Hidden: 8192, Layers: 80}, Batch: 8, DType: "bf16", TP: 8, Node: node, Family: DefaultNCCL,
		Custom: CustomAllReduce{Launch: 3.68e-6, Flag: 0.6e-6, Beta: 390.6e9}, Backend: DefaultBackendQuery(8, 0)}
	r, err := q.Estimate()
	if err != nil {
		t.Fatal(err)
	}
	if r.Bytes != 8*8192*2 || r.AllReducesPerStep != 160 || r.PerStepTimeS["oneshot"] != 160*r.TimeS["oneshot"] || r.NCCLAlgorithm == "" || r.Backend == "" {
		t.Errorf("estimate = %+v", r)
	}
	q.Shape.Hidden = 0
	if _, err := q.Estimate(); !errors.Is(err, ErrParams) {
		t.Errorf("no hidden size: err = %v, want ErrParams", err)
	}
}

func TestKVTransferEstimate(t *testing.T) {
	q := KVTransferQuery{Shape: ModelShape{Layers: 80, KVHeads: 8, HeadDim: 128}, DType: "bf16", Tokens: 4096, Alpha: 1e-6, Beta: 50e9}
	r, err := q.Estimate()
	if err != nil {
		t.Fatal(err)
	}
	if r.BytesPerToken != 80*2*8*128*2 || r.PerLayerTimeS-r.TimeS < 78.9e-6 || len(r.Links) == 0 {
		t.Errorf("estimate = %+v", r)
	}
	for _, l := range r.Links {
		if strings.HasSuffix(l.Name, "-link") {
			t.Errorf("link %s is not a path a KV cache takes", l.Name)
		}
	}
	q.Shape.KVHeads = 0
	if _, err := q.Estimate(); !errors.Is(err, ErrParams) {
		t.Errorf("no kv heads: err = %v, want ErrParams", err)
	}
}
