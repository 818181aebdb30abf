package measure

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/commlab/commlab/parse/hanglab"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/probes/recorded"
)

// Hang is one hang lab run (chapter 6), live or recorded, with its banner.
type Hang struct {
	// M carries the banner: a run of kind "hang-lab" with the command,
	// the date and the machine.
	M *Measurement
	// Lab is the run read back (parse/hanglab).
	Lab *hanglab.Lab
	// Dir is the live run's folder (empty when recorded).
	Dir string
}

// HTML is the banner of the run, as Measurement.HTML draws it.
func (h *Hang) HTML() string { return h.M.HTML() }

// String is the banner and the lab's summary.
func (h *Hang) String() string { return h.M.Banner() + "\n" + h.Lab.String() }

// HangLab stages one hang of the hang lab (launch.HangScenarios) live on
// CPU ranks when python3 with torch is here (mode auto or live), with
// timeout seconds as init_process_group's timeout, or shows the recorded
// run named recordedName (recorded.HangLabs). A live run writes under a new
// temporary folder, which Dir names.
func HangLab(ctx context.Context, mode Mode, scenario string, timeout float64, recordedName string) (*Hang, error) {
	mode, err := ParseMode(string(mode))
	if err != nil {
		return nil, err
	}
	if recordedName != "" {
		if _, err := recorded.HangLab(recordedName); err != nil {
			return nil, fmt.Errorf("measure: %w", err)
		}
	}
	if mode != ModeRecorded {
		h, reason, lerr := liveHang(ctx, scenario, timeout)
		if lerr == nil {
			return h, nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("measure: live hang lab: interrupted: %w", cerr)
		}
		if mode == ModeLive || recordedName == "" {
			return nil, fmt.Errorf("measure: live hang lab: %s: %w", reason, lerr)
		}
		h, err := recordedHang(recordedName)
		if err != nil {
			return nil, err
		}
		h.M.Fallback, h.M.LiveError = reason+": "+oneLine(lerr.Error()), lerr
		return h, nil
	}
	if recordedName == "" {
		return nil, fmt.Errorf("measure: recorded hang lab: no recorded run named")
	}
	return recordedHang(recordedName)
}

func recordedHang(name string) (*Hang, error) {
	fsys, err := recorded.HangLab(name)
	if err != nil {
		return nil, fmt.Errorf("measure: %w", err)
	}
	run, err := readRunFS(fsys)
	if err != nil {
		return nil, fmt.Errorf("measure: recorded hang lab %s: %w", name, err)
	}
	lab, err := hanglab.Load(fsys)
	if err != nil {
		return nil, fmt.Errorf("measure: recorded hang lab %s: %w", name, err)
	}
	return &Hang{M: &Measurement{Run: run, Recorded: name}, Lab: lab}, nil
}

func readRunFS(fsys fs.FS) (*probes.Run, error) {
	f, err := fsys.Open("run.json")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return probes.ReadRun(f)
}

func liveHang(ctx context.Context, scenario string, timeout float64) (*Hang, string, error) {
	if err := launch.HangLabReady(ctx); err != nil {
		return nil, "no PyTorch here", err
	}
	dir, err := os.MkdirTemp("", "commlab-hanglab-")
	if err != nil {
		return nil, "live run failed", err
	}
	out := filepath.Join(dir, scenario)
	o := launch.HangOptions{Scenario: scenario, Out: out, TimeoutS: timeout}
	args, err := o.Args()
	if err != nil {
		return nil, "live run failed", err
	}
	start := time.Now().UTC()
	var log logBuffer
	if err := launch.RunHangLab(ctx, o, &log, &log); err != nil {
		return nil, "live run failed", fmt.Errorf("%w: %s", err, oneLine(log.tail()))
	}
	lab, err := hanglab.Load(os.DirFS(out))
	if err != nil {
		return nil, "live run failed", err
	}
	// The ranks ran on CPUs: the banner says so where a GPU run names its
	// GPUs, driver and CUDA.
	run := &probes.Run{Kind: "hang-lab", Command: append([]string{"python3", launch.HangLab.Name}, args...), Date: start,
		GPUCount: lab.NProc, GPUModel: "CPU ranks (gloo)", Driver: "-", CUDA: "-",
		Settings: map[string]string{"scenario": scenario}, Logs: map[string]string{"driver": log.String()}}
	if len(lab.Ranks) > 0 && lab.Ranks[0].Torch != "" {
		run.Settings["torch"] = lab.Ranks[0].Torch
		run.Tool = "PyTorch " + lab.Ranks[0].Torch + ", gloo"
	}
	if h, err := os.Hostname(); err == nil {
		run.Host = h
	}
	b, _ := json.Marshal(run)
	_ = os.WriteFile(filepath.Join(out, "run.json"), b, 0o644)
	return &Hang{M: &Measurement{Run: run, Live: true}, Lab: lab, Dir: out}, "", nil
}

// logBuffer keeps a live run's progress lines.
type logBuffer struct{ b []byte }

func (l *logBuffer) Write(p []byte) (int, error) { l.b = append(l.b, p...); return len(p), nil }
func (l *logBuffer) String() string              { return string(l.b) }
func (l *logBuffer) tail() string {
	s := string(l.b)
	if len(s) > 400 {
		s = s[len(s)-400:]
	}
	return s
}
