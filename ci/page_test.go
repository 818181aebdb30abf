package ci

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// page is one browser tab the tests drive: waits on conditions in the page,
// screenshots into the artifacts folder, and the errors its console shows.
type page struct {
	t         *testing.T
	ctx       context.Context
	artifacts string
	prefix    string // of screenshot names: "lab-", "hub-alice-"
	// ignore returns why a console error is not one of ours, or "".
	ignore func(chromedp.ConsoleMessage) string

	mu      sync.Mutex
	errors  []string
	ignored []string
	// after, when set, is why every later console error is expected.
	after string
}

// newChromium starts headless Chromium with the flags this machine needs
// and returns the context of its first tab; it ends with the test.
func newChromium(t *testing.T, dir string, timeout time.Duration) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(dir, "chromium")), chromedp.WindowSize(1280, 1400))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}

// newPage watches the console of the tab of ctx. Console starts the
// browser and subscribes before it returns; only the reading runs beside
// the actions (two first uses of ctx at once would start two browsers).
func newPage(t *testing.T, ctx context.Context, artifacts, prefix string, ignore func(chromedp.ConsoleMessage) string) *page {
	p := &page{t: t, ctx: ctx, artifacts: artifacts, prefix: prefix, ignore: ignore}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type != chromedp.ConsoleError && !m.IsException() {
				continue
			}
			p.mu.Lock()
			if why := p.ignoreReason(m); why != "" {
				p.ignored = append(p.ignored, consoleWhere(m)+" ("+why+")")
			} else {
				p.errors = append(p.errors, consoleWhere(m))
			}
			p.mu.Unlock()
		}
	}()
	return p
}

// consoleWhere is a console message with where it came from: the page's
// script and the first calls of its stack.
func consoleWhere(m chromedp.ConsoleMessage) string {
	var b strings.Builder
	b.WriteString(m.String())
	if m.URL != "" {
		fmt.Fprintf(&b, " (%s:%d:%d)", m.URL, m.Line+1, m.Column+1)
	}
	if m.Stack != nil {
		for i, f := range m.Stack.CallFrames {
			if i == 4 {
				break
			}
			fmt.Fprintf(&b, "\n\tat %s %s:%d:%d", f.FunctionName, f.URL, f.LineNumber+1, f.ColumnNumber+1)
		}
	}
	return b.String()
}

// expectErrorsFromNow marks every later console error as expected, for
// why (the page's server was stopped on purpose).
func (p *page) expectErrorsFromNow(why string) {
	p.mu.Lock()
	p.after = why
	p.mu.Unlock()
}

func (p *page) ignoreReason(m chromedp.ConsoleMessage) string {
	if p.after != "" {
		return p.after
	}
	if p.ignore == nil {
		return ""
	}
	return p.ignore(m)
}

// checkConsole fails the test for every console error that is ours, and
// logs the ones ignored with their reason.
func (p *page) checkConsole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.ignored {
		p.t.Logf("%sbrowser console, not ours: %s", p.prefix, e)
	}
	for _, e := range p.errors {
		p.t.Errorf("%sbrowser console: %s", p.prefix, e)
	}
}

// do runs the steps; on failure it saves a screenshot and fails the test.
func (p *page) do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, steps...); err != nil {
		// Said at once: chromedp can panic while it tears a failed run down.
		fmt.Fprintf(os.Stderr, "%sbrowser: %v\n", p.prefix, err)
		_ = chromedp.Do(p.ctx, p.shot("failure.png"))
		p.t.Fatalf("%sbrowser: %v (screenshots and server logs in %s)", p.prefix, err, p.artifacts)
	}
}

// shot saves a screenshot of the whole page as artifacts/<prefix><name>.
func (p *page) shot(name string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		buf, err := chromedp.FullScreenshot(100)(ctx, tg)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(p.artifacts, p.prefix+name), buf, 0o644)
	})
}

// js runs a statement or expression for its effect (an await is allowed).
func (p *page) js(script string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[chromedp.Void]("(async () => { "+script+" })()", chromedp.EvalAwaitPromise)(ctx, tg)
		if err != nil {
			return fmt.Errorf("%s: %w", script, err)
		}
		return nil
	})
}

// read evaluates a JavaScript expression into *dst.
func (p *page) read(expr string, dst *string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		v, err := chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise)(ctx, tg)
		*dst = v
		return err
	})
}

// waitJS polls a JavaScript condition until it is true; after deadline it
// fails with the value of diagnose (an expression), which says what the
// page shows instead.
func (p *page) waitJS(what, cond, diagnose string, deadline time.Duration) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		start := time.Now()
		for {
			ok, err := chromedp.Evaluate[bool](cond, chromedp.EvalAwaitPromise)(ctx, tg)
			if err == nil && ok {
				p.t.Logf("%sbrowser: %s after %v", p.prefix, what, time.Since(start).Round(time.Millisecond))
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
			if time.Since(start) > deadline {
				state := "(no diagnosis)"
				if diagnose != "" {
					state, _ = chromedp.Evaluate[string](diagnose)(ctx, tg)
				}
				if err != nil {
					state += "; last evaluation: " + err.Error()
				}
				return fmt.Errorf("waiting for %s: not true after %v; the page shows %s", what, deadline, strings.TrimSpace(state))
			}
		}
	})
}
