package kvxfer_test

import (
	"fmt"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/kvxfer"
)

// A run of two sizes: NIXL against PyTorch, whole and per layer; the
// second size came back wrong once.
func ExampleRateTable() {
	r := &probes.Run{Settings: map[string]string{"layers": "2"}, Samples: []probes.Sample{
		{Op: kvxfer.OpNIXLD2H, Label: kvxfer.LabelWhole, Bytes: 1 << 20, AlgBW: 0.5},
		{Op: kvxfer.OpNIXLH2D, Label: kvxfer.LabelWhole, Bytes: 1 << 20, AlgBW: 0.8},
		{Op: kvxfer.OpNIXLD2H, Label: "layers2", Bytes: 1 << 20, AlgBW: 0.45},
		{Op: kvxfer.OpTorchD2H, Label: kvxfer.LabelWhole, Bytes: 1 << 20, AlgBW: 50},
		{Op: kvxfer.OpTorchH2D, Label: kvxfer.LabelWhole, Bytes: 1 << 20, AlgBW: 56},
		{Op: kvxfer.OpNIXLD2H, Label: kvxfer.LabelWhole, Bytes: 2 << 20, AlgBW: 0.4, Wrong: 1},
		{Op: kvxfer.OpTorchD2H, Label: kvxfer.LabelWhole, Bytes: 2 << 20, AlgBW: 52},
	}}
	fmt.Print(kvxfer.RateTable(r).Markdown())
	fmt.Print(kvxfer.Compare(r).Markdown())
	// Output:
	// | size | NIXL d2h | NIXL h2d | NIXL d2h, per layer | NIXL h2d, per layer | PyTorch d2h | PyTorch h2d | bytes |
	// |---:|---:|---:|---:|:---|---:|---:|:---|
	// | 1 MiB | 500 MB/s | 800 MB/s | 450 MB/s | - | 50 GB/s | 56 GB/s | as sent |
	// | 2 MiB | 400 MB/s | - | - | - | 52 GB/s | - | WRONG |
	// PyTorch's copy against NIXL on the same buffers: 100 to 130 times faster d2h, 70 to 70 times h2d.
	//
	// NIXL per layer against whole: within 10% at every size.
}
