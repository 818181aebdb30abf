package costmodel

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/commlab/commlab/units"
)

// WriteText prints the estimate as `commlab model tp-allreduce` does: the
// bytes of one all_reduce and of a step, each backend's time, and the
// backend vLLM would take and why.
func (r TPAllReduceEstimate) WriteText(w io.Writer) {
	db := r.DTypeBytes
	name := r.Model
	if name == "" {
		name = fmt.Sprintf("hidden %d", r.Hidden)
	}
	fmt.Fprintf(w, "%s, batch %d, %s, TP %d, %d layers\n", name, r.Batch, r.DType, r.TP, r.Layers)
	fmt.Fprintf(w, "one all_reduce: %s (batch x hidden x %d B); 2 per layer, %d per step: %s per step, %s per token\n",
		units.Readable(r.Bytes, "B"), db, r.AllReducesPerStep, units.Readable(r.PerStepBytes, "B"), units.Readable(r.PerTokenBytes, "B"))
	if r.TP > 1 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "backend\tone all_reduce\tper step\t")
		fmt.Fprintf(tw, "NCCL (model: %s/%s)\t%s\t%s\t\n", r.NCCLAlgorithm, r.NCCLProtocol, Seconds(r.TimeS["nccl"]).String(), Seconds(r.PerStepTimeS["nccl"]).String())
		fmt.Fprintf(tw, "custom one-shot (model)\t%s\t%s\t\n", Seconds(r.TimeS["oneshot"]).String(), Seconds(r.PerStepTimeS["oneshot"]).String())
		fmt.Fprintf(tw, "custom two-shot (model)\t%s\t%s\t\n", Seconds(r.TimeS["twoshot"]).String(), Seconds(r.PerStepTimeS["twoshot"]).String())
		tw.Flush()
	}
	algo := ""
	if r.Algorithm != "" {
		algo = " (" + r.Algorithm + ")"
	}
	fmt.Fprintf(w, "vLLM would take: %s%s\n  because: %s\n", r.Backend, algo, r.Reason)
}

// WriteText prints the estimate as `commlab model kv` does: the cache's
// bytes per token, per sequence and per layer, and the time to move them
// over the link given and over every link preset.
func (r KVTransferEstimate) WriteText(w io.Writer) {
	db := r.DTypeBytes
	name := r.Model
	if name == "" {
		name = "model"
	}
	fmt.Fprintf(w, "%s KV cache, %s: %d layers x 2 x %d kv heads x %d x %d B = %s per token\n", name, r.DType, r.Layers, r.KVHeads, r.HeadDim, db, units.Readable(r.BytesPerToken, "B"))
	fmt.Fprintf(w, "%s tokens: %s (%s per layer)\n", units.Count(int64(r.Tokens)), units.Readable(r.Bytes, "B"), units.Readable(r.PerLayerBytes, "B"))
	fmt.Fprintf(w, "at %s: %s at once, %s layer by layer (%d messages)\n\nover the link presets (at once):\n", units.FormatRate(r.BWBytesPerS), Seconds(r.TimeS).String(), Seconds(r.PerLayerTimeS).String(), r.Layers)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "link\trate (one way)\ttime\t")
	for _, l := range r.Links {
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", l.Name, units.Readable(l.BWBytesPerS, "B/s"), Seconds(l.TimeS).String())
	}
	tw.Flush()
}

// Write prints the estimate as text (WriteText) or, with asJSON, as the
// model verbs' indented JSON.
func (r TPAllReduceEstimate) Write(w io.Writer, asJSON bool) error {
	if asJSON {
		return writeIndentedJSON(w, r)
	}
	r.WriteText(w)
	return nil
}

// Write prints the estimate as text (WriteText) or, with asJSON, as the
// model verbs' indented JSON.
func (r KVTransferEstimate) Write(w io.Writer, asJSON bool) error {
	if asJSON {
		return writeIndentedJSON(w, r)
	}
	r.WriteText(w)
	return nil
}
