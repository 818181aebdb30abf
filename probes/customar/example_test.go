package customar_test

import (
	"fmt"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/customar"
)

// Parse reads what one rank of customar printed: where it ran, its peers,
// the check of every size's sums and the time per call.
func ExampleParse() {
	out, err := customar.Parse(`info rank 0 nranks 2 pid 4242
info device 0 00000000:19:00.0 NVIDIA H200
info peer 1 device 0 00000000:19:00.0 same-gpu
check oneshot 131072 ok
result oneshot 131072 20 41.250
done
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.GPU, "rank", out.Rank, "of", out.NRanks, "peer 1:", out.Peers[0].How)
	fmt.Println(out.Checks[0].Algo, out.Checks[0].Bytes, "ok:", out.Checks[0].OK)
	fmt.Println(out.Results[0].USec, "us per call over", out.Results[0].Iters, "calls")
	// Output:
	// NVIDIA H200 rank 0 of 2 peer 1: same-gpu
	// oneshot 131072 ok: true
	// 41.25 us per call over 20 calls
}

// The program's flags for rank 1 of two processes sharing GPU 0.
func ExampleConfig_Args() {
	c := customar.Config{Ranks: 2, SameGPU: true, MaxBytes: 1 << 20}
	fmt.Println(c.Args(1, "/tmp/rendezvous"))
	// Output: [--rank 1 --nranks 2 --dir /tmp/rendezvous --device 0 --min 8 --max 1048576 --iters 20 --warmup 5 --algos oneshot,twoshot --blocks 36 --threads 512 --timeout-ms 10000]
}

// The second phase of a one-rank run: two-shot less one-shot at 8 B.
func ExampleSecondPhase() {
	r := &probes.Run{Samples: []probes.Sample{
		{Op: customar.Op, Label: customar.OneShot, Bytes: 8, MedianUS: 4.0},
		{Op: customar.Op, Label: customar.TwoShot, Bytes: 8, MedianUS: 6.078},
	}}
	p, ok := customar.SecondPhase(r, 8)
	fmt.Printf("%.3f us %v\n", p*1e6, ok)
	_, ok = customar.SecondPhase(r, 16)
	fmt.Println(ok)
	// Output:
	// 2.078 us true
	// false
}
