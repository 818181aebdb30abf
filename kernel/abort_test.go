package kernel

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/commlab/commlab/kernel/conn"
	"github.com/commlab/commlab/kernel/wire"
	"github.com/go-zeromq/zmq4"
)

// timeout bounds every blocking step of these tests; none waits for a
// duration, only for a condition.
const timeout = 20 * time.Second

// testClient is a Jupyter client on plain zmq4 sockets: shell and stdin
// DEALERs with one identity, as jupyter_client's.
type testClient struct {
	t      *testing.T
	signer *wire.Signer
	shell  zmq4.Socket
	stdin  zmq4.Socket
}

// startKernel serves a kernel on free local ports until the test ends and
// returns a client and the kernel's connection.
func startKernel(t *testing.T) (*testClient, *conn.Conn) {
	t.Helper()
	return startKernelLogging(t, slog.New(slog.DiscardHandler))
}

// startKernelLogging is startKernel with the kernel's log going to log.
func startKernelLogging(t *testing.T, log *slog.Logger) (*testClient, *conn.Conn) {
	t.Helper()
	info := conn.Info{Transport: "tcp", IP: "127.0.0.1", SignatureScheme: "hmac-sha256", Key: "abort-test-key", KernelName: "commlab"}
	ctx, cancel := context.WithCancel(context.Background())
	c, err := conn.Open(ctx, info, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serve(ctx, c, Options{Version: "test"}, log) }()
	info = c.Info()
	id := zmq4.WithID(zmq4.SocketIdentity("abort-test-client"))
	cl := &testClient{t: t, signer: c.Signer(), shell: zmq4.NewDealer(ctx, id), stdin: zmq4.NewDealer(ctx, id)}
	for _, d := range []struct {
		s    zmq4.Socket
		port int
	}{{cl.shell, info.ShellPort}, {cl.stdin, info.StdinPort}} {
		if err := d.s.Dial("tcp://" + net.JoinHostPort(info.IP, strconv.Itoa(d.port))); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		cl.shell.Close()
		cl.stdin.Close()
		cancel()
		<-done
		c.Close()
	})
	return cl, c
}

func (cl *testClient) send(s zmq4.Socket, msgType string, content any) string {
	cl.t.Helper()
	body, err := json.Marshal(content)
	if err != nil {
		cl.t.Fatal(err)
	}
	h := wire.NewHeader("abort-test-session", "tester", msgType)
	frames, err := cl.signer.Encode(wire.Message{Header: h, Content: body})
	if err != nil {
		cl.t.Fatal(err)
	}
	if err := s.Send(zmq4.NewMsgFrom(frames...)); err != nil {
		cl.t.Fatal(err)
	}
	return h.MsgID
}

func (cl *testClient) execute(code string, silent, stopOnError bool) string {
	return cl.send(cl.shell, "execute_request", map[string]any{"code": code, "silent": silent,
		"store_history": !silent, "user_expressions": map[string]any{}, "allow_stdin": true, "stop_on_error": stopOnError})
}

// recv returns the next message on s, decoded.
func (cl *testClient) recv(s zmq4.Socket) wire.Message {
	cl.t.Helper()
	type result struct {
		m   zmq4.Msg
		err error
	}
	got := make(chan result, 1)
	go func() {
		m, err := s.Recv()
		got <- result{m, err}
	}()
	select {
	case r := <-got:
		if r.err != nil {
			cl.t.Fatalf("client recv: %v", r.err)
		}
		m, err := cl.signer.Decode(r.m.Frames)
		if err != nil {
			cl.t.Fatalf("client decode: %v", err)
		}
		return m
	case <-time.After(timeout):
		cl.t.Fatal("client recv timed out")
	}
	return wire.Message{}
}

