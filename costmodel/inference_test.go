package costmodel

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestTPDecodeAccount(t *testing.T) {
	m, err := ModelShapeByName("llama-3-70b")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		batch, tp          int
		arBytes, stepBytes float64
	}{
		// 8 sequences x 8192 x 2 B = 128 KiB, the core question's all_reduce.
		{8, 8, 131072, 131072 * 160},
		{1, 8, 16384, 16384 * 160},
		{64, 4, 1048576, 1048576 * 160},
	} {
		a, err := TPDecode{Batch: c.batch, Hidden: m.Hidden, DTypeBytes: 2, TP: c.tp, Layers: m.Layers}.Account()
		if err != nil {
			t.Fatal(err)
		}
		if a.AllReduceBytes != c.arBytes || a.PerStepBytes != c.stepBytes || a.AllReducesPerStep != 160 || a.AllReducesPerLayer != 2 {
			t.Errorf("batch %d: %+v", c.batch, a)
		}
		if a.PerTokenBytes != c.stepBytes/float64(c.batch) {
			t.Errorf("batch %d: per token %v", c.batch, a.PerTokenBytes)
		}
		n := float64(c.tp)
		if a.OneShotWireBytes != a.PerStepBytes*(n-1) || math.Abs(a.RingWireBytes-a.PerStepBytes*2*(n-1)/n) > 1e-6 {
			t.Errorf("wire bytes %+v", a)
		}
	}
	if _, err := (TPDecode{}).Account(); !errors.Is(err, ErrParams) {
		t.Errorf("zero decode: %v", err)
	}
}

func TestKVAccount(t *testing.T) {
	for name, want := range map[string]float64{
		// 80 layers x 2 (K, V) x 8 KV heads x head dim 128 x 2 B (bf16)
		// = 327,680 B per token (the shape's source: srcLlama31).
		"llama-3.1-70b":  327680,
		"llama-3.1-8b":   32 * 2 * 8 * 128 * 2,
		"llama-3.1-405b": 126 * 2 * 8 * 128 * 2,
	} {
		m, err := ModelShapeByName(name)
		if err != nil {
			t.Fatal(err)
		}
		a, err := KVCache{Layers: m.Layers, KVHeads: m.KVHeads, HeadDim: m.HeadDim, DTypeBytes: 2, Tokens: 4096}.Account()
		if err != nil {
			t.Fatal(err)
		}
		if a.BytesPerToken != want || a.Bytes != want*4096 || a.PerLayerBytes != want*4096/float64(m.Layers) {
			t.Errorf("%s: %+v", name, a)
		}
		if m.Hidden != m.Heads*m.HeadDim || m.Source == "" {
			t.Errorf("%s: shape %+v", name, m)
		}
	}
	if _, err := ModelShapeByName("gpt-5"); err == nil {
		t.Error("unknown model accepted")
	}
	// One 1.25 GiB message at 50 GB/s against 80 messages of 10 us each.
	one, _ := TransferTime(1.25*(1<<30), 1, 10e-6, 50e9)
	per, _ := TransferTime(1.25*(1<<30), 80, 10e-6, 50e9)
	if math.Abs(per-one-79*10e-6) > 1e-12 {
		t.Errorf("transfer %v %v", one, per)
	}
	if _, err := TransferTime(1, 0, 0, 1); !errors.Is(err, ErrParams) {
		t.Errorf("0 messages: %v", err)
	}
}

