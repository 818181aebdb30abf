package doctor

// This file turns nccl-tests output into a saved commlab run (one sample
// per row and half) and says where a run comes from (RunProvenance).

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/parse/nccltests"
	"github.com/commlab/commlab/probes"
)

// RunFromNCCLTests turns nccl-tests output into a run the curve checks
// read: one sample per row and half (out of place, in place), the #wrong
// column kept (-1 where validation was off). nil when no row was read.
func RunFromNCCLTests(res *nccltests.Result, source string) *probes.Run {
	if res == nil {
		return nil
	}
	run := &probes.Run{Kind: "nccl-tests", Settings: map[string]string{"source": source}}
	for _, r := range res.Runs {
		if v := r.LibraryVersion(); v != "" {
			run.NCCL = v
		}
		run.Tool = strings.TrimSpace("nccl-tests " + r.TestsVersion)
		n := r.NRanks()
		hosts := map[string]bool{}
		for _, d := range r.Devices {
			hosts[d.Host] = true
			if run.GPUModel == "" {
				run.GPUModel = d.Name
			}
		}
		if len(hosts) > 1 {
			run.Settings["nodes"] = fmt.Sprint(len(hosts))
		}
		run.Samples = append(run.Samples, NCCLTestsSamples(r, n)...)
		run.GPUCount = max(run.GPUCount, n)
	}
	if len(run.Samples) == 0 {
		return nil
	}
	return run
}

// RunProvenance says where a run comes from, its command as a shell line.
func RunProvenance(r *probes.Run) string {
	s := fmt.Sprintf("%dx %s, driver %s, CUDA %s", r.GPUCount, orDash(r.GPUModel), orDash(r.Driver), orDash(r.CUDA))
	if r.NCCL != "" {
		s += ", NCCL " + r.NCCL
	}
	if r.Tool != "" {
		s += ", " + r.Tool
	}
	if !r.Date.IsZero() {
		s += ", " + r.Date.UTC().Format("2006-01-02")
	}
	if len(r.Command) > 0 {
		s += ", command: " + ShellLine(r.Command)
	}
	return s
}

// NCCLTestsSamples turns one nccl-tests run's rows into samples, one per
// half present (out-of-place, in-place), on ranks ranks; a #wrong column
// of N/A (-c 0) becomes Wrong -1. nccl-tests prints one time per half, so
// its median, minimum and maximum are that time.
func NCCLTestsSamples(r nccltests.Run, ranks int) []probes.Sample {
	var out []probes.Sample
	for _, row := range r.Rows {
		for _, half := range []struct {
			m  nccltests.Measurement
			in bool
		}{{row.OutOfPlace, false}, {row.InPlace, true}} {
			if !half.m.Present {
				continue
			}
			wrong := int64(half.m.Wrong)
			if half.m.WrongNA {
				wrong = -1
			}
			out = append(out, probes.Sample{Op: r.Collective, Bytes: row.SizeBytes, Count: row.Count,
				DType: row.Type, RedOp: row.RedOp, Root: max(row.Root, 0), InPlace: half.in, Src: -1, Dst: -1, Ranks: ranks,
				Iters: r.Params.Iters, MedianUS: half.m.TimeUs, MinUS: half.m.TimeUs, MaxUS: half.m.TimeUs,
				AlgBW: half.m.AlgBW, BusBW: half.m.BusBW, Wrong: wrong})
		}
	}
	return out
}
