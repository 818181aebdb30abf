package parse_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/nccllog"
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

func ExampleContextReader() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // as an interrupt does to a cell's context
	_, err := nccllog.Parse(parse.ContextReader(ctx, strings.NewReader("host:1:2 [0] NCCL INFO Bootstrap\n")))
	fmt.Println(errors.Is(err, context.Canceled))
	// Output:
	// true
}
