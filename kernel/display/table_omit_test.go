package display

import (
	"strings"
	"testing"
)

func TestTableOmitsOptionalEmptyColumns(t *testing.T) {
	type ring struct {
		Channel int
		Comm    string `table:"omitempty"`
		Note    string
	}
	for _, tc := range []struct {
		name     string
		rows     []ring
		wantComm bool
	}{
		{"every row empty", []ring{{Channel: 0}, {Channel: 1}}, false},
		{"one row set", []ring{{Channel: 0}, {Channel: 1, Comm: "0x5e"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := TableBundleOf(tc.rows)
			if err != nil {
				t.Fatal(err)
			}
			html := b.Data[MIMEHTML].(string)
			if got := strings.Contains(html, "<th>Comm</th>"); got != tc.wantComm {
				t.Errorf("Comm column shown %v, want %v:\n%s", got, tc.wantComm, html)
			}
			// an untagged empty column stays: only tagged fields are optional
			if !strings.Contains(html, "<th>Note</th>") {
				t.Errorf("untagged empty column dropped:\n%s", html)
			}
		})
	}
}
