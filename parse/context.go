package parse

import (
	"context"
	"io"
)

// ContextReader returns a reader of r that fails with ctx's error once ctx
// is done. Every parser reads an io.Reader, so a parser given this reader
// stops at its next read when the context ends: in a notebook, pass the
// cell's context (display.Context()) and an interrupt stops the parse of a
// large log, e.g. nccllog.Parse(parse.ContextReader(display.Context(), f)).
func ContextReader(ctx context.Context, r io.Reader) io.Reader {
	return &contextReader{ctx: ctx, r: r}
}

type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *contextReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