func TestCustomAllReduceModel(t *testing.T) {
	s := 128.0 * 1024
	// vLLM's two-shot (cross_device_reduce_2stage) meets at two barriers,
	// as one-shot does; only its dependent second phase (Phase) is extra.
	for _, tt := range []struct {
		name     string
		c        CustomAllReduce
		one, two float64
		cross    float64
	}{
		{"8 ranks, a second phase", CustomAllReduce{Ranks: 8, Launch: 4e-6, Flag: 1e-6, Phase: 2e-6, Beta: 400e9},
			4e-6 + 2e-6 + 7*s/400e9, 4e-6 + 2e-6 + 2e-6 + 2*7*s/(8*400e9), 2e-6 * 8 * 400e9 / (7 * 6)},
		{"8 ranks, no second-phase cost: two-shot never slower", CustomAllReduce{Ranks: 8, Launch: 4e-6, Flag: 1e-6, Beta: 400e9},
			4e-6 + 2e-6 + 7*s/400e9, 4e-6 + 2e-6 + 2*7*s/(8*400e9), 0},
		{"2 ranks: the same bytes, one-shot never loses", CustomAllReduce{Ranks: 2, Flag: 1e-6, Phase: 1e-6, Beta: 1},
			2e-6 + s, 3e-6 + s, math.Inf(1)},
	} {
		one, _ := tt.c.OneShot(s)
		two, _ := tt.c.TwoShot(s)
		x, _ := tt.c.Crossover()
		if math.Abs(one-tt.one) > 1e-15*math.Max(1, tt.one) || math.Abs(two-tt.two) > 1e-15*math.Max(1, tt.two) || (x != tt.cross && math.Abs(x-tt.cross) > 1e-9*tt.cross) {
			t.Errorf("%s: one %v two %v crossover %v; want %v %v %v", tt.name, one, two, x, tt.one, tt.two, tt.cross)
		}
		if tt.c.Ranks > 2 && tt.cross > 0 {
			o, _ := tt.c.OneShot(x)
			w, _ := tt.c.TwoShot(x)
			if math.Abs(o-w) > 1e-12 {
				t.Errorf("%s: at the crossover %v: one-shot %v, two-shot %v", tt.name, x, o, w)
			}
		}
	}
	if _, err := (CustomAllReduce{Ranks: 8, Beta: 1, Phase: -1}).TwoShot(1); !errors.Is(err, ErrParams) {
		t.Errorf("negative phase: %v", err)
	}
	for _, c := range []struct {
		algo string
		want float64
	}{{"oneshot", 7 * s}, {"twoshot", 2 * 7 * s / 8}, {"ring", 2 * 7 * s / 8}} {
		if got, _ := WireBytes(c.algo, 8, s); got != c.want {
			t.Errorf("%s: %v want %v", c.algo, got, c.want)
		}
	}
	if _, err := (CustomAllReduce{}).OneShot(1); !errors.Is(err, ErrParams) {
		t.Errorf("zero model: %v", err)
	}
}

