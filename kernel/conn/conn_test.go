package conn

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commlab/commlab/kernel/wire"
	"github.com/go-zeromq/zmq4"
)

const testKey = "0c7bd3a2-9d9e-4f55-8d0b-5a1d2e3f4a5b"

// timeout bounds every blocking step of these tests.
const timeout = 10 * time.Second

func tcpInfo() Info {
	return Info{Transport: "tcp", IP: "127.0.0.1", SignatureScheme: "hmac-sha256", Key: testKey, KernelName: "commlab"}
}

// lockedBuffer collects log output written from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func openConn(t testing.TB, info Info, logs *lockedBuffer) *Conn {
	t.Helper()
	var logger *slog.Logger
	if logs != nil {
		logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	c, err := Open(context.Background(), info, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func endpoint(info Info, port int) string {
	if info.Transport == "ipc" {
		return "ipc://" + info.IP + "-" + strconv.Itoa(port)
	}
	return "tcp://" + net.JoinHostPort(info.IP, strconv.Itoa(port))
}

// dial connects a client socket of the given kind to port, closing it at
// the end of the test.
func dial(t testing.TB, info Info, port int, sock zmq4.Socket) zmq4.Socket {
	t.Helper()
	if err := sock.Dial(endpoint(info, port)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sock.Close() })
	return sock
}

// recvWithin receives one message or fails the test after timeout.
func recvWithin(t testing.TB, s zmq4.Socket) zmq4.Msg {
	t.Helper()
	type result struct {
		m   zmq4.Msg
		err error
	}
	done := make(chan result, 1)
	go func() {
		m, err := s.Recv()
		done <- result{m, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("client recv: %v", r.err)
		}
		return r.m
	case <-time.After(timeout):
		t.Fatal("client recv timed out")
	}
	return zmq4.Msg{}
}

func takeWithin(t testing.TB, ch <-chan wire.Message) wire.Message {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatal("kernel channel closed")
		}
		return m
	case <-time.After(timeout):
		t.Fatal("kernel receive timed out")
	}
	return wire.Message{}
}

// request builds a client request signed with key.
func request(t testing.TB, key, msgType string, content any) [][]byte {
	t.Helper()
	s, err := wire.NewSigner("hmac-sha256", []byte(key))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(content)
	frames, err := s.Encode(wire.Message{Header: wire.NewHeader("client-session", "tester", msgType), Content: body})
	if err != nil {
		t.Fatal(err)
	}
	return frames
}

func decodeClient(t testing.TB, frames [][]byte) wire.Message {
	t.Helper()
	s, _ := wire.NewSigner("hmac-sha256", []byte(testKey))
	m, err := s.Decode(frames)
	if err != nil {
		t.Fatalf("client decode: %v", err)
	}
	return m
}

