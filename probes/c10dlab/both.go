package c10dlab

import (
	"context"
	"sync"

	"github.com/commlab/commlab/probes/measure"
)

// Request is one Measure call: its mode, the live run's settings and the
// recording shown where it cannot run.
type Request struct {
	Mode     measure.Mode
	Config   Config
	Recorded string
}

// Pair is the CPU ranks' lab and the GPU's, each with Measure's error.
type Pair struct {
	CPU, GPU       *Measurement
	CPUErr, GPUErr error
}

// MeasurePair makes both Measure calls at once. Each lab starts its own
// processes on its own free ports, so the gloo ranks and the NCCL ranks run
// side by side and a live page waits for the longer one only.
func MeasurePair(ctx context.Context, cpu, gpu Request) Pair {
	var p Pair
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		p.GPU, p.GPUErr = Measure(ctx, gpu.Mode, gpu.Config, gpu.Recorded)
	}()
	p.CPU, p.CPUErr = Measure(ctx, cpu.Mode, cpu.Config, cpu.Recorded)
	wg.Wait()
	return p
}
