package child

import (
	"context"
	"io"
	"os"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/cuda"
	"github.com/commlab/commlab/probes/nccl"
)

// MeasureNCCL is commlab probe nccl's measurement: NCCL and CUDA must
// load here; then cfg runs in a child process (Run), or in this one when
// s.InProcess (cfg's environment then set in this process). A topology
// edit (s.TopoEdit) runs in the child and its two graph searches are
// printed on graphs. A nil run means nothing was measured.
func MeasureNCCL(cfg nccl.Config, s nccl.Settings, graphs io.Writer) (*probes.Run, error) {
	if _, _, err := nccl.Version(); err != nil {
		return nil, err
	}
	if _, err := cuda.Init(); err != nil {
		return nil, err
	}
	if s.InProcess {
		for k, v := range cfg.Env {
			os.Setenv(k, v)
		}
		return nccl.Measure(cfg)
	}
	run, err := Run(context.Background(), Request{Probe: NCCL, NCCL: cfg, TopologyEdit: s.TopoEdit}, Options{})
	if s.TopoEdit != "" {
		nccl.WriteGraphSearches(graphs, run)
	}
	return run, err
}
