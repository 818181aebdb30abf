package measure

import (
	"fmt"
	"html"
	"strconv"
	"strings"

	"github.com/commlab/commlab/probes/launch"
	"github.com/commlab/commlab/probes/recorded"
	"github.com/commlab/commlab/units"
)

// Banner says in one line where the numbers come from: "live on 1x NVIDIA
// H200, driver ..., CUDA 13.0, NCCL 2.28.9, 2026-12-01", or "recorded on
// ..., command \"commlab probe nccl ...\"", then "; no GPU here: ..." when
// auto mode fell back to the recording.
func (m *Measurement) Banner() string {
	s := m.origin()
	if m != nil && m.Fallback != "" {
		s += "; " + m.Fallback
	}
	return s
}

// Source is the banner for use inside a sentence: where the numbers come
// from and, when auto mode fell back to the recording, why in its first
// words ("no GPU here"), without the live error's text (LiveError keeps it).
func (m *Measurement) Source() string {
	s := m.origin()
	if m != nil && m.Fallback != "" {
		reason, _, _ := strings.Cut(m.Fallback, ":")
		s += "; " + reason
	}
	return s
}

// origin is the banner without the fallback.
func (m *Measurement) origin() string {
	if m == nil || m.Run == nil {
		return "no run"
	}
	r := *m.Run
	r.Command = nil
	if m.Live {
		return "live on " + r.Provenance()
	}
	s := "recorded on " + r.Provenance()
	if cmd := shellCommand(m.Run.Command); cmd != "" {
		s += ", command " + strconv.Quote(cmd)
	} else if m.Run.Settings[recorded.NotKept] != "" {
		s += ", command not kept"
	}
	return s
}

// shellCommand prints a recorded run's command as a shell line a reader
// can type to record such a run (recorded.Command: no --save file, no
// folders of the machine that recorded it).
func shellCommand(argv []string) string {
	return launch.ShellJoin(recorded.Command(argv))
}

// String is the banner, then what the run holds: how many samples, of
// which operations, over which sizes.
func (m *Measurement) String() string {
	s := m.Banner()
	if m == nil || m.Run == nil {
		return s
	}
	return s + "\n" + summary(m)
}

func summary(m *Measurement) string {
	r := m.Run
	var ops []string
	seen := map[string]bool{}
	var lo, hi int64 = -1, 0
	for _, smp := range r.Samples {
		if !seen[smp.Op] {
			seen[smp.Op] = true
			ops = append(ops, smp.Op)
		}
		if smp.Bytes > 0 {
			if lo < 0 || smp.Bytes < lo {
				lo = smp.Bytes
			}
			hi = max(hi, smp.Bytes)
		}
	}
	s := fmt.Sprintf("%s run, %d samples", r.Kind, len(r.Samples))
	if len(ops) > 0 {
		s += " of " + strings.Join(ops, ", ")
	}
	switch {
	case lo > 0 && lo < hi:
		s += ", " + units.Readable(float64(lo), "B") + " to " + units.Readable(float64(hi), "B")
	case lo > 0:
		s += ", " + units.Readable(float64(lo), "B")
	}
	if r.Error != "" {
		s += "\nstopped early: " + oneLine(r.Error)
	}
	return s
}

// Box colours: live green, recorded blue, a fallback's reason amber. The
// backgrounds are translucent so dark themes keep their contrast.
const (
	liveColour     = "#1a7f37"
	recordedColour = "#0969da"
	fallbackColour = "#9a6700"
)

// HTML shows the banner as a box a reader cannot miss: a coloured left
// border and a LIVE or RECORDED label, with auto mode's reason for falling
// back on a line of its own. The run's samples are not drawn here.
func (m *Measurement) HTML() string {
	label, colour, bg := "RECORDED", recordedColour, "rgba(9,105,218,0.08)"
	if m != nil && m.Live {
		label, colour, bg = "LIVE", liveColour, "rgba(26,127,55,0.08)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="commlab-measure commlab-measure-%s" style="border-left:4px solid %s;background:%s;padding:6px 10px;margin:4px 0;font-family:sans-serif;font-size:13px;line-height:1.4">`,
		strings.ToLower(label), colour, bg)
	fmt.Fprintf(&b, `<span style="font-weight:bold;color:%s;letter-spacing:0.05em;margin-right:8px">%s</span>%s`,
		colour, label, html.EscapeString(m.origin()))
	if m != nil && m.Fallback != "" {
		// The reason in the reader's words ("no GPU here"); the live error's
		// own text (a library not found, ...) only as the line's tooltip.
		reason, detail, _ := strings.Cut(m.Fallback, ":")
		fmt.Fprintf(&b, `<div style="color:%s;margin-top:2px" title="%s">auto mode showed the recording: %s</div>`,
			fallbackColour, html.EscapeString(strings.TrimSpace(detail)), html.EscapeString(reason))
	}
	b.WriteString("</div>")
	return b.String()
}
