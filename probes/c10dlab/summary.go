package c10dlab

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/child"
)

// summary is summary.json as c10d_lab.py writes it.
type summary struct {
	probes.ScriptHeader
	Versions map[string]any             `json:"versions"`
	Parts    map[string]json.RawMessage `json:"parts"`
	Errors   []string                   `json:"errors"`
}

// Read decodes a summary.json.
func Read(r io.Reader) (*Result, error) {
	var s summary
	dec := json.NewDecoder(r)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("c10dlab: %w", err)
	}
	if s.Kind != Kind {
		return nil, fmt.Errorf("c10dlab: kind %q, not a c10d-lab summary", s.Kind)
	}
	res := &Result{Run: runOf(&s), Backend: s.Settings["backend"], Versions: s.Versions, Errors: s.Errors}
	var errs []error
	decode := func(name string, into any) bool {
		raw, ok := s.Parts[name]
		if !ok {
			return false
		}
		if err := json.Unmarshal(raw, into); err != nil {
			errs = append(errs, fmt.Errorf("c10dlab: part %s: %w", name, err))
			return false
		}
		return true
	}
	for name := range s.Parts {
		if !known(name) {
			errs = append(errs, fmt.Errorf("c10dlab: unknown part %q", name))
		}
	}
	if p := new(StorePart); decode("store", p) {
		res.Store = p
	}
	if p := new(CoalescePart); decode("coalesce", p) {
		res.Coalesce = p
		res.Run.Samples = append(res.Run.Samples, coalesceSamples(p)...)
	}
	if p := new(TimeoutPart); decode("timeout", p) {
		res.Timeout = p
	}
	if p := new(CompilePart); decode("compile", p) {
		res.Compile = p
	}
	return res, errors.Join(errs...)
}

// Load reads dir/summary.json from fsys.
func Load(fsys fs.FS, dir string) (*Result, error) {
	f, err := fsys.Open(path.Join(dir, "summary.json"))
	if err != nil {
		return nil, fmt.Errorf("c10dlab: %w", err)
	}
	defer f.Close()
	return Read(f)
}

// runOf is the run's provenance as a probes.Run: the command a reader
// types to record it (commlab probe c10d ...), the versions.
func runOf(s *summary) *probes.Run {
	r := &probes.Run{Kind: Kind, Settings: map[string]string{}, Env: s.Env, Host: s.Host}
	r.Command = child.Request{Probe: child.C10d, C10d: child.C10dSettings{Backend: s.Settings["backend"], Parts: s.Settings["parts"],
		ScriptArgs: scriptFlags(s.Command)}}.Command()
	for k, v := range s.Settings {
		r.Settings[k] = v
	}
	r.Date = s.Time()
	str := func(k string) string {
		if v, ok := s.Versions[k]; ok && v != nil {
			return fmt.Sprint(v)
		}
		return ""
	}
	backend := s.Settings["backend"]
	world := s.Settings["world"]
	if backend == "nccl" {
		r.GPUModel, r.Driver, r.CUDA, r.NCCL = str("gpu_model"), str("driver"), str("cuda"), str("nccl_version")
		if n, err := strconv.Atoi(str("gpu_count")); err == nil {
			r.GPUCount = n
		}
		r.Tool = "PyTorch " + str("torch")
	} else {
		r.Tool = fmt.Sprintf("PyTorch %s, gloo, %s CPU ranks on %s CPUs", str("torch"), world, str("host_cpus"))
	}
	return r
}

// coalesceSamples are the coalescing rows as samples: one group's time.
func coalesceSamples(p *CoalescePart) []probes.Sample {
	var out []probes.Sample
	for _, r := range p.Rows {
		if r.Error != "" {
			continue
		}
		out = append(out, probes.Sample{Op: "coalesce:" + r.Method, Bytes: r.Bytes * int64(r.Count), Count: int64(r.Count),
			Src: -1, Dst: -1, Ranks: p.World, Iters: r.Iters, MedianUS: r.TotalUS, Wrong: -1,
			Label: fmt.Sprintf("%d x %d B, host %.1f us", r.Count, r.Bytes, r.HostUS)})
	}
	return out
}

// scriptFlags are the flags the script was given beyond what the command's
// own flags set (--out, --backend, --parts), so that the recorded command
// reproduces the run (--modes, --timeout, ...).
func scriptFlags(command []string) []string {
	var extra []string
	for i := 0; i < len(command); i++ {
		a := command[i]
		if !strings.HasPrefix(a, "--") {
			continue // python3, the script's name
		}
		name, value, inline := strings.Cut(a, "=")
		owned := name == "--out" || name == "--backend" || name == "--parts"
		if !inline && i+1 < len(command) && !strings.HasPrefix(command[i+1], "--") {
			value = command[i+1]
			i++
		}
		if owned {
			continue
		}
		if value == "" && !inline {
			extra = append(extra, name)
		} else {
			extra = append(extra, name, value)
		}
	}
	return extra
}
