package display

import (
	"context"
	"sync"
)

var (
	ctxMu   sync.Mutex
	cellCtx context.Context
)

// Context is the running cell's context: it is cancelled when the cell is
// interrupted. Pass it to long calls (probes' measurements and topology
// sources, launched tools, NCCL runs) so that an interrupt stops them:
//
//	run, err := tool.Run(display.Context())
//
// Parsers read an io.Reader: wrap it so a large file's parse stops too:
//
//	log, err := nccllog.Parse(parse.ContextReader(display.Context(), f))
//
// Outside a cell it is context.Background().
func Context() context.Context {
	ctxMu.Lock()
	defer ctxMu.Unlock()
	if cellCtx == nil {
		return context.Background()
	}
	return cellCtx
}

// SetContext installs the context Context returns and returns the previous
// one; the session sets it around each cell.
func SetContext(ctx context.Context) (previous context.Context) {
	ctxMu.Lock()
	defer ctxMu.Unlock()
	previous, cellCtx = cellCtx, ctx
	return previous
}
