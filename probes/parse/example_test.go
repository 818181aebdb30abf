package parse_test

import (
	"errors"
	"fmt"

	"github.com/commlab/commlab/probes/parse"
)

func ExampleError() {
	var err error = &parse.Error{Format: "perftest", Line: 3, Msg: "not a perftest report", Err: parse.ErrFormat}
	fmt.Println(err)
	fmt.Println(errors.Is(err, parse.ErrFormat))
	var pe *parse.Error
	if errors.As(err, &pe) {
		fmt.Println("line", pe.Line)
	}
	// Output:
	// perftest: line 3: not a perftest report
	// true
	// line 3
}

func ExampleError_wrapped() {
	truncated := errors.New("nccllog: truncated input")
	err := &parse.Error{Format: "nccllog", Line: 26, Err: fmt.Errorf("%w: last line ends mid-record", truncated)}
	fmt.Println(err)
	fmt.Println(errors.Is(err, truncated))
	// Output:
	// nccllog: line 26: truncated input: last line ends mid-record
	// true
}
