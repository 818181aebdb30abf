package costmodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestFlagErrorTextNamesFlags(t *testing.T) {
	tests := []struct {
		q    CollectiveQuery
		want string
	}{
		{CollectiveQuery{Collective: "all_reduce", Size: "abc"}, `--size: units: bad size "abc"`},
		{CollectiveQuery{Collective: "all_reduce", Size: "1M", Nodes: 0, Given: []Option{OptionNodes}}, "--nodes 0: need at least 1 node"},
	}
	for _, tc := range tests {
		_, err := tc.q.Plan()
		if err == nil || !strings.HasPrefix(FlagErrorText(err), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.q, err, tc.want)
		}
	}
	if FlagErrorText(errors.New("plain")) != "plain" {
		t.Error("an error of no input")
	}
	for o, f := range QueryFlags {
		if got, ok := OptionOfFlag(strings.TrimLeft(f, "-")); !ok || got != o {
			t.Errorf("OptionOfFlag(%s) = %v, %v", f, got, ok)
		}
	}
	presets, links := UsageLines()
	if len(presets) != len(Nodes()) || len(links) == 0 {
		t.Errorf("UsageLines: %d presets, %d links", len(presets), len(links))
	}
}

// TestQueryFlagSet holds commlab model's flags to the query: every input
// QueryFlags names is a flag, a flag left at its default stays out of
// Given, and --nccl and --thread-gpus count only when given.
func TestQueryFlagSet(t *testing.T) {
	tests := []struct {
		args []string
		want CollectiveQuery
	}{
		{[]string{"--size", "1M"}, CollectiveQuery{Collective: "all_reduce", Algorithm: "ring", Nodes: 1, Size: "1M", Given: []Option{OptionSize}}},
		{[]string{"--algo", "auto", "--size", "1M", "--nvls=false", "--nccl", "2.21.5", "--thread-gpus", "8"},
			CollectiveQuery{Collective: "all_reduce", Algorithm: "auto", Nodes: 1, Size: "1M", NVLSOff: true, NCCL: "2.21.5", ThreadGPUs: 8,
				Given: []Option{OptionAlgorithm, OptionNCCL, OptionNVLS, OptionSize, OptionThreadGPUs}}},
		{[]string{"-n", "4", "--sweep", "8B:8GB", "--bw", "25GB/s", "--nodes", "2", "--preset", "hgx-h100", "--table"},
			CollectiveQuery{Collective: "all_reduce", Algorithm: "ring", Ranks: 4, Nodes: 2, Sweep: "8B:8GB", Bandwidth: "25GB/s", Preset: "hgx-h100", Table: true,
				Given: []Option{OptionBandwidth, OptionRanks, OptionNodes, OptionPreset, OptionSweep, OptionTable}}},
	}
	for _, tc := range tests {
		fs := flag.NewFlagSet("model", flag.ContinueOnError)
		var qf QueryFlagSet
		qf.AddFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		got := qf.Query(fs, "all_reduce")
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.args, got, tc.want)
		}
	}
	fs := flag.NewFlagSet("model", flag.ContinueOnError)
	var qf QueryFlagSet
	qf.AddFlags(fs)
	for o, name := range QueryFlags {
		if fs.Lookup(strings.TrimLeft(name, "-")) == nil {
			t.Errorf("QueryFlags names %s for %s, which AddFlags does not define", name, o)
		}
	}
}

// TestModelWriters holds the model verbs' two forms: text, and JSON that
// reads back (one object for a size, a list for a sweep).
func TestModelWriters(t *testing.T) {
	plan, err := CollectiveQuery{Collective: "all_reduce", Sweep: "1K,1M", Preset: "hgx-h200"}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := plan.Predict(nil)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := KVTransferQuery{Shape: ModelShape{Layers: 2, KVHeads: 8, HeadDim: 128}, DType: "bf16", Tokens: 16, Beta: 50}.Estimate()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		write func(w io.Writer, asJSON bool) error
		into  any
	}{
		{"sweep", func(w io.Writer, j bool) error { return plan.WriteResults(w, rows, true, j) }, &[]map[string]any{}},
		{"one size", func(w io.Writer, j bool) error { return plan.WriteResults(w, rows[:1], false, j) }, &map[string]any{}},
		{"kv", kv.Write, &map[string]any{}},
	}
	for _, tc := range tests {
		var text, js bytes.Buffer
		if err := tc.write(&text, false); err != nil || text.Len() == 0 || strings.HasPrefix(text.String(), "{") || strings.HasPrefix(text.String(), "[") {
			t.Errorf("%s: text %q (%v)", tc.name, text.String(), err)
		}
		if err := tc.write(&js, true); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(js.Bytes(), tc.into); err != nil || !strings.HasPrefix(js.String(), "{\n  ") && !strings.HasPrefix(js.String(), "[\n  ") {
			t.Errorf("%s: JSON does not read back indented (%v):\n%s", tc.name, err, js.String())
		}
	}
}

func TestBackendQueryFlags(t *testing.T) {
	tests := []struct {
		args []string
		want BackendQuery
	}{
		{nil, BackendQuery{P2P: true, Capability: "9.0", FullNVLink: true, CustomAR: true, TorchSymmMem: true}},
		{[]string{"--cc", "10.0", "--full-nvlink=false", "--multi-node", "--graph", "--custom=false", "--torch-symm-mem=false", "--nccl-symm-mem", "--flashinfer"},
			BackendQuery{P2P: true, Capability: "10.0", MultiNode: true, CUDAGraph: true, NCCLSymmMem: true, FlashInfer: true}},
	}
	for _, tc := range tests {
		fs := flag.NewFlagSet("tp-allreduce", flag.ContinueOnError)
		b := BackendQuery{P2P: true}
		b.AddFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(b, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.args, b, tc.want)
		}
	}
}
