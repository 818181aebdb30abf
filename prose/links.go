package prose

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/costmodel"
)

// LinkTable is chapter 2's table of links: each as its source quotes it
// (one way, both ways, a port's bits, or a memory's shared rate), one way,
// as NCCL's topology rates it, as seen in practice, and a footnote number
// for its source, each source numbered once. It renders, as a cell result
// or through Markdown, as the table with the numbered sources under it.
type LinkTable struct {
	table   *Table
	sources []string
}

// Links builds the table for the links given, in that order.
func Links(links ...costmodel.Link) *LinkTable {
	lt := &LinkTable{table: NewTable("link", "as quoted", "one way", "NCCL rates it", "seen in practice", "source")}
	for _, l := range links {
		quoted := Rate(l.Bandwidth.BytesPerSecond) + " one way"
		oneWay := Rate(l.Beta())
		if l.Kind == "memory" { // memory has no directions: reads and writes share one rate
			quoted = Rate(l.Bandwidth.BytesPerSecond) + ", reads + writes share it"
			oneWay = "(no directions)"
		} else if l.Kind == "ib" || l.Kind == "roce" { // ports are sold in bits
			quoted = Num(l.Bandwidth.BytesPerSecond*8/1e9) + " Gb/s per port"
		} else if l.Bandwidth.Direction == costmodel.Bidirectional {
			quoted = Rate(l.Bandwidth.BytesPerSecond) + " both ways"
		}
		ncclRate, practice := "", ""
		if l.NCCLBandwidth > 0 {
			ncclRate = GBps(l.NCCLBandwidth)
		}
		if l.Efficiency > 0 {
			// whole percents: the figures behind them are approximate ("about 55 GB/s")
			practice = fmt.Sprintf("about %.0f%%: ", l.Efficiency*100) + l.EfficiencySource
		}
		lt.table.Row(l.Description, quoted, oneWay, ncclRate, practice, fmt.Sprintf("[%d]", lt.footnote(l.Source)))
	}
	return lt
}

// footnote is the source's number, giving it the next one the first time.
func (lt *LinkTable) footnote(src string) int {
	for i, s := range lt.sources {
		if s == src {
			return i + 1
		}
	}
	lt.sources = append(lt.sources, src)
	return len(lt.sources)
}

// Markdown writes the table and, under it, its sources numbered.
func (lt *LinkTable) Markdown() string {
	var b strings.Builder
	b.WriteString(lt.table.Markdown() + "\n")
	for i, src := range lt.sources {
		fmt.Fprintf(&b, "%d. %s\n", i+1, src)
	}
	return b.String()
}
