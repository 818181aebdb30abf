package rdmatools

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/commlab/commlab/parse"
)

// String is the report's summary (WriteSummary), as fmt.Println and a
// notebook's text/plain show it.
func (r *Report) String() string { return parse.SummaryText(r.title(), r.WriteSummary) }

func (r *Report) title() string {
	return "rdmatools"
}

// WriteSummary writes what a person reads: the devices and ports with
// state and rate, the GIDs, and the NCCL_IB_GID_INDEX answer.
func (r *Report) WriteSummary(w io.Writer, name string) error {
	if r == nil {
		return parse.WriteNothingParsed(w, name)
	}
	return parse.WriteBuffered(w, func(w io.Writer) {
		ports := r.Ports()
		if r.Tool == ToolShowGIDs {
			devs := map[string]bool{}
			for _, g := range r.GIDs {
				devs[g.Device] = true
			}
			fmt.Fprintf(w, "%s: %s, %d GID%s on %d device%s\n", name, r.Tool, len(r.GIDs), plural(len(r.GIDs)), len(devs), plural(len(devs)))
		} else {
			fmt.Fprintf(w, "%s: %s, %d device%s, %d port%s (%d active)", name, r.Tool,
				len(r.Devices), plural(len(r.Devices)), len(ports), plural(len(ports)), len(r.ActivePorts()))
			if gids := r.AllGIDs(); len(gids) > 0 {
				fmt.Fprintf(w, ", %d GID%s", len(gids), plural(len(gids)))
			}
			fmt.Fprintln(w)
		}
		for _, d := range r.Devices {
			if r.Tool != ToolRDMALink {
				fmt.Fprintf(w, "  %s\n", d)
			}
			for _, p := range d.Ports {
				fmt.Fprintf(w, "    %s\n", p)
				for _, g := range p.GIDs {
					fmt.Fprintf(w, "      %s\n", g)
				}
			}
		}
		for _, g := range r.GIDs {
			fmt.Fprintf(w, "  %s\n", g)
		}
		if len(r.AllGIDs()) > 0 {
			idx, ok, msg := r.NCCLGIDIndex()
			if ok {
				fmt.Fprintf(w, "  RoCE v2 with IPv4: %s -> NCCL_IB_GID_INDEX=%d\n", msg, idx)
			} else {
				fmt.Fprintf(w, "  RoCE v2 with IPv4: %s\n", msg)
			}
		}
		for _, warn := range r.Warnings {
			fmt.Fprintf(w, "  warning: %s\n", warn)
		}
	})
}

// HTML is a table of the ports (or show_gids' rows) for a notebook.
func (r *Report) HTML() string {
	if r == nil {
		return "<p>nothing parsed</p>"
	}
	var b strings.Builder
	e := html.EscapeString
	fmt.Fprintf(&b, "<p><b>%s</b>: %d devices, %d ports (%d active)</p>\n", e(r.Tool), len(r.Devices), len(r.Ports()), len(r.ActivePorts()))
	if ports := r.Ports(); len(ports) > 0 {
		b.WriteString("<table><tr><th>device</th><th>port</th><th>state</th><th>physical</th><th>link layer</th><th>rate Gb/s</th><th>netdev</th><th>GIDs</th></tr>\n")
		for _, p := range ports {
			rate := ""
			if p.RateGbps > 0 {
				rate = formatGbps(p.RateGbps)
			}
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td></tr>\n",
				e(p.Device), p.Number, e(p.State), e(p.PhysState), e(p.LinkLayer), rate, e(p.Netdev), len(p.GIDs))
		}
		b.WriteString("</table>\n")
	}
	if gids := r.AllGIDs(); len(gids) > 0 {
		b.WriteString("<table><tr><th>device</th><th>port</th><th>index</th><th>GID</th><th>IPv4</th><th>type</th><th>netdev</th></tr>\n")
		for _, g := range gids {
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%d</td><td><code>%s</code></td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
				e(g.Device), g.Port, g.Index, e(g.GID), e(g.IPv4), e(g.Type), e(g.Netdev))
		}
		b.WriteString("</table>\n")
		_, _, msg := r.NCCLGIDIndex()
		fmt.Fprintf(&b, "<p>%s</p>\n", e(msg))
	}
	return b.String()
}

// Reading is what a chapter shows of a pasted tool output, indented under
// its heading: each port (a port the paste did not name, number 0 since
// verbs numbers ports from 1, is said so with its physical state), then
// each GID; truncated adds that the paste ends inside its last block.
func (r *Report) Reading(truncated bool) string {
	var b strings.Builder
	for _, p := range r.Ports() {
		if p.Number == 0 {
			fmt.Fprintln(&b, "    a port whose number, state and rate are not in the paste; phys_state", p.PhysState)
			continue
		}
		fmt.Fprintln(&b, "   ", p)
	}
	for _, g := range r.AllGIDs() {
		fmt.Fprintln(&b, "    ", g)
	}
	if truncated {
		fmt.Fprintln(&b, "    (the paste ends inside the last block above; what follows it was not posted)")
	}
	return b.String()
}