func TestChooseBackend(t *testing.T) {
	q := func(ws int, bytes float64, f func(*BackendQuery)) BackendQuery {
		b := DefaultBackendQuery(ws, bytes)
		if f != nil {
			f(&b)
		}
		return b
	}
	noMC := func(b *BackendQuery) { b.Multicast = false }
	for _, c := range []struct {
		name    string
		q       BackendQuery
		backend string
		algo    string
	}{
		{"8 GPUs 128 KiB: under the 256 KiB cap, one-shot", q(8, 128*kib, nil), BackendCustom, "oneshot"},
		{"8 GPUs 512 KiB: over the cap, torch symm mem multimem", q(8, 512*kib, nil), BackendTorchSymm, "multimem"},
		{"8 GPUs 128 MiB: past everything, PyNccl", q(8, 128*mib, nil), BackendPyNccl, ""},
		{"no multicast: cap 8 MiB, 512 KiB two-shot", q(8, 512*kib, noMC), BackendCustom, "twoshot"},
		{"no multicast: 8 MiB is not under the cap", q(8, 8*mib, noMC), BackendPyNccl, ""},
		{"2 GPUs 4 MiB: always one-shot", q(2, 4*mib, noMC), BackendCustom, "oneshot"},
		{"4 GPUs 256 KiB one-shot", q(4, 256*kib, noMC), BackendCustom, "oneshot"},
		{"4 GPUs 512 KiB two-shot", q(4, 512*kib, noMC), BackendCustom, "twoshot"},
		{"3 GPUs: no custom, no symm mem", q(3, 64*kib, nil), BackendPyNccl, ""},
		{"size not a multiple of 16", q(8, 1000, noMC), BackendPyNccl, ""},
		{"PCIe-only 4 GPUs", q(4, 64*kib, func(b *BackendQuery) { b.FullNVLink, b.Multicast = false, false }), BackendPyNccl, ""},
		{"PCIe pair keeps custom", q(2, 64*kib, func(b *BackendQuery) { b.FullNVLink, b.Multicast = false, false }), BackendCustom, "oneshot"},
		{"two nodes", q(8, 64*kib, func(b *BackendQuery) { b.MultiNode = true; b.Multicast = false }), BackendPyNccl, ""},
		{"NCCL symm mem on, 8 KiB", q(8, 8*kib, func(b *BackendQuery) { b.NCCLSymmMem = true }), BackendNCCLSymmMem, ""},
		{"NCCL symm mem on, 64 KiB left to custom", q(8, 64*kib, func(b *BackendQuery) { b.NCCLSymmMem = true }), BackendCustom, "oneshot"},
		{"NCCL symm mem on, 2 GPUs", q(2, 8*kib, func(b *BackendQuery) { b.NCCLSymmMem = true }), BackendCustom, "oneshot"},
		{"fp16 over the custom cap: no symm mem", q(8, 512*kib, func(b *BackendQuery) { b.BF16 = false }), BackendPyNccl, ""},
		{"ROCm", q(8, 64*kib, func(b *BackendQuery) { b.ROCm = true }), BackendQuickReduce, ""},
		{"FlashInfer on", q(8, 64*kib, func(b *BackendQuery) { b.FlashInfer = true }), BackendFlashInfer, ""},
		{"custom off", q(8, 64*kib, func(b *BackendQuery) { b.CustomAR = false }), BackendTorchSymm, "multimem"},
		{"A100: no tables, cap 8 MiB", q(8, 1*mib, func(b *BackendQuery) { b.Capability = "8.0" }), BackendCustom, "twoshot"},
	} {
		got, err := ChooseBackend(c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.Backend != c.backend || got.Algorithm != c.algo {
			t.Errorf("%s: %s/%s, want %s/%s (%s)", c.name, got.Backend, got.Algorithm, c.backend, c.algo, got.Reason())
		}
	}
	g, _ := ChooseBackend(q(8, 64*kib, func(b *BackendQuery) { b.CUDAGraph = true }))
	if !strings.Contains(g.Reason(), "register_graph_buffers") {
		t.Errorf("graph capture note missing: %s", g.Reason())
	}
	if _, err := ChooseBackend(BackendQuery{}); !errors.Is(err, ErrParams) {
		t.Errorf("zero query: %v", err)
	}
}

func TestNCCLAllReduceTime(t *testing.T) {
	node, err := NodeByName("hgx-h200")
	if err != nil {
		t.Fatal(err)
	}
	small, err := NCCLAllReduceTime(node, 8, 128*kib, false, "2.28")
	if err != nil {
		t.Fatal(err)
	}
	big, err := NCCLAllReduceTime(node, 8, 1<<30, false, "2.28")
	if err != nil {
		t.Fatal(err)
	}
	if small.TimeUs <= 0 || big.TimeUs <= small.TimeUs || strings.HasPrefix(small.Algorithm, "NVLS") {
		t.Errorf("128 KiB %+v, 1 GiB %+v", small, big)
	}
	if _, err := NCCLAllReduceTime(node, 9, 1, false, "2.28"); err == nil {
		t.Error("9 of 8 GPUs accepted")
	}
}

// The MLP widths Hugging Face's config.json files give as
// intermediate_size (14336, 28672, 53248), and the layer's weights: 70B
// has 70.6e9 weights in its 80 layers plus 2 x 128256 x 8192 embeddings.
func TestLayerWeights(t *testing.T) {
	for name, ffn := range map[string]int{"llama-3.1-8b": 14336, "llama-3.1-70b": 28672, "llama-3.1-405b": 53248} {
		m, err := ModelShapeByName(name)
		if err != nil {
			t.Fatal(err)
		}
		if m.FFN != ffn {
			t.Errorf("%s: FFN %d, want %d", name, m.FFN, ffn)
		}
	}
	m, _ := ModelShapeByName("llama-3.1-70b")
	total := m.LayerWeights()*float64(m.Layers) + 2*128256*8192
	if total < 70.5e9 || total > 70.6e9 {
		t.Errorf("70B weights %.4g", total)
	}
}

// TestPresetNames holds the lists flag usage prints: every preset, in the
// order its table keeps, and each name found again by name.
func TestPresetNames(t *testing.T) {
	tests := []struct {
		list   string
		names  []string
		lookup func(string) error
	}{
		{NodeNames(), strings.Split(NodeNames(), ", "), func(n string) error { _, err := NodeByName(n); return err }},
		{ModelShapeNames(), strings.Fields(strings.Trim(ModelShapeNames(), "[]")), func(n string) error { _, err := ModelShapeByName(n); return err }},
	}
	for _, tc := range tests {
		if len(tc.names) < 3 {
			t.Errorf("%q: want every preset, got %d", tc.list, len(tc.names))
		}
		for _, n := range tc.names {
			if err := tc.lookup(n); err != nil {
				t.Errorf("%q lists %q: %v", tc.list, n, err)
			}
		}
	}
	if got := ModelShapeNames(); got != "[llama-3.1-8b llama-3.1-70b llama-3.1-405b]" {
		t.Errorf("ModelShapeNames() = %q", got)
	}
	if !strings.HasPrefix(NodeNames(), "a100-pcie-nvbridge, dgx-a100, ") {
		t.Errorf("NodeNames() = %q: want sorted by name", NodeNames())
	}
}
