package costmodel

import (
	"fmt"
	"strings"
)

// KVHandoff is a prompt's KV cache handed from prefill to decode under
// tensor parallelism: each prefill GPU holds its shard (its KV heads) and
// sends it over its own path to its decode peer, all GPUs at once, layer
// by layer while prefill computes the next layer or whole after it.
type KVHandoff struct {
	Shape  ModelShape
	TP     int
	Tokens int
	// CacheBytes is the whole prompt's cache (KVCache.Account's Bytes).
	CacheBytes float64
	// GEMMRate is the matrix rate prefill reaches, FLOP/s.
	GEMMRate float64
}

// ShardBytes is one GPU's share of the cache: its KV heads, at least one
// (with more GPUs than KV heads each holds a replicated head).
func (k KVHandoff) ShardBytes() float64 {
	heads := max(k.Shape.KVHeads/k.TP, 1)
	return k.CacheBytes / float64(k.Shape.KVHeads) * float64(heads)
}

// LayerFLOPs is one layer of prefill on one GPU: 2 x weights x tokens for
// the matrices and 2 x tokens^2 x hidden for causal attention, over TP.
func (k KVHandoff) LayerFLOPs() float64 {
	t := float64(k.Tokens)
	return (2*k.Shape.LayerWeights()*t + 2*t*t*float64(k.Shape.Hidden)) / float64(k.TP)
}

// PrefillLayer is the least time prefill spends on one layer, seconds:
// LayerFLOPs at GEMMRate (a large square GEMM's rate; a TP shard's
// narrower matrices run slower, so a real layer takes longer).
func (k KVHandoff) PrefillLayer() float64 { return k.LayerFLOPs() / k.GEMMRate }

// LayerShardBytes is one layer of one GPU's shard.
func (k KVHandoff) LayerShardBytes() float64 { return k.ShardBytes() / float64(k.Shape.Layers) }

// GPUDirect is the GPUDirect RDMA path of Transfers' paths.
func GPUDirect(paths []Transfer) (Transfer, error) {
	for _, p := range paths {
		if strings.Contains(p.Name, "GPUDirect") {
			return p, nil
		}
	}
	return Transfer{}, fmt.Errorf("%w: no GPUDirect path among the transfers", ErrParams)
}