// roundTrip sends a request from a DEALER on ch and answers it from the
// kernel side with a reply the DEALER must receive.
func roundTrip(t *testing.T, c *Conn, ch Channel, in <-chan wire.Message, dealer zmq4.Socket) {
	t.Helper()
	if err := dealer.Send(zmq4.NewMsgFrom(request(t, testKey, "kernel_info_request", map[string]any{})...)); err != nil {
		t.Fatal(err)
	}
	req := takeWithin(t, in)
	if req.Header.MsgType != "kernel_info_request" || len(req.Identities) != 1 {
		t.Fatalf("kernel got %+v", req)
	}
	reply, err := wire.Reply(req, "kernel_info_reply", map[string]any{"status": "ok", "protocol_version": "5.3"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send(ch, reply); err != nil {
		t.Fatal(err)
	}
	got := decodeClient(t, recvWithin(t, dealer).Frames)
	if got.Header.MsgType != "kernel_info_reply" || len(got.Identities) != 0 {
		t.Fatalf("client got %+v", got)
	}
	var parent wire.Header
	if err := json.Unmarshal(got.ParentHeader, &parent); err != nil || parent.MsgID != req.Header.MsgID {
		t.Fatalf("parent header %s does not name the request %s", got.ParentHeader, req.Header.MsgID)
	}
}

func TestShellAndControlRoundTrip(t *testing.T) {
	c := openConn(t, tcpInfo(), nil)
	info := c.Info()
	ctx := t.Context()
	shell := dial(t, info, info.ShellPort, zmq4.NewDealer(ctx))
	control := dial(t, info, info.ControlPort, zmq4.NewDealer(ctx))
	t.Run("shell", func(t *testing.T) { roundTrip(t, c, Shell, c.Shell(), shell) })
	t.Run("control", func(t *testing.T) { roundTrip(t, c, Control, c.Control(), control) })
}

func TestPortZeroBindsFreePorts(t *testing.T) {
	c := openConn(t, tcpInfo(), nil)
	info := c.Info()
	seen := map[int]bool{}
	for _, p := range []int{info.ShellPort, info.ControlPort, info.StdinPort, info.IOPubPort, info.HBPort} {
		if p == 0 || seen[p] {
			t.Fatalf("ports not distinct and bound: %+v", info)
		}
		seen[p] = true
	}
	// Binding the same ports again must fail and say which socket.
	_, err := Open(t.Context(), info, nil)
	if err == nil || !strings.Contains(err.Error(), "conn: bind shell") {
		t.Fatalf("second Open on the same ports: %v", err)
	}
}

func TestStdinRoutesByShellIdentity(t *testing.T) {
	// jupyter_client gives its shell and stdin DEALERs the same identity, so
	// an input_request can be routed with the shell request's identities.
	c := openConn(t, tcpInfo(), nil)
	info := c.Info()
	id := zmq4.WithID(zmq4.SocketIdentity("client-session"))
	shell := dial(t, info, info.ShellPort, zmq4.NewDealer(t.Context(), id))
	stdin := dial(t, info, info.StdinPort, zmq4.NewDealer(t.Context(), id))
	if err := shell.Send(zmq4.NewMsgFrom(request(t, testKey, "execute_request", map[string]any{"code": "fmt.Scanln(&x)", "allow_stdin": true})...)); err != nil {
		t.Fatal(err)
	}
	req := takeWithin(t, c.Shell())
	ask, err := wire.Reply(req, "input_request", map[string]any{"prompt": "x? ", "password": false})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send(Stdin, ask); err != nil {
		t.Fatal(err)
	}
	got := decodeClient(t, recvWithin(t, stdin).Frames)
	if got.Header.MsgType != "input_request" {
		t.Fatalf("stdin client got %s", got.Header.MsgType)
	}
	if err := stdin.Send(zmq4.NewMsgFrom(request(t, testKey, "input_reply", map[string]any{"value": "42"})...)); err != nil {
		t.Fatal(err)
	}
	if ans := takeWithin(t, c.Stdin()); ans.Header.MsgType != "input_reply" || !strings.Contains(string(ans.Content), "42") {
		t.Fatalf("kernel got %s %s", ans.Header.MsgType, ans.Content)
	}
}

func TestIOPubPublish(t *testing.T) {
	c := openConn(t, tcpInfo(), nil)
	info := c.Info()
	sub := zmq4.NewSub(t.Context())
	if err := sub.SetOption(zmq4.OptionSubscribe, ""); err != nil {
		t.Fatal(err)
	}
	dial(t, info, info.IOPubPort, sub)
	// The subscription reaches the PUB asynchronously (slow joiner): publish
	// until the SUB hears, as jupyter_client does with its kernel_info nudge.
	got := make(chan zmq4.Msg, 1)
	go func() {
		m, err := sub.Recv()
		if err == nil {
			got <- m
		}
	}()
	deadline := time.After(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	status := wire.Message{Header: wire.NewHeader("kernel-session", "kernel", "status"), Content: json.RawMessage(`{"execution_state":"starting"}`)}
	for {
		select {
		case m := <-got:
			if topic := string(m.Frames[0]); topic != "kernel.kernel-session.status" {
				t.Errorf("topic %q", topic)
			}
			msg := decodeClient(t, m.Frames)
			if msg.Header.MsgType != "status" || string(msg.Content) != `{"execution_state":"starting"}` {
				t.Fatalf("SUB got %s %s", msg.Header.MsgType, msg.Content)
			}
			return
		case <-tick.C:
			if err := c.Send(IOPub, status); err != nil {
				t.Fatal(err)
			}
		case <-deadline:
			t.Fatal("SUB never received a publication")
		}
	}
}

func TestHeartbeatEcho(t *testing.T) {
	c := openConn(t, tcpInfo(), nil)
	info := c.Info()
	req := dial(t, info, info.HBPort, zmq4.NewReq(t.Context()))
	for i := range 3 {
		ping := []byte(fmt.Sprintf("ping-%d", i))
		if err := req.Send(zmq4.NewMsg(ping)); err != nil {
			t.Fatal(err)
		}
		if got := recvWithin(t, req); !bytes.Equal(got.Bytes(), ping) {
			t.Fatalf("heartbeat echoed %q, want %q", got.Frames, ping)
		}
	}
	// A DEALER heartbeat client (some front ends use one) gets its frames back.
	dealer := dial(t, info, info.HBPort, zmq4.NewDealer(t.Context()))
	if err := dealer.Send(zmq4.NewMsgFrom([]byte("a"), []byte("b"))); err != nil {
		t.Fatal(err)
	}
	if got := recvWithin(t, dealer); len(got.Frames) != 2 || string(got.Frames[1]) != "b" {
		t.Fatalf("dealer heartbeat got %q", got.Frames)
	}
}

func TestBadSignatureDroppedAndLogged(t *testing.T) {
	var logs lockedBuffer
	c := openConn(t, tcpInfo(), &logs)
	info := c.Info()
	shell := dial(t, info, info.ShellPort, zmq4.NewDealer(t.Context()))
	bad := request(t, "not-the-key", "execute_request", map[string]any{"code": "os.RemoveAll(\"/\")"})
	unsigned := request(t, "", "execute_request", map[string]any{"code": "unsigned"})
	garbage := [][]byte{[]byte("hello")}
	good := request(t, testKey, "kernel_info_request", map[string]any{})
	for _, frames := range [][][]byte{bad, unsigned, garbage, good} {
		if err := shell.Send(zmq4.NewMsgFrom(frames...)); err != nil {
			t.Fatal(err)
		}
	}
	// Messages from one peer arrive in order: if the good one is the first
	// delivered, the three before it were dropped.
	if m := takeWithin(t, c.Shell()); m.Header.MsgType != "kernel_info_request" {
		t.Fatalf("delivered %s %s", m.Header.MsgType, m.Content)
	}
	select {
	case m := <-c.Shell():
		t.Fatalf("unexpected extra message %s", m.Header.MsgType)
	case <-time.After(50 * time.Millisecond):
	}
	out := logs.String()
	if n := strings.Count(out, "conn: dropped message"); n != 3 {
		t.Fatalf("logged %d drops, want 3:\n%s", n, out)
	}
	for _, want := range []string{"signature does not match", "message is unsigned", "no <IDS|MSG> delimiter", "channel=shell"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

func TestIPCTransport(t *testing.T) {
	info := tcpInfo()
	info.Transport = "ipc"
	info.IP = filepath.Join(t.TempDir(), "kernel")
	c := openConn(t, info, nil)
	info = c.Info()
	if info.ShellPort == 0 || info.HBPort == 0 {
		t.Fatalf("ipc suffixes not chosen: %+v", info)
	}
	shell := dial(t, info, info.ShellPort, zmq4.NewDealer(t.Context()))
	roundTrip(t, c, Shell, c.Shell(), shell)
	hb := dial(t, info, info.HBPort, zmq4.NewReq(t.Context()))
	if err := hb.Send(zmq4.NewMsgString("ping")); err != nil {
		t.Fatal(err)
	}
	if got := recvWithin(t, hb); string(got.Bytes()) != "ping" {
		t.Fatalf("ipc heartbeat echoed %q", got.Frames)
	}
	sock := info.IP + "-" + strconv.Itoa(info.ShellPort)
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("ipc socket file: %v", err)
	}
	c.Close()
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ipc socket file left after Close: %v", err)
	}
}

func TestSendErrors(t *testing.T) {
	c := openConn(t, tcpInfo(), nil)
	m := wire.Message{Header: wire.NewHeader("s", "u", "execute_reply")}
	if err := c.Send(Shell, m); !errors.Is(err, ErrNoRoute) {
		t.Errorf("shell send without identities: %v, want ErrNoRoute", err)
	}
	if err := c.Send(Channel(9), m); err == nil || !strings.Contains(err.Error(), "channel(9)") {
		t.Errorf("send on unknown channel: %v", err)
	}
	bad := m
	bad.Identities = [][]byte{[]byte("x")}
	bad.Content = json.RawMessage("{")
	if err := c.Send(Shell, bad); !errors.Is(err, wire.ErrMalformed) {
		t.Errorf("send invalid content: %v, want wire.ErrMalformed", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	if err := c.Send(IOPub, m); !errors.Is(err, ErrClosed) {
		t.Errorf("send after close: %v, want ErrClosed", err)
	}
	for name, ch := range map[string]<-chan wire.Message{"shell": c.Shell(), "control": c.Control(), "stdin": c.Stdin()} {
		select {
		case _, ok := <-ch:
			if ok {
				t.Errorf("%s delivered after close", name)
			}
		case <-time.After(timeout):
			t.Errorf("%s channel not closed by Close", name)
		}
	}
}

func TestCancelContextCloses(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	c, err := Open(ctx, tcpInfo(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case _, ok := <-c.Shell():
		if ok {
			t.Fatal("message after cancel")
		}
	case <-time.After(timeout):
		t.Fatal("cancelling the context did not close the connection")
	}
}

// TestOpenToFirstReply measures what a client waits for at kernel start:
// binding all sockets, then a first shell round trip.
func TestOpenToFirstReply(t *testing.T) {
	start := time.Now()
	c := openConn(t, tcpInfo(), nil)
	opened := time.Since(start)
	info := c.Info()
	shell := dial(t, info, info.ShellPort, zmq4.NewDealer(t.Context()))
	roundTrip(t, c, Shell, c.Shell(), shell)
	t.Logf("Open: %v; Open to first shell reply received: %v", opened, time.Since(start))
}

func BenchmarkOpenClose(b *testing.B) {
	for b.Loop() {
		c, err := Open(context.Background(), tcpInfo(), nil)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// BenchmarkOpenToFirstReply is a kernel start as a client sees it: bind all
// sockets, a DEALER connects, one signed request and reply.
func BenchmarkOpenToFirstReply(b *testing.B) {
	req := request(b, testKey, "kernel_info_request", map[string]any{})
	for b.Loop() {
		c, err := Open(context.Background(), tcpInfo(), nil)
		if err != nil {
			b.Fatal(err)
		}
		info := c.Info()
		dealer := zmq4.NewDealer(context.Background())
		if err := dealer.Dial(endpoint(info, info.ShellPort)); err != nil {
			b.Fatal(err)
		}
		if err := dealer.Send(zmq4.NewMsgFrom(req...)); err != nil {
			b.Fatal(err)
		}
		in := takeWithin(b, c.Shell())
		rep, _ := wire.Reply(in, "kernel_info_reply", map[string]string{"status": "ok"})
		if err := c.Send(Shell, rep); err != nil {
			b.Fatal(err)
		}
		recvWithin(b, dealer)
		dealer.Close()
		c.Close()
	}
}

// BenchmarkShellRoundTrip is one small signed request and reply between a
// DEALER and the kernel's shell ROUTER, decoded and verified on both sides.
func BenchmarkShellRoundTrip(b *testing.B) {
	c := openConn(b, tcpInfo(), nil)
	info := c.Info()
	shell := dial(b, info, info.ShellPort, zmq4.NewDealer(context.Background()))
	go func() {
		for req := range c.Shell() {
			rep, _ := wire.Reply(req, "kernel_info_reply", map[string]string{"status": "ok"})
			c.Send(Shell, rep)
		}
	}()
	req := request(b, testKey, "kernel_info_request", map[string]any{})
	b.ResetTimer()
	for b.Loop() {
		if err := shell.Send(zmq4.NewMsgFrom(req...)); err != nil {
			b.Fatal(err)
		}
		decodeClient(b, recvWithin(b, shell).Frames)
	}
}

// BenchmarkIOPubStream publishes small stream messages and counts them
// arriving at a SUB: iopub throughput, messages per second.
func BenchmarkIOPubStream(b *testing.B) {
	c := openConn(b, tcpInfo(), nil)
	info := c.Info()
	sub := zmq4.NewSub(context.Background())
	sub.SetOption(zmq4.OptionSubscribe, "")
	dial(b, info, info.IOPubPort, sub)
	marker := wire.Message{Header: wire.NewHeader("k", "k", "status"), Content: json.RawMessage(`{"execution_state":"idle"}`)}
	// Wait out the slow joiner before timing.
	joined := make(chan struct{})
	go func() { sub.Recv(); close(joined) }()
	for waiting := true; waiting; {
		c.Send(IOPub, marker)
		select {
		case <-joined:
			waiting = false
		case <-time.After(20 * time.Millisecond):
		}
	}
	stream := wire.Message{Header: wire.NewHeader("k", "k", "stream"), Content: json.RawMessage(`{"name":"stdout","text":"hello\n"}`)}
	b.ResetTimer()
	received := make(chan int, 1)
	go func() {
		n := 0
		for n < b.N {
			m, err := sub.Recv()
			if err != nil {
				break
			}
			if string(m.Frames[0]) == "kernel.k.stream" { // not a late marker
				n++
			}
		}
		received <- n
	}()
	for range b.N {
		if err := c.Send(IOPub, stream); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case n := <-received:
		if n != b.N {
			b.Fatalf("received %d of %d", n, b.N)
		}
	case <-time.After(timeout):
		b.Fatal("publications lost")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// TestJupyterClientInterop drives the sockets with jupyter_client over
// pyzmq (libzmq), the client every Jupyter front end uses, when it is
// installed: kernel_info round trip, iopub status and heartbeat.
func TestJupyterClientInterop(t *testing.T) {
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import jupyter_client, zmq").Run(); err != nil {
		t.Skipf("%s cannot import jupyter_client and zmq (Debian: python3-jupyter-client): %v", python, err)
	}
	c := openConn(t, tcpInfo(), nil)
	connFile := filepath.Join(t.TempDir(), "kernel.json")
	data, _ := json.Marshal(c.Info())
	if err := os.WriteFile(connFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		for req := range c.Shell() {
			status := func(state string) {
				m, _ := wire.Reply(req, "status", map[string]string{"execution_state": state})
				m.Identities = nil
				c.Send(IOPub, m)
			}
			status("busy")
			rep, _ := wire.Reply(req, "kernel_info_reply", map[string]any{"status": "ok", "protocol_version": "5.3"})
			c.Send(Shell, rep)
			status("idle")
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, filepath.Join("testdata", "jupyter_client_probe.py"), connFile)
	cmd.Env = append(os.Environ(), "PYDEVD_DISABLE_FILE_VALIDATION=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("probe: %v\n%s", err, stderr.String())
	}
	var res struct {
		Replies []struct {
			MsgType         string `json:"msg_type"`
			Status          string `json:"status"`
			ParentIsRequest bool   `json:"parent_is_request"`
		} `json:"replies"`
		IOPub   []string `json:"iopub"`
		Beating bool     `json:"beating"`
		RTTus   float64  `json:"rtt_us_median"`
		RTTus90 float64  `json:"rtt_us_p90"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("probe output %q: %v", out, err)
	}
	if len(res.Replies) == 0 || res.Replies[0].MsgType != "kernel_info_reply" || res.Replies[0].Status != "ok" || !res.Replies[0].ParentIsRequest {
		t.Fatalf("shell replies %+v", res.Replies)
	}
	if len(res.IOPub) == 0 || res.IOPub[len(res.IOPub)-1] != "status:idle" {
		t.Fatalf("iopub %q never showed idle", res.IOPub)
	}
	if !res.Beating {
		t.Fatal("jupyter_client saw no heartbeat")
	}
	t.Logf("jupyter_client: iopub %q, heartbeat ok; kernel_info round trip median %.0f µs, p90 %.0f µs (200 requests)",
		res.IOPub, res.RTTus, res.RTTus90)
}

// TestOversizedFrameDropsOnlyThatPeer speaks ZMTP by hand to the shell
// socket and announces a 2^50-byte frame. zmq4 would allocate that much
// and end the process; the kernel instead drops that connection and goes
// on serving the others.
func TestOversizedFrameDropsOnlyThatPeer(t *testing.T) {
	c := openConn(t, tcpInfo(), nil)
	info := c.Info()
	raw, err := net.Dial("tcp", net.JoinHostPort(info.IP, strconv.Itoa(info.ShellPort)))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	greeting := make([]byte, greetingLen)
	greeting[0], greeting[9], greeting[10] = 0xff, 0x7f, 3
	copy(greeting[12:], "NULL")
	ready := frame([]byte("\x05READY\x0bSocket-Type\x00\x00\x00\x06DEALER"), false, true)
	huge := make([]byte, 9)
	huge[0] = flagLong
	binary.BigEndian.PutUint64(huge[1:], 1<<50)
	raw.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := raw.Write(append(greeting, ready...)); err != nil {
		t.Fatal(err)
	}
	// The kernel's greeting and READY come back before it reads ours.
	if _, err := io.ReadFull(raw, make([]byte, greetingLen)); err != nil {
		t.Fatalf("no greeting from the kernel: %v", err)
	}
	if _, err := raw.Write(huge); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, raw); err != nil && !errors.Is(err, io.EOF) {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatal("the kernel kept the connection that announced a 2^50-byte frame")
		}
	}
	dealer := dial(t, info, info.ShellPort, zmq4.NewDealer(t.Context()))
	roundTrip(t, c, Shell, c.Shell(), dealer)
}
