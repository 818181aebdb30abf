package dynlib_test

import (
	"errors"
	"fmt"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/dynlib"
)

// A library that is nowhere says so in one line, and callers branch on
// probes.ErrUnavailable.
func ExampleOpen() {
	_, err := dynlib.Open(dynlib.Spec{
		What:  "CUDA runtime",
		Names: []string{"libcommlab-example.so.13", "libcommlab-example.so"},
		Need:  []string{"cudaGetDeviceCount"},
	})
	fmt.Println(err)
	fmt.Println(errors.Is(err, probes.ErrUnavailable))
	// Output:
	// CUDA runtime unavailable: libcommlab-example.so.13, libcommlab-example.so not found
	// true
}
