package ucxlog

import (
	"fmt"
	"io"
	"strings"
)

// Pick is one size range of one protocol table whose operation moves GPU
// memory ("from cuda/GPU0", "to cuda/dev[1]", "into cuda/GPU0").
type Pick struct {
	Config    string `json:"config"`
	Operation string `json:"operation"`
	Range
}

// Emulated says the range runs as "software emulation": UCX carries the
// RMA or atomic operation as active messages, through the CPU, because no
// transport of the configuration does it natively.
func (p Pick) Emulated() bool { return strings.Contains(p.Description, "emulation") }

// GPUPicks lists the ranges of every table whose operation names CUDA
// memory, in the order printed.
func (l *Log) GPUPicks() []Pick {
	var out []Pick
	for _, p := range l.Protocols {
		if !strings.Contains(p.Operation, "cuda") {
			continue
		}
		for _, r := range p.Ranges {
			out = append(out, Pick{Config: p.Config, Operation: p.Operation, Range: r})
		}
	}
	return out
}

// Transports are the distinct transport/device names the configurations'
// lanes use, in first-seen order ("tcp/lo", "cma/memory").
func (l *Log) Transports() []string {
	var out []string
	for _, c := range l.Configs {
		for _, ln := range c.Lanes {
			for _, t := range ln.Transports {
				if !contains(out, t) {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// String is the configuration as UCX prints it.
func (c Config) String() string {
	var b strings.Builder
	if c.Worker != "" {
		b.WriteString(c.Worker + " ")
	}
	if c.Scope != "" {
		fmt.Fprintf(&b, "%s cfg#%d", c.Scope, c.Index)
	} else {
		fmt.Fprintf(&b, "ep_cfg[%d]", c.Index)
	}
	for _, ln := range c.Lanes {
		fmt.Fprintf(&b, " %s(%s)", ln.Use, strings.Join(ln.Transports, " "))
	}
	return b.String()
}

// Bounds reads the range as UCX prints it ("0..inf").
func (r Range) Bounds() string {
	if r.To < 0 {
		return fmt.Sprintf("%d..inf", r.From)
	}
	return fmt.Sprintf("%d..%d", r.From, r.To)
}

// WriteSummary writes what the log says UCX chose: its version and
// settings, the endpoint configurations, the protocols for GPU memory
// (emulated ones marked) and its warnings and errors.
func (l *Log) WriteSummary(w io.Writer, name string) error {
	version := l.Version
	if version == "" {
		version = "version not printed"
	}
	fmt.Fprintf(w, "%s: UCX %s, %d lines (%d from UCX)\n", name, version, l.Lines, l.UCXLines)
	if len(l.Env) > 0 {
		fmt.Fprintf(w, "settings: %s\n", strings.Join(l.Env, " "))
	}
	for _, c := range l.Configs {
		fmt.Fprintf(w, "config  %s\n", c)
	}
	seen := map[string]bool{}
	for _, p := range l.GPUPicks() {
		key := p.Operation + "|" + p.Bounds() + "|" + p.Description + "|" + p.Transports
		if seen[key] {
			continue
		}
		seen[key] = true
		mark := ""
		if p.Emulated() {
			mark = "  (emulated through the CPU)"
		}
		fmt.Fprintf(w, "gpu     %s, %s bytes: %s over %s%s\n", p.Operation, p.Bounds(), p.Description, p.Transports, mark)
	}
	for _, p := range l.Problems {
		fmt.Fprintf(w, "%-7s line %d: %s\n", p.Level, p.Line, p.Text)
	}
	_, err := fmt.Fprintln(w)
	return err
}
