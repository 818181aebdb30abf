package measure

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/customar"
)

func TestCustomAllReducePaths(t *testing.T) {
	defer func(f func(context.Context, customar.Config) (*probes.Run, error)) { measureCustomAR = f }(measureCustomAR)
	const rec = "custom-allreduce-h200x1-ws2"

	measureCustomAR = func(context.Context, customar.Config) (*probes.Run, error) {
		return nil, fmt.Errorf("customar: %w: no nvcc", probes.ErrUnavailable)
	}
	m, err := CustomAllReduce(context.Background(), ModeAuto, customar.Config{}, rec)
	if err != nil || m.Live || m.Recorded != rec || !strings.HasPrefix(m.Fallback, noCustomAR) || m.Run.Kind != customar.Kind {
		t.Errorf("auto without nvcc: %v %+v", err, m)
	}
	if _, err := CustomAllReduce(context.Background(), ModeLive, customar.Config{}, rec); err == nil || !strings.Contains(err.Error(), noCustomAR) {
		t.Errorf("live without nvcc: %v", err)
	}

	// A run that failed part-way (a peer timed out) is a live failure, not an absent GPU.
	measureCustomAR = func(context.Context, customar.Config) (*probes.Run, error) {
		return &probes.Run{Kind: customar.Kind}, customar.ErrTimeout
	}
	m, err = CustomAllReduce(context.Background(), ModeAuto, customar.Config{}, rec)
	if err != nil || !strings.HasPrefix(m.Fallback, failed) || !errors.Is(m.LiveError, customar.ErrTimeout) {
		t.Errorf("auto after a timeout: %v %+v", err, m)
	}

	live := &probes.Run{Kind: customar.Kind, Samples: []probes.Sample{{Op: customar.Op, Bytes: 8, MedianUS: 5}}}
	measureCustomAR = func(context.Context, customar.Config) (*probes.Run, error) { return live, nil }
	m, err = CustomAllReduce(context.Background(), ModeAuto, customar.Config{}, rec)
	if err != nil || !m.Live || m.Run != live {
		t.Errorf("live run: %v %+v", err, m)
	}

	// The recorded run must be a custom all-reduce run.
	if _, err := CustomAllReduce(context.Background(), ModeRecorded, customar.Config{}, "latency-h200x1"); err == nil {
		t.Error("a latency run accepted as a custom all-reduce recording")
	}
}
