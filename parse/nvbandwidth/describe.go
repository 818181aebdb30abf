package nvbandwidth

import (
	"regexp"
	"strings"
)

// A testcase description's endpoints, "GPU(row) -> CPU(column)", and its
// closing unit, "(GB/s)".
var (
	reDescEnds = regexp.MustCompile(`(?i)^(\S+)\((rows?|columns?)\)\s*(<->|->|<-)\s*(\S+)\((rows?|columns?)\)`)
	reUnit     = regexp.MustCompile(`\(([^()]*)\)\s*$`)
)

// describe fills the fields derived from the description line.
func describe(t *Testcase, desc string) {
	t.Description = desc
	if desc == "" {
		return
	}
	if m := reUnit.FindStringSubmatch(desc); m != nil {
		t.Unit = m[1]
	}
	fields := strings.Fields(desc)
	for i, f := range fields {
		if (f == "CE" || f == "SM") && i > 0 {
			t.Method = f
			if m := reDescEnds.FindStringSubmatch(strings.Join(fields[i+1:], " ")); m != nil {
				t.Direction = m[3]
				// Old builds say "GPU(columns) <- CPU(rows)"; normalise to
				// the row endpoint first.
				if strings.HasPrefix(strings.ToLower(m[2]), "row") {
					t.RowLabel, t.ColumnLabel = m[1], m[4]
				} else {
					t.RowLabel, t.ColumnLabel = m[4], m[1]
					t.Direction = flip(m[3])
				}
			}
			break
		}
	}
}

func flip(dir string) string {
	switch dir {
	case "->":
		return "<-"
	case "<-":
		return "->"
	}
	return dir
}
