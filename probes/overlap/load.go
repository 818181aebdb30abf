package overlap

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/commlab/commlab/probes"
)

// summary is summary.json as bench_overlap.py writes it.
type summary struct {
	probes.ScriptHeader
	GPUModel    string             `json:"gpu_model"`
	GPUCount    int                `json:"gpu_count"`
	CUDA        string             `json:"cuda"`
	Driver      string             `json:"driver"`
	NCCL        string             `json:"nccl"`
	Tool        string             `json:"tool"`
	Calibration map[string]float64 `json:"calibration"`
	Variants    []struct {
		Variant      string    `json:"variant"`
		What         string    `json:"what"`
		AllocRetries int       `json:"alloc_retries"`
		StepMS       []float64 `json:"step_ms_events"`
		Median       float64   `json:"step_ms_median"`
		WallMedian   float64   `json:"step_ms_wall_median"`
		Trace        string    `json:"trace"`
	} `json:"variants"`
	Cases  []map[string]any `json:"cases"`
	Errors []string         `json:"errors"`
}

// Load reads the benchmark's output folders under dir in fsys: dir itself
// when it holds summary.json, else each sub-folder that does (a recorded
// run keeps variants/, cq-default/, cq-blocking-wait/, ...). A sub-folder's
// name after "cq-" is its cases' Setting; its variants' Set is its name.
// What parsed is returned with the errors of what did not.
func Load(fsys fs.FS, dir string) (*Result, error) {
	dirs := []string{dir}
	if _, err := fs.Stat(fsys, path.Join(dir, "summary.json")); err != nil {
		entries, rerr := fs.ReadDir(fsys, dir)
		if rerr != nil {
			return nil, fmt.Errorf("overlap: %w", rerr)
		}
		dirs = nil
		for _, e := range entries {
			if e.IsDir() {
				if _, err := fs.Stat(fsys, path.Join(dir, e.Name(), "summary.json")); err == nil {
					dirs = append(dirs, path.Join(dir, e.Name()))
				}
			}
		}
		if len(dirs) == 0 {
			return nil, fmt.Errorf("overlap: %s holds no summary.json, in itself or a sub-folder", dir)
		}
		// The variants' folders first (the run's provenance and settings
		// come from the first folder read), then the default settings'
		// cases, then the others.
		rank := func(d string) int {
			switch b := path.Base(d); {
			case strings.HasPrefix(b, "variants"):
				return 0
			case b == "cq-default":
				return 1
			}
			return 2
		}
		sort.Slice(dirs, func(i, j int) bool {
			if ri, rj := rank(dirs[i]), rank(dirs[j]); ri != rj {
				return ri < rj
			}
			return dirs[i] < dirs[j]
		})
	}
	res := &Result{}
	var errs []error
	for _, d := range dirs {
		if err := res.load(fsys, d, true); err != nil {
			errs = append(errs, err)
		}
	}
	return res, errors.Join(errs...)
}

// LoadVariants reads only the variants of one output folder.
func LoadVariants(fsys fs.FS, dir string) (*Result, error) {
	res := &Result{}
	err := res.load(fsys, dir, true)
	return res, err
}

func (res *Result) load(fsys fs.FS, dir string, variants bool) error {
	b, err := fs.ReadFile(fsys, path.Join(dir, "summary.json"))
	if err != nil {
		return fmt.Errorf("overlap: %w", err)
	}
	var s summary
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("overlap: %s: %w", path.Join(dir, "summary.json"), err)
	}
	if res.Run == nil {
		res.Run = runOf(&s)
	}
	for _, e := range s.Errors {
		res.Errors = append(res.Errors, path.Base(dir)+": "+e)
	}
	var errs []error
	if variants && len(s.Variants) > 0 {
		set := path.Base(dir)
		if set == "." {
			set = "variants"
		}
		if res.Calibration == nil {
			res.Calibration = map[string]map[string]float64{}
		}
		res.Calibration[set] = s.Calibration
		for _, v := range s.Variants {
			out := Variant{Set: set, Name: v.Variant, What: v.What, Coll: s.Settings["coll"], StepMS: v.Median, WallMS: v.WallMedian, StepsMS: v.StepMS,
				AllocRetries: v.AllocRetries, Trace: v.Trace}
			if v.Trace != "" {
				if err := out.analyze(fsys, path.Join(dir, v.Trace)); err != nil {
					errs = append(errs, err)
				}
			}
			res.Variants = append(res.Variants, out)
			res.Run.Samples = append(res.Run.Samples, sampleOf(out))
		}
	}
	setting := strings.TrimPrefix(path.Base(dir), "cq-")
	if setting == path.Base(dir) || setting == "" {
		setting = "default"
	}
	for _, m := range s.Cases {
		c := Case{Setting: setting, Facts: map[string]any{}}
		for k, v := range m {
			switch k {
			case "case":
				c.Name, _ = v.(string)
			case "what":
				c.What, _ = v.(string)
			case "trace":
				c.Trace, _ = v.(string)
			case "error":
				c.Error, _ = v.(string)
			default:
				if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
					v = int64(f) // counts of elements, not measurements
				}
				c.Facts[k] = v
			}
		}
		if c.Trace != "" {
			if err := c.read(fsys, path.Join(dir, c.Trace)); err != nil {
				errs = append(errs, err)
			}
		}
		res.Cases = append(res.Cases, c)
	}
	return errors.Join(errs...)
}

func runOf(s *summary) *probes.Run {
	settings := map[string]string{}
	for k, v := range s.Settings {
		if k != "out" { // where the script wrote, on the machine that ran it
			settings[k] = v
		}
	}
	r := &probes.Run{Kind: "torch-overlap", Command: s.Command, Settings: settings, Env: s.Env, Host: s.Host,
		GPUModel: s.GPUModel, GPUCount: s.GPUCount, Driver: s.Driver, CUDA: s.CUDA, NCCL: s.NCCL, Tool: s.Tool}
	if t := s.Time(); !t.IsZero() {
		r.Date = t.UTC()
	}
	if s.GPUCount == 1 {
		r.Notes = append(r.Notes, "one rank: NCCL runs each collective as a device copy or a one-rank kernel (launch and copy floor), not a ring")
	}
	return r
}

// sampleOf is a variant as a probes.Sample: its step times.
func sampleOf(v Variant) probes.Sample {
	s := probes.Sample{Op: "step:" + v.Name, Src: -1, Dst: -1, Wrong: -1, Label: "set=" + v.Set}
	us := make([]float64, len(v.StepsMS))
	for i, ms := range v.StepsMS {
		us[i] = ms * 1e3
	}
	s.SetTimes(us)
	if v.Analysis != nil {
		s.Label += " overlap_fraction=" + strconv.FormatFloat(v.Analysis.OverlapFraction, 'f', 3, 64)
	}
	return s
}