// reply returns the status of the next shell reply, which must answer id.
func (cl *testClient) reply(id string) string {
	cl.t.Helper()
	m := cl.recv(cl.shell)
	var parent wire.Header
	var content struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(m.ParentHeader, &parent); err != nil || parent.MsgID != id {
		cl.t.Fatalf("shell reply %s answers %s, want %s", m.Header.MsgType, m.ParentHeader, id)
	}
	if err := json.Unmarshal(m.Content, &content); err != nil {
		cl.t.Fatal(err)
	}
	return content.Status
}

// waitQueued waits until the kernel has received n shell requests it has
// not taken yet.
func waitQueued(t *testing.T, c *conn.Conn, n int) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for len(c.Shell()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the kernel did not receive %d queued requests", n)
		}
		<-tick.C
	}
}

// TestStopOnErrorAbortsOnlyQueuedRequests holds stop_on_error to
// ipykernel's rule: a failing cell aborts the execute requests already
// queued when its error reply went out, and no request sent later.
func TestStopOnErrorAbortsOnlyQueuedRequests(t *testing.T) {
	cl, c := startKernel(t)
	tests := []struct {
		name        string
		silent      bool // the failing request is silent
		stopOnError bool
		queued      bool   // the next request is queued before the error reply
		failing     string // the failing cell, when not a panic
		want        string
	}{
		{name: "queued before the error reply", stopOnError: true, queued: true, want: "aborted"},
		{name: "sent after the error reply", stopOnError: true, want: "ok"},
		{name: "stop_on_error false", queued: true, want: "ok"},
		{name: "silent failure", silent: true, stopOnError: true, queued: true, want: "ok"},
		{name: "no documentation, queued", failing: "noSuchName?", stopOnError: true, queued: true, want: "aborted"},
		{name: "no documentation, sent after", failing: "noSuchName?", stopOnError: true, want: "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl.t = t
			var next string
			switch {
			case tt.queued && tt.failing != "":
				// Queue the failing request behind a cell that waits
				// for input, then the next request behind it.
				wait := cl.execute("var line string\nfmt.Scanln(&line)", false, true)
				if m := cl.recv(cl.stdin); m.Header.MsgType != "input_request" {
					t.Fatalf("stdin got %s, want input_request", m.Header.MsgType)
				}
				first := cl.execute(tt.failing, tt.silent, tt.stopOnError)
				next = cl.execute("1+1", false, true)
				waitQueued(t, c, 2)
				cl.send(cl.stdin, "input_reply", map[string]any{"value": "x"})
				if got := cl.reply(wait); got != "ok" {
					t.Fatalf("waiting cell: status %q", got)
				}
				if got := cl.reply(first); got != "error" {
					t.Fatalf("failing cell: status %q", got)
				}
			case tt.queued:
				// The failing cell waits for input while the next
				// request reaches the kernel's queue.
				first := cl.execute("var line string\nfmt.Scanln(&line)\npanic(\"first: \" + line)", tt.silent, tt.stopOnError)
				if m := cl.recv(cl.stdin); m.Header.MsgType != "input_request" {
					t.Fatalf("stdin got %s, want input_request", m.Header.MsgType)
				}
				next = cl.execute("1+1", false, true)
				waitQueued(t, c, 1)
				cl.send(cl.stdin, "input_reply", map[string]any{"value": "x"})
				if got := cl.reply(first); got != "error" {
					t.Fatalf("failing cell: status %q", got)
				}
			default:
				failing := tt.failing
				if failing == "" {
					failing = `panic("first")`
				}
				first := cl.execute(failing, tt.silent, tt.stopOnError)
				if got := cl.reply(first); got != "error" {
					t.Fatalf("failing cell: status %q", got)
				}
				next = cl.execute("1+1", false, true)
			}
			if got := cl.reply(next); got != tt.want {
				t.Errorf("next cell: status %q, want %q", got, tt.want)
			}
			// Aborting ends with the queue: a later cell runs.
			if got := cl.reply(cl.execute("2+2", false, true)); got != "ok" {
				t.Errorf("cell after: status %q, want ok", got)
			}
		})
	}
}
