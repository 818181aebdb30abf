package topograph_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/commlab/commlab/probes/published"
	"github.com/commlab/commlab/probes/topograph"
)

func ExampleSVG() {
	ctx := context.Background()
	topo, _ := published.HGXH200().Topology(ctx)
	svg, err := topograph.SVG(ctx, topo)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(bytes.Contains(svg, []byte("<svg")))
	fmt.Println("GPU boxes:", bytes.Count(svg, []byte(`<rect class="gpu"`)))
	fmt.Println("NIC boxes:", bytes.Count(svg, []byte(`<rect class="nic"`)))
	fmt.Println("NVSwitch:", bytes.Contains(svg, []byte("NVSwitch fabric")))
	// Output:
	// true
	// GPU boxes: 8
	// NIC boxes: 8
	// NVSwitch: true
}

func ExampleDOT() {
	topo, _ := published.HGXH200().Topology(context.Background())
	dot := topograph.DOT(topo)
	fmt.Println(strings.SplitN(dot, "\n", 2)[0])
	fmt.Println("NVLink edges:", strings.Count(dot, `label="NV18"`))
	// Output:
	// graph topology {
	// NVLink edges: 8
}
