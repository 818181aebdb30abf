package prose

import (
	"html"
	"regexp"
	"strconv"
	"strings"

	"github.com/commlab/commlab/costmodel"
)

// Table is a Markdown table a cell builds row by row. As a cell result
// (or through display.Markdown(t.Markdown())) it renders as a table whose
// text columns align left and whose number columns align right: a column
// is a number column when every cell in it that is not empty starts with
// a digit, a sign or a decimal point ("75.23 ms", "-3%", "1,070x").
type Table struct {
	header []string
	rows   [][]string
}

// NewTable starts a table with its column headings.
func NewTable(columns ...string) *Table {
	return &Table{header: append([]string(nil), columns...)}
}

// Row adds a row; missing cells are empty, extra cells are dropped.
func (t *Table) Row(cells ...string) *Table {
	row := make([]string, len(t.header))
	copy(row, cells)
	t.rows = append(t.rows, row)
	return t
}

// Len is the number of rows.
func (t *Table) Len() int { return len(t.rows) }

// Markdown writes the table.
func (t *Table) Markdown() string {
	if len(t.header) == 0 {
		return ""
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + escapeCell(c) + " |")
		}
		b.WriteString("\n")
	}
	line(t.header)
	b.WriteString("|")
	for col := range t.header {
		if t.numeric(col) {
			b.WriteString("---:|")
		} else {
			b.WriteString(":---|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.rows {
		line(r)
	}
	return b.String()
}

// Folded writes the table folded under a one-line summary (an HTML
// <details> block around the Markdown), for tables too long to show open:
// the page shows the summary, a click shows the rows. Jupyter and the
// exported page both render the block.
func (t *Table) Folded(summary string) string {
	return "<details><summary>" + html.EscapeString(summary) + "</summary>\n\n" + t.Markdown() + "\n</details>\n"
}

// String is the table's Markdown.
func (t *Table) String() string { return t.Markdown() }

func (t *Table) numeric(col int) bool {
	seen := false
	for _, r := range t.rows {
		c := strings.TrimSpace(r[col])
		if c == "" || c == "-" || c == "N/A" {
			continue // no value: neither text nor number
		}
		seen = true
		if !quantity.MatchString(c) {
			return false
		}
	}
	return seen
}

// quantity is a number with at most one unit after it: "75.23 ms",
// "1,070x", "-3%", "24.98 GB/s"; "8-byte stores" is text.
var quantity = regexp.MustCompile(`^[+\-−]?(\d[\d,]*(\.\d*)?|\.\d+)\s?[^\s\d]*$`)

// escapeCell keeps a cell on its row: a | would end the cell, a newline
// the row.
func escapeCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// CostTable shows the cost model's results as the chapters compare them:
// algorithm, GPUs, nodes, size, steps, both terms, the total, busbw and
// what bounds it. Sizes print as a person wrote them (Size): 1 GiB, 1 GB.
func CostTable(costs []costmodel.Cost) *Table {
	t := NewTable("algorithm", "GPUs", "nodes", "size", "steps", "latency term", "bandwidth term", "total", "busbw", "bound")
	for _, c := range costs {
		t.Row(string(c.Algorithm), strconv.Itoa(c.Ranks), strconv.Itoa(c.Nodes), Size(c.Bytes), strconv.Itoa(c.Steps),
			Secs(c.LatencyTerm), Secs(c.BandwidthTerm), Secs(c.Time), Rate(c.BusBW), c.Bound)
	}
	return t
}
