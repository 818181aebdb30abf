package doctor

import (
	"slices"
	"testing"
)

func TestHostList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" , ,", nil},
		{"a", []string{"a"}},
		{"a, b,c", []string{"a", "b", "c"}},
		{" node-1 ,,node-2 ", []string{"node-1", "node-2"}},
		{"a,a", []string{"a", "a"}}, // kept as named: the plan runs one command per entry
	} {
		if got := HostList(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("HostList(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
