package probes_test

import (
	"fmt"
	"testing"

	"github.com/commlab/commlab/probes"
)

func TestCPUListRoundTrip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"0-47,96-143", "0-47,96-143"},
		{"3,1,2,7", "1-3,7"},
		{"5", "5"},
		{"", ""},
	} {
		cpus, err := probes.ParseCPUList(tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if got := probes.FormatCPUList(cpus); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{"a-3", "4-2", "1,,x"} {
		if _, err := probes.ParseCPUList(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func ExampleNCCLAffinityLine() {
	for _, c := range []struct {
		mask   string
		ignore bool
	}{{"0-191", false}, {"48-71", false}, {"48-71", true}} {
		line, err := probes.NCCLAffinityLine(0, "0-47,96-143", c.mask, c.ignore)
		if err != nil {
			panic(err)
		}
		fmt.Println(line)
	}
	// Output:
	// Affinity for GPU 0 is 0-47,96-143. (GPU affinity = 0-47,96-143 ; CPU affinity = 0-191).
	// Affinity for GPU 0 is empty, ignoring. (GPU affinity = 0-47,96-143 ; CPU affinity = 48-71).
	// Affinity for GPU 0 is 0-47,96-143. (GPU affinity = 0-47,96-143).
}
