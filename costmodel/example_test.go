package costmodel_test

import (
	"fmt"

	"github.com/commlab/commlab/costmodel"
)

func ExampleParseBandwidth() {
	nic, _ := costmodel.ParseBandwidth("400Gb/s")
	nvl, _ := costmodel.ParseBandwidth("900GB/s bidirectional")
	size, _ := costmodel.ParseSize("64KiB")
	lat, _ := costmodel.ParseDuration("5us")
	fmt.Println(nic, "=", nic.Bits())
	fmt.Println(nvl, "->", nvl.OneWay()/1e9, "GB/s each way")
	fmt.Println(float64(size), "bytes =", size.IEC(), "=", size)
	fmt.Println(lat, "=", float64(lat), "s")
	_, err := costmodel.ParseSize("25Gb")
	fmt.Println(err)
	// Output:
	// 50 GB/s = 400 Gb/s
	// 900 GB/s bidirectional -> 450 GB/s each way
	// 65536 bytes = 64 KiB = 65.536 KB
	// 5 µs = 5e-06 s
	// units: bad size "25Gb": in bits (lower-case b); write bytes with B, e.g. 25GB
}

// The chapter-1 question: 8 GPUs, ring all_reduce, 25 GB/s links.
func ExamplePredict() {
	for _, size := range []string{"1GB", "64KB"} {
		s, _ := costmodel.ParseSize(size)
		c, err := costmodel.Predict(costmodel.Params{
			Collective: costmodel.AllReduce, Algorithm: costmodel.Ring,
			Ranks: 8, Bytes: float64(s), Alpha: 5e-6, Beta: 25e9,
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %v = %v latency + %v bandwidth; algbw %.3g GB/s, busbw %.3g GB/s, %s-bound\n",
			size, costmodel.Seconds(c.Time), costmodel.Seconds(c.LatencyTerm), costmodel.Seconds(c.BandwidthTerm),
			c.AlgBW/1e9, c.BusBW/1e9, c.Bound)
	}
	// Output:
	// 1GB: 70.07 ms = 70 µs latency + 70 ms bandwidth; algbw 14.3 GB/s, busbw 25 GB/s, bandwidth-bound
	// 64KB: 74.48 µs = 70 µs latency + 4.48 µs bandwidth; algbw 0.859 GB/s, busbw 1.5 GB/s, latency-bound
}

func ExampleTunerTable_Pick() {
	node, _ := costmodel.NodeByName("hgx-h100")
	table, err := costmodel.Tune(costmodel.NCCLTopology(node, 1, "2.23"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range []float64{4096, 1 << 30} {
		c, _ := table.Pick(costmodel.AllReduce, s)
		fmt.Printf("%v: %s/%s %.1f us\n", costmodel.Bytes(s).IEC(), c.Algorithm, c.Protocol, c.TimeUs)
	}
	f, _ := table.Force(costmodel.AllReduce, 1<<30, "Ring", "")
	fmt.Printf("NCCL_ALGO=Ring costs %.2fx\n", f.Slowdown)
	// Output:
	// 4 KiB: Ring/LL 15.1 us
	// 1 GiB: NVLS/Simple 4051.5 us
	// NCCL_ALGO=Ring costs 1.30x
}

func ExampleSweepSizes() {
	sizes, _ := costmodel.ParseSweep("1KB:1GB:100")
	rows, err := costmodel.SweepSizes(costmodel.Params{
		Collective: costmodel.AllReduce, Algorithm: costmodel.Ring, Ranks: 8, Alpha: 5e-6, Beta: 25e9,
	}, sizes)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rows {
		fmt.Printf("%-8v %-10v busbw %6.2f GB/s %s\n", costmodel.Bytes(r.Bytes), costmodel.Seconds(r.Time), r.BusBW/1e9, r.Bound)
	}
	// Output:
	// 1 KB     70.07 µs   busbw   0.02 GB/s latency
	// 100 KB   77 µs      busbw   2.27 GB/s latency
	// 10 MB    770 µs     busbw  22.73 GB/s bandwidth
	// 1 GB     70.07 ms   busbw  24.98 GB/s bandwidth
}

// Where latency stops dominating: one message at alpha x beta, a ring
// all_reduce on 8 GPUs at n x alpha x beta, and 32 hgx-h100 nodes, where
// a ring pays (510-64) x 3.4 us + 64 x 14 us = 2.4124 ms of latency against
// 510/256 S / 400 GB/s, and NCCL's tree shape 2 (7 x 3.4 + 5 x 14) us
// against 2 S / 400 GB/s.
func ExampleCrossover() {
	one := costmodel.AlphaBeta{Alpha: 5e-6, Beta: 25e9}
	fmt.Println("one message:", costmodel.Bytes(one.Crossover()))
	ring, _ := costmodel.Crossover(costmodel.Params{
		Collective: costmodel.AllReduce, Algorithm: costmodel.Ring, Ranks: 8, Alpha: 5e-6, Beta: 25e9,
	})
	fmt.Println("ring all_reduce, 8 GPUs:", costmodel.Bytes(ring))
	node, _ := costmodel.NodeByName("hgx-h100")
	for _, a := range []costmodel.Algorithm{costmodel.Ring, costmodel.DoubleBinaryTree} {
		x, err := costmodel.Crossover(node.Params(costmodel.AllReduce, a, 32, 0))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s all_reduce, 32 x hgx-h100: %v\n", a, costmodel.Bytes(x))
	}
	_, err := costmodel.Crossover(costmodel.Params{
		Collective: costmodel.AllReduce, Algorithm: costmodel.Ring, Ranks: 1, Alpha: 5e-6, Beta: 25e9,
	})
	fmt.Println(err)
	// Output:
	// one message: 125 KB
	// ring all_reduce, 8 GPUs: 1 MB
	// ring all_reduce, 32 x hgx-h100: 484.372 MB
	// dbtree all_reduce, 32 x hgx-h100: 37.52 MB
	// costmodel: bad parameters: one rank moves nothing, so all_reduce has no crossover
}

// Two GPUs of an HGX H200 board with NVLS off, as the lab's machines run:
// NCCL's pick for a small and a large all_reduce.
func ExampleTuneNodes() {
	node, err := costmodel.NodeByName("hgx-h200")
	if err != nil {
		panic(err)
	}
	table, err := costmodel.TuneNodes(node, 2, 1, "2.28", false)
	if err != nil {
		panic(err)
	}
	for _, size := range []float64{64 << 10, 1 << 30} {
		pick, err := table.Pick(costmodel.AllReduce, size)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %s/%s\n", costmodel.Bytes(size).IEC(), pick.Algorithm, pick.Protocol)
	}
	// Output:
	// 64 KiB: Ring/LL
	// 1 GiB: Ring/Simple
}

// The model beside what published machines of one kind measured: the one
// call a chapter makes to show the calibration for the reader's machine.
func ExampleCalibration() {
	rows, err := costmodel.Calibration("gcp-a3-mega")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rows {
		fmt.Printf("%s %s: measured %.4g %s, model %.4g %s (%+.1f%%)\n", r.Collective, costmodel.Bytes(r.Bytes).IEC(),
			r.Measured, r.Unit, r.Model, r.Unit, 100*r.Error)
	}
	// Output:
	// all_reduce 8 GiB: measured 338.8 GB/s, model 329.6 GB/s (-2.7%)
	// all_reduce 8 B: measured 123.5 µs, model 134.2 µs (+8.7%)
	// all_reduce 4 KiB: measured 126.9 µs, model 134.4 µs (+5.9%)
	// all_reduce 64 KiB: measured 159.4 µs, model 137.9 µs (-13.5%)
	// all_reduce 1 MiB: measured 9.68 GB/s, model 12 GB/s (+23.9%)
	// all_reduce 32 MiB: measured 59.36 GB/s, model 173.7 GB/s (+192.6%)
	// all_reduce 256 MiB: measured 213.2 GB/s, model 280.4 GB/s (+31.5%)
	// all_reduce 1 GiB: measured 297.9 GB/s, model 304.8 GB/s (+2.3%)
	// all_gather 256 MiB: measured 165.3 GB/s, model 158.2 GB/s (-4.3%)
	// all_gather 1 GiB: measured 181.9 GB/s, model 172.7 GB/s (-5.1%)
	// all_gather 8 GiB: measured 188.5 GB/s, model 177.5 GB/s (-5.9%)
	// all_gather 8 MiB: measured 47.19 GB/s, model 53.47 GB/s (+13.3%)
	// all_gather 32 MiB: measured 110.8 GB/s, model 108.1 GB/s (-2.4%)
}

// Estimate: NCCL's pick and latency, the bandwidth of the links as NCCL
// rates them, and the host floor of the harness.
func ExampleMachine_Estimate() {
	node, _ := costmodel.NodeByName("hgx-h100")
	m := costmodel.Machine{Node: node}
	for _, size := range []float64{8, 8 << 30} {
		e, err := m.Estimate(costmodel.AllReduce, size, "auto", "auto")
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%v: %s/%s %.4g us, busbw %.4g GB/s\n", costmodel.Bytes(size).IEC(), e.Algorithm, e.Protocol, e.TimeUs, e.BusBWGBps)
	}
	// Output:
	// 8 B: Ring/LL 15 us, busbw 0.0009333 GB/s
	// 8 GiB: NVLS/Simple 3.088e+04 us, busbw 486.7 GB/s
}

// What a SYS path is worth to NCCL on the H200 machines' CPU (lscpu:
// family 6, model 207).
func ExampleNCCLSocketLinkForIntel() {
	l, err := costmodel.NCCLSocketLinkForIntel(6, 207)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %s = %g GB/s\n", l.CPU, l.Constant, l.GBps)
	// Output:
	// Intel from Emerald Rapids (model 0xcf): ERP_QPI_BW = 40 GB/s
}
