package measure

import (
	"context"
	"errors"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/customar"
)

// noCustomAR is why a custom all-reduce does not run live: no nvcc to
// build it, or no GPU to run it on.
const noCustomAR = "no nvcc or GPU here"

// measureCustomAR is the live custom all-reduce; tests replace it.
var measureCustomAR = customar.Measure

// CustomAllReduce runs commlab's own custom all-reduce over CUDA IPC (see
// customar.Config): live, in cfg.Ranks processes built with nvcc, or from
// the recorded run named recorded, as mode says. A live run on one GPU
// shares it between the processes; its run's notes say what that proves.
func CustomAllReduce(ctx context.Context, mode Mode, cfg customar.Config, recorded string) (*Measurement, error) {
	return choose(ctx, customar.Kind, mode, recorded, func() (*probes.Run, string, error) {
		run, err := measureCustomAR(ctx, cfg)
		if err != nil && run == nil && errors.Is(err, probes.ErrUnavailable) {
			return nil, noCustomAR, err
		}
		return run, failed, err
	})
}
