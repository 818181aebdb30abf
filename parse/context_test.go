package parse_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/commlab/commlab/parse"
)

func TestContextReaderStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := parse.ContextReader(ctx, strings.NewReader(strings.Repeat("line\n", 1000)))
	buf := make([]byte, 10)
	if _, err := r.Read(buf); err != nil {
		t.Fatalf("read before cancel: %v", err)
	}
	cancel()
	if _, err := r.Read(buf); !errors.Is(err, context.Canceled) {
		t.Fatalf("read after cancel: err = %v, want context.Canceled", err)
	}
	// A parser reading it ends with the same error.
	_, err := io.ReadAll(r)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadAll after cancel: err = %v", err)
	}
}
