// Package kvxfer measures chapter 7's KV-cache transfer through NIXL, the
// transfer library inference engines' connectors use: a KV-sized buffer
// moved from GPU memory to pinned host memory and back by two NIXL agents
// on one GPU, whole and one descriptor per layer, beside the same copies
// through PyTorch. The script itself (kv_nixl.py) is embedded in
// probes/launch, which starts it; this package runs it live when python3
// imports PyTorch with a GPU and NIXL, and otherwise shows the recorded run
// (probes/recorded), with measure's banner saying which.
//
// It owns the run's vocabulary (the ops and labels below) and nothing of
// NIXL itself: NIXL is an outside system reached only through the script.
package kvxfer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/probes/measure"
	"github.com/commlab/commlab/probes/recorded"
)

// The ops a run holds: NIXL's device-to-host WRITE and host-to-device READ,
// and PyTorch's copies of the same buffers.
const (
	OpNIXLD2H  = "nixl_d2h"
	OpNIXLH2D  = "nixl_h2d"
	OpTorchD2H = "torch_d2h"
	OpTorchH2D = "torch_h2d"
)

// LabelWhole is one descriptor for the whole buffer; per-layer transfers
// are labelled "layers" and the count ("layers80").
const LabelWhole = "whole"

// RecordedName is the recorded run on one H200.
const RecordedName = "nixl-kv-h200x1"

// ErrNoRecording is returned when no live run was possible and the
// recorded run does not exist yet.
var ErrNoRecording = errors.New("kvxfer: no recorded run")

// Config is a live run's settings.
type Config struct {
	// Args are the script's own flags besides --out (--min, --max,
	// --layers, --reps, --backend).
	Args []string
	// Stdout and Stderr get the script's output (nil: discarded).
	Stdout, Stderr io.Writer
}

// Run runs the script live and reads the run it writes.
func Run(ctx context.Context, cfg Config) (*probes.Run, error) {
	dir, err := os.MkdirTemp("", "commlab-kvxfer-")
	if err != nil {
		return nil, fmt.Errorf("kvxfer: %w", err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "run.json")
	var captured bytes.Buffer
	if _, err := launch.KVNixl.Run(ctx, launch.Options{}, append([]string{"--out", out}, cfg.Args...),
		io.MultiWriter(launch.Discarding(cfg.Stdout), &captured), io.MultiWriter(launch.Discarding(cfg.Stderr), &captured)); err != nil {
		return nil, fmt.Errorf("kvxfer: %w: %s", err, launch.ScriptLine(launch.LastLine(captured.String())))
	}
	run, err := probes.LoadRun(out)
	if err != nil {
		return nil, fmt.Errorf("kvxfer: %w", err)
	}
	if len(run.Samples) == 0 {
		return nil, fmt.Errorf("kvxfer: the script wrote no samples")
	}
	return run, nil
}

// Fetch is the run commlab probe kv-nixl shows: with recorded, the
// recording that names[0] names (RecordedName without one), else a run of
// the script with cfg.
func Fetch(ctx context.Context, recorded bool, names []string, cfg Config) (*probes.Run, error) {
	if !recorded {
		return Run(ctx, cfg)
	}
	name := RecordedName
	if len(names) > 0 {
		name = names[0]
	}
	return Recorded(name)
}

// Recorded loads the recorded run called name.
func Recorded(name string) (*probes.Run, error) {
	run, err := recorded.Load(name)
	if errors.Is(err, recorded.ErrNotFound) {
		return nil, fmt.Errorf("%w %q: %v", ErrNoRecording, name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("kvxfer: %w", err)
	}
	return run, nil
}

// Measure runs the transfer live when mode allows and this machine can
// (python3 with PyTorch that sees a GPU, and NIXL), else shows the
// recorded run called name; auto mode says in the banner why it fell back.
// With no live run possible and no recording it returns ErrNoRecording
// (wrapped) and a Measurement whose Fallback says why nothing ran.
func Measure(ctx context.Context, mode measure.Mode, cfg Config, name string) (*measure.Measurement, error) {
	var m *measure.Measurement
	err := measure.LiveOrRecorded(ctx, mode, "kvxfer", func() (string, error) {
		if err := launch.TorchCUDA(ctx); err != nil {
			return "no PyTorch with a GPU here", err
		}
		return "no NIXL here", launch.NIXLPython(ctx)
	}, func() error {
		run, err := Run(ctx, cfg)
		if err == nil {
			m = &measure.Measurement{Run: run, Live: true}
		}
		return err
	}, func(fallback string, lerr error) error {
		run, err := Recorded(name)
		m = &measure.Measurement{Run: run, Recorded: name, Fallback: fallback, LiveError: lerr}
		return err
	})
	return m, err
}
