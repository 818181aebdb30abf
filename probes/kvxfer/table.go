package kvxfer

import (
	"fmt"
	"math"
	"strings"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/prose"
)

// layersLabel is the label of the run's per-layer transfers ("layers80"),
// from the layer count the run recorded in its settings.
func layersLabel(r *probes.Run) string { return "layers" + r.Settings["layers"] }

// RateTable is one row per size the run moved: NIXL's device-to-host and
// host-to-device rates, whole and one descriptor per layer, PyTorch's
// copies of the same buffers, and whether every byte arrived ("as sent",
// or "WRONG" when any transfer of that size came back wrong).
func RateTable(r *probes.Run) *prose.Table {
	t := prose.NewTable("size", "NIXL d2h", "NIXL h2d", "NIXL d2h, per layer", "NIXL h2d, per layer", "PyTorch d2h", "PyTorch h2d", "bytes")
	rate := func(op, label string, size int64) string {
		for _, s := range r.Select(op, label) {
			if s.Bytes == size {
				return prose.Rate(s.AlgBW * 1e9)
			}
		}
		return "-" // not measured: an empty cell, so the column still aligns as numbers
	}
	layered := layersLabel(r)
	for _, s := range r.Select(OpNIXLD2H, LabelWhole) {
		check := "as sent"
		for _, o := range r.Samples {
			if o.Bytes == s.Bytes && o.Wrong > 0 {
				check = "WRONG"
			}
		}
		t.Row(prose.IEC(float64(s.Bytes)), rate(OpNIXLD2H, LabelWhole, s.Bytes), rate(OpNIXLH2D, LabelWhole, s.Bytes),
			rate(OpNIXLD2H, layered, s.Bytes), rate(OpNIXLH2D, layered, s.Bytes),
			rate(OpTorchD2H, LabelWhole, s.Bytes), rate(OpTorchH2D, LabelWhole, s.Bytes), check)
	}
	return t
}

// Comparison is what a run says about NIXL against PyTorch on the same
// buffers, and per layer against whole.
type Comparison struct {
	// D2H and H2D are PyTorch's rate over NIXL's, the lowest and the
	// highest over the sizes both moved whole.
	D2H, H2D [2]float64
	// LayerSpread is the largest |per layer / whole - 1| of NIXL's rates
	// over both directions and every size.
	LayerSpread float64
}

// Compare reads a Comparison from a run.
func Compare(r *probes.Run) Comparison {
	ratios := func(torchOp, nixlOp string) [2]float64 {
		lo, hi := math.Inf(1), 0.0
		for _, t := range r.Select(torchOp, LabelWhole) {
			for _, x := range r.Select(nixlOp, LabelWhole) {
				if x.Bytes == t.Bytes {
					lo, hi = math.Min(lo, t.AlgBW/x.AlgBW), math.Max(hi, t.AlgBW/x.AlgBW)
				}
			}
		}
		return [2]float64{lo, hi}
	}
	c := Comparison{D2H: ratios(OpTorchD2H, OpNIXLD2H), H2D: ratios(OpTorchH2D, OpNIXLH2D)}
	for _, op := range []string{OpNIXLD2H, OpNIXLH2D} {
		for _, w := range r.Select(op, LabelWhole) {
			for _, l := range r.Select(op, layersLabel(r)) {
				if l.Bytes == w.Bytes {
					c.LayerSpread = math.Max(c.LayerSpread, math.Abs(l.AlgBW/w.AlgBW-1))
				}
			}
		}
	}
	return c
}

// Markdown says the comparison in two sentences.
func (c Comparison) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "PyTorch's copy against NIXL on the same buffers: %.0f to %.0f times faster d2h, %.0f to %.0f times h2d.\n\n",
		c.D2H[0], c.D2H[1], c.H2D[0], c.H2D[1])
	fmt.Fprintf(&b, "NIXL per layer against whole: within %.0f%% at every size.\n", 100*c.LayerSpread)
	return b.String()
}
