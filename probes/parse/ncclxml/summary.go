package ncclxml

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/commlab/commlab/probes/parse"
)

// WriteSummary writes what a person reads first about an NCCL topology or
// graph file, starting with a line naming the input (file): for a topology
// its GPUs and NICs, for graphs each graph and its first channels.
func (doc *Document) WriteSummary(w io.Writer, file string) error {
	return parse.WriteBuffered(w, func(w io.Writer) {
		switch {
		case doc.System != nil:
			sys := doc.System
			fmt.Fprintf(w, "%s: NCCL topology, %d CPU (NUMA) node(s)\n", file, len(sys.CPUs))
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  GPU\tbusId\tsm\tnuma\tlink\tnvlinks\tpath\t")
			for _, g := range sys.GPUs() {
				links := 0
				for _, l := range g.NVLinks {
					links += l.Count
				}
				dev := "?"
				if g.Dev >= 0 {
					dev = fmt.Sprint(g.Dev)
				}
				link := strings.TrimSpace(g.LinkSpeed)
				if g.LinkWidth > 0 {
					link += fmt.Sprintf(" x%d", g.LinkWidth)
				}
				fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\t%d\t%s\t\n", dev, g.BusID, g.SM, g.NUMA, link, links, strings.Join(g.Path, " > "))
			}
			tw.Flush()
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  NIC\tbusId\tnuma\tspeed\tport\tgdr\t")
			for _, n := range sys.NICs() {
				name := n.Net.Name
				if name == "" {
					name = "(pci)"
				}
				speed := "-"
				if n.Net.Speed > 0 {
					speed = fmt.Sprintf("%g Gb/s", float64(n.Net.Speed)/1000)
				}
				fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%d\t%d\t\n", name, n.BusID, n.NUMA, speed, n.Net.Port, n.Net.GDR)
			}
			tw.Flush()
		case doc.Graphs != nil:
			fmt.Fprintf(w, "%s: NCCL graphs, %d graph(s)\n", file, len(doc.Graphs.Graphs))
			for _, g := range doc.Graphs.Graphs {
				fmt.Fprintf(w, "  graph %d: pattern %d %s, %d channels, speed %g/%g GB/s, type %s/%s, crossNic %d\n",
					g.ID, g.Pattern, g.PatternName, g.NChannels, g.SpeedIntra, g.SpeedInter, g.TypeIntra, g.TypeInter, g.CrossNic)
				for i, ch := range g.Channels {
					if i == 4 {
						fmt.Fprintf(w, "    ... %d more channels\n", len(g.Channels)-4)
						break
					}
					var steps []string
					for _, s := range ch.Steps {
						steps = append(steps, fmt.Sprintf("%s/%d", strings.ToUpper(s.Kind), s.Dev))
					}
					fmt.Fprintf(w, "    channel %d: %s\n", i, strings.Join(steps, " "))
				}
			}
		default:
			fmt.Fprintf(w, "%s: not an NCCL topology or graph file (root <%s>)\n", file, doc.Root)
		}
	})
}
