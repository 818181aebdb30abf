package doctor

import (
	"fmt"
	"html"
	"strings"
)

var statusColor = map[Status]string{OK: "#1a7f37", Warn: "#9a6700", Fail: "#cf222e", Skipped: "#8c959f"}

// HTML renders the verdicts as a table for a notebook cell (a cell that
// ends in a Report shows it): status, layer and check, summary, and for
// warnings and failures the evidence and next step. The full page, with
// the questions and charts, is doctor/report's.
func (r *Report) HTML() string {
	var b strings.Builder
	fmt.Fprintf(&b, "<p><b>commlab doctor</b>: %d ok, %d warn, %d fail, %d skipped; exit status %d</p>\n",
		r.Counts["ok"], r.Counts["warn"], r.Counts["fail"], r.Counts["skipped"], r.ExitCode)
	b.WriteString(`<table><tr><th style="text-align:left">status</th><th style="text-align:left">check</th><th style="text-align:left">finding</th></tr>` + "\n")
	for _, v := range r.Verdicts {
		fmt.Fprintf(&b, `<tr><td style="text-align:left;color:%s;font-weight:600">%s</td><td style="text-align:left">%s/%s</td><td style="text-align:left">%s`,
			statusColor[v.Status], v.Status, v.Layer, html.EscapeString(v.Check), html.EscapeString(v.Summary))
		if v.Status == Warn || v.Status == Fail {
			for _, e := range v.Evidence {
				fmt.Fprintf(&b, "<br><small>%s</small>", html.EscapeString(e))
			}
			if v.Next != "" {
				fmt.Fprintf(&b, "<br><small><b>next:</b> %s</small>", html.EscapeString(v.Next))
			}
		}
		b.WriteString("</td></tr>\n")
	}
	b.WriteString("</table>")
	return b.String()
}

// String is the report as text, for a terminal or a cell's plain output.
func (r *Report) String() string {
	var b strings.Builder
	r.WriteText(&b)
	return b.String()
}
