package child

import (
	"io"
	"testing"

	"github.com/commlab/commlab/probes/nccl"
)

// Without NCCL here, MeasureNCCL says so before it starts a child.
func TestMeasureNCCLNeedsNCCL(t *testing.T) {
	_, _, verr := nccl.Version()
	if verr == nil {
		t.Skip("NCCL loads here")
	}
	s := nccl.DefaultSettings()
	cfg, err := s.Config()
	if err != nil {
		t.Fatal(err)
	}
	run, err := MeasureNCCL(cfg, s, io.Discard)
	if run != nil || err == nil || err.Error() != verr.Error() {
		t.Errorf("MeasureNCCL = %v, %v; want nil and %v", run, err, verr)
	}
}
