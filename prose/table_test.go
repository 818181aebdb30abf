package prose

import (
	"strings"
	"testing"
)

func TestTableAlignment(t *testing.T) {
	tests := []struct {
		name  string
		rows  [][]string
		align string
	}{
		{"numbers right, words left", [][]string{{"ring", "75.23 ms"}, {"tree", "1,070x"}}, "|:---|---:|"},
		{"a signed number", [][]string{{"a", "-3%"}, {"b", "+5%"}}, "|:---|---:|"},
		{"one word makes a column text", [][]string{{"1", "12 µs"}, {"2", "unknown"}}, "|---:|:---|"},
		{"empty cells do not count", [][]string{{"a", ""}, {"b", "7"}, {"c", "N/A"}, {"d", "-"}}, "|:---|---:|"},
		{"a number then words is text", [][]string{{"8-byte stores", "24 GB/s (NVIDIA)"}}, "|:---|:---|"},
		{"an empty column is text", [][]string{{"a", ""}}, "|:---|:---|"},
		{"no rows", nil, "|:---|:---|"},
	}
	for _, tt := range tests {
		tb := NewTable("x", "y")
		for _, r := range tt.rows {
			tb.Row(r...)
		}
		if lines := strings.Split(tb.Markdown(), "\n"); lines[1] != tt.align {
			t.Errorf("%s: alignment %q, want %q", tt.name, lines[1], tt.align)
		}
	}
	tb := NewTable("a", "b").Row("1", "2", "dropped").Row("only one")
	if tb.Len() != 2 || !strings.Contains(tb.Markdown(), "| only one |  |\n") || strings.Contains(tb.Markdown(), "dropped") {
		t.Errorf("rows: %q", tb.Markdown())
	}
	if NewTable().Markdown() != "" {
		t.Error("a table without columns is not empty")
	}
	if got := NewTable("a").Row("two\nlines").Markdown(); !strings.Contains(got, "| two lines |") {
		t.Errorf("newline in a cell: %q", got)
	}
}

func TestTableFolded(t *testing.T) {
	tb := NewTable("size", "time").Row("1 KiB", "5 µs")
	got := tb.Folded("2 rows <of> results")
	want := "<details><summary>2 rows &lt;of&gt; results</summary>\n\n" + tb.Markdown() + "\n</details>\n"
	if got != want {
		t.Errorf("Folded:\n%q\nwant\n%q", got, want)
	}
}
