package kernel

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// sentLog keeps the kernel's "status" and "replied" debug records, in the
// order the kernel sent those messages.
type sentLog struct {
	mu   sync.Mutex
	sent []string // "status idle PARENT", "replied execute_reply PARENT"
}

func (l *sentLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *sentLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *sentLog) WithGroup(string) slog.Handler            { return l }
func (l *sentLog) Handle(_ context.Context, r slog.Record) error {
	attrs := map[string]string{}
	r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
	var line string
	switch r.Message {
	case "kernel: status":
		line = "status " + attrs["state"] + " " + attrs["parent"]
	case "kernel: replied":
		line = "replied " + attrs["msg_type"] + " " + attrs["parent"]
	default:
		return nil
	}
	l.mu.Lock()
	l.sent = append(l.sent, line)
	l.mu.Unlock()
	return nil
}

func (l *sentLog) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.sent...)
}

// TestIdleGoesOutBeforeTheReply holds that a request's idle status is sent
// before its reply, once: a client that reads IOPub after the reply (as
// jupyter_kernel_test does, 0.1 s per message) finds it already sent.
func TestIdleGoesOutBeforeTheReply(t *testing.T) {
	log := &sentLog{}
	cl, _ := startKernelLogging(t, slog.New(log))
	for _, tc := range []struct {
		name, code, status string
	}{{"a cell that runs", "x := 1\nx", "ok"}, {"a cell that fails", "undefinedName", "error"}} {
		id := cl.execute(tc.code, false, false)
		if got := cl.reply(id); got != tc.status {
			t.Fatalf("%s: status %q, want %q", tc.name, got, tc.status)
		}
		// The client may hold the reply before the kernel has logged it:
		// wait for the record, then read the order.
		var order []string
		deadline := time.Now().Add(timeout)
		for len(order) < 3 && time.Now().Before(deadline) {
			order = order[:0]
			for _, l := range log.lines() {
				if before, ok := strings.CutSuffix(l, " "+id); ok {
					order = append(order, before)
				}
			}
			if len(order) < 3 {
				time.Sleep(time.Millisecond)
			}
		}
		want := []string{"status busy", "status idle", "replied execute_reply"}
		if len(order) != len(want) || order[0] != want[0] || order[1] != want[1] || order[2] != want[2] {
			t.Errorf("%s: sent %q, want %q", tc.name, order, want)
		}
	}
}
