package probes

import "time"

// ScriptHeader is the provenance an embedded PyTorch script writes at the
// head of its summary.json (c10d_lab.py, bench_overlap.py): what ran, when,
// where, with which settings and environment. The packages that read those
// summaries embed it in theirs.
type ScriptHeader struct {
	Kind     string            `json:"kind"`
	Command  []string          `json:"command"`
	Date     string            `json:"date"`
	Host     string            `json:"host"`
	Settings map[string]string `json:"settings"`
	Env      map[string]string `json:"env"`
}

// Time is Date, written as RFC 3339 by the scripts, or the zero time when
// it is missing or does not parse (a run without a date still reads).
func (h ScriptHeader) Time() time.Time {
	t, err := time.Parse(time.RFC3339Nano, h.Date)
	if err != nil {
		return time.Time{}
	}
	return t
}
