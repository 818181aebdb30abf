package costmodel_test

import (
	"os"
	"strings"
	"testing"

	"github.com/commlab/commlab/costmodel"
)

// A notebook prints a collective's prediction as `commlab model` does.
func ExampleCollectivePlan_WriteText() {
	plan, err := costmodel.CollectiveQuery{Collective: "all_reduce", Size: "1GB", Ranks: 8, Bandwidth: "100GB/s", Latency: "5us"}.Plan()
	if err != nil {
		panic(err)
	}
	rows, err := plan.Predict(nil)
	if err != nil {
		panic(err)
	}
	plan.WriteText(os.Stdout, rows, false)
	// Output:
	// all_reduce, ring/ideal, 8 GPUs on 1 node(s), alpha 5 µs, beta 100 GB/s one-way
	// size    1 GB (1,000,000,000 bytes)
	// time    17.57 ms = 70 µs latency + 17.5 ms bandwidth (bandwidth-bound)
	// algbw   56.92 GB/s
	// busbw   99.6 GB/s
	// crossover 4 MB: below it the latency term dominates
}

// The KV cache of a named model, and its transfer over the link presets:
// the header lines, then one row per preset.
func TestKVTransferText(t *testing.T) {
	shape, err := costmodel.FillModelShape("llama-3-70b", costmodel.ModelShape{})
	if err != nil {
		t.Fatal(err)
	}
	bw, _ := costmodel.ParseBandwidth("400Gb/s")
	r, err := costmodel.KVTransferQuery{Shape: shape, DType: "bf16", Tokens: 4096, Beta: bw.OneWay()}.Estimate()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	r.WriteText(&b)
	for _, want := range []string{
		"llama-3.1-70b KV cache, bf16: 80 layers x 2 x 8 kv heads x 128 x 2 B = 320 KiB per token\n",
		"4,096 tokens: 1.25 GiB (16 MiB per layer)\n",
		"at 50 GB/s: 26.84 ms at once, 26.84 ms layer by layer (80 messages)\n",
		"\nib-ndr          47 GB/s         28.56 ms",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	if rows := strings.Count(b.String(), "\n") - 6; rows != len(r.Links) {
		t.Errorf("%d preset rows, want %d", rows, len(r.Links))
	}
}
