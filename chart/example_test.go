package chart_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/commlab/commlab/chart"
	"github.com/commlab/commlab/costmodel"
)

// Chapter 1: a ring all_reduce on 8 GPUs with 5 µs, 25 GB/s links, from
// 8 B to 8 GiB. For the ring the latency term 2(n-1)alpha equals the
// bandwidth term 2(n-1)/n S/beta at S* = n alpha beta.
func ExampleTimeVsSize() {
	p := costmodel.Params{Collective: costmodel.AllReduce, Algorithm: costmodel.Ring,
		Ranks: 8, Alpha: 5e-6, Beta: 25e9}
	rows, err := costmodel.SweepSizes(p, costmodel.Sizes(8, 8<<30, 2))
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := chart.TimeVsSize("all_reduce, 8 GPUs, ring", 8*p.Alpha*p.Beta, chart.ModelTime("ring model", rows))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c)
	// Output:
	// TimeVsSize "all_reduce, 8 GPUs, ring": x Message size [8 B .. 8 GiB] log, y Time [70 µs .. 601.4 ms] log
	//   ring model: 31 points, dashed line
	//   crossover S* = 976.6 KiB: latency-bound below, bandwidth-bound above
}

func ExampleBusBWVsSize() {
	p := costmodel.Params{Collective: costmodel.AllReduce, Algorithm: costmodel.Ring,
		Ranks: 8, Alpha: 5e-6, Beta: 25e9}
	rows, _ := costmodel.SweepSizes(p, costmodel.Sizes(1<<10, 1<<30, 4))
	c, err := chart.BusBWVsSize("all_reduce busbw, 8 GPUs", 25, "link, 25 GB/s one way",
		chart.ModelBusBW("ring model", rows))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c)
	// Output:
	// BusBWVsSize "all_reduce busbw, 8 GPUs": x Message size [1 KiB .. 1 GiB] log, y Bus bandwidth (GB/s) [0.02557 .. 24.98]
	//   ring model: 11 points, dashed line
	//   reference y = 25 GB/s: link, 25 GB/s one way
}

// Two GPUs' peer-to-peer read bandwidth as nvbandwidth printed it (a
// public sample: see testdata/SOURCES.md).
func ExampleHeatmap() {
	m := chart.Matrix{
		Rows: []string{"GPU0", "GPU1"}, Cols: []string{"GPU0", "GPU1"},
		Values:   [][]float64{{math.NaN(), 276.07}, {276.19, math.NaN()}},
		Unit:     "GB/s",
		RowTitle: "Source GPU", ColTitle: "Destination GPU",
	}
	c, err := chart.Heatmap("P2P read, 2 GPUs", m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c)
	// Output:
	// Heatmap "P2P read, 2 GPUs": x Destination GPU, y Source GPU
	//   2 x 2 cells
	//   values 276.1 .. 276.2 GB/s
	//   2 N/A cells
}

// Chapter 1's core question: why is 64 KB latency-bound and 1 GB
// bandwidth-bound? Show both terms.
func ExampleStackedBars() {
	p := costmodel.Params{Collective: costmodel.AllReduce, Algorithm: costmodel.Ring,
		Ranks: 8, Alpha: 5e-6, Beta: 25e9}
	rows, _ := costmodel.SweepSizes(p, []float64{64e3, 1e9})
	c, err := chart.StackedBars("ring all_reduce, 8 GPUs", chart.BreakdownBySize(rows))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c)
	// Output:
	// StackedBars "ring all_reduce, 8 GPUs": x Message size, y Time
	//   latency term: 70 µs, 70 µs
	//   bandwidth term: 4.48 µs, 70 ms
	//   categories: 64 KB, 1 GB
}

func ExampleLines() {
	c, err := chart.Lines("Launch latency",
		chart.Axis{Label: "Kernels per graph"}, chart.Axis{Label: "Time per kernel", Unit: chart.UnitSeconds},
		chart.Series{Name: "model", X: []float64{1, 10, 100}, Y: []float64{5e-6, 1.4e-6, 1e-6}, Dashed: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c)

	_, err = chart.TimeVsSize("bad", 0, chart.Series{Name: "measured", X: []float64{0, 8}, Y: []float64{1e-5, 1e-5}})
	fmt.Println(err)
	// Output:
	// Lines "Launch latency": x Kernels per graph [1 .. 100], y Time per kernel [1 µs .. 5 µs]
	//   model: 3 points, dashed line
	// chart: bad input: series "measured" point 0: x = 0 on a log axis (Message size): values must be > 0
}

func ExampleChart_Save() {
	c, err := chart.Scatter("Samples", chart.Axis{Label: "Size", Unit: chart.UnitBytes, Log: true},
		chart.Axis{Label: "Time", Unit: chart.UnitSeconds, Log: true},
		chart.Series{Name: "a", X: []float64{8, 64}, Y: []float64{1e-5, 2e-5}})
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, err := os.MkdirTemp("", "chart")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	for _, name := range []string{"fig.png", "fig.svg", "fig.pdf"} {
		fmt.Println(name, c.Save(filepath.Join(dir, name)))
	}
	err = c.Save(filepath.Join(dir, "fig.jpg"))
	fmt.Println("fig.jpg", errors.Is(err, chart.ErrFormat))
	// Output:
	// fig.png <nil>
	// fig.svg <nil>
	// fig.pdf <nil>
	// fig.jpg true
}

// Chapter 5: an all_reduce bucket on the NCCL stream under a backward
// kernel on the compute stream (synthetic spans, not a trace).
func ExampleTimeline() {
	c, err := chart.Timeline("overlap", []chart.Span{
		{Lane: "compute", Start: 0, End: 900e-6, Kind: "compute", Label: "backward"},
		{Lane: "NCCL", Start: 300e-6, End: 1100e-6, Kind: "communication", Label: "all_reduce"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c)
	// Output:
	// Timeline "overlap": x Time [0 s .. 1.1 ms]
	//   2 spans in 2 lanes, 0 s .. 1.1 ms
	//   communication: busy 800 µs
	//   compute: busy 900 µs
}
